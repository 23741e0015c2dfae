#!/usr/bin/env bash
# `make mutants`: deliberately broken drivers, each of which a detector or
# the fuzzer must catch. Each mutant is one sed edit applied to a scratch
# copy of the tree (build/mutant-NAME); the named guest plan then runs on
# it, and the mutant is "caught" if the run has a failing case. Prints one
# line per mutant and "N caught, M missed".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
ksrc=$(readlink -f "$("$RPMU_TOP/scripts/kernel.sh" ppc64le)/source")
sizes="FUZZ_OPS=100000 FUZZ_SEED=1"

# name|file|sed program|guest|plan|what should catch it
mutants=(
	"sleeping-reader-lock|drivers/perf/vpa_dtl/pmu.rs|s/RawSpinLock<Reader>/kernel::sync::SpinLock<Reader>/;s/new_raw_spinlock!(reader/kernel::new_spinlock!(reader/|ppc64le|vpa_dtl_capture|lockdep (PROVE_RAW_LOCK_NESTING): a spinlock_t under perf's raw ctx->lock"
	"no-module-pin|rust/rpmu/perf/module_pin.rs|/#\[cfg(MODULE)\]/d;/owner: (\&raw const kernel::bindings::__this_module).cast_mut(),/d|ppc64le|vpa_dtl_basic|pmu_edge aux-orphan: rmmod succeeds while an AUX area outlives its event, and its last munmap runs freed module text (the fuzzer keeps clear of the SET_OUTPUT alias this needs, a 7.3.4 core WARN, unless --core-bugs)"
	"exclude-after-claim|rust/rpmu/perf/callbacks.rs|s/if T::CAPABILITIES.contains(Capability::NoExclude) \&\& init.has_exclude()/if false/|ppc64le|vpa_dtl_fuzz|the fuzzer: an exclude_* request answered EBUSY, not EINVAL"
)
caught=0 missed=0
for m in "${mutants[@]}"; do
	IFS='|' read -r name file prog guest plan what <<<"$m"
	dir=$RPMU_TOP/build/mutant-$name
	rm -rf "$dir"
	mkdir -p "$dir"
	git ls-files -z | xargs -0 cp --parents -t "$dir"
	sed -i "$prog" "$dir/$file"
	if cmp -s "$RPMU_TOP/$file" "$dir/$file"; then
		echo "  mutant $name: the edit did not apply to $file"
		missed=$((missed + 1))
		continue
	fi
	log "mutant $name: $plan on $guest (expect: $what)"
	if ! "$dir/tools/testing/run-guest.sh" "$guest" "$plan" "$dir/run.log" "$sizes"; then
		echo "  mutant $name: did not build or boot (not a catch)"
		missed=$((missed + 1))
		continue
	fi
	python3 "$dir/tools/testing/report.py" "$ksrc" "$dir/run.log" "$dir/run" >"$dir/report.txt" 2>&1 || true
	p=0 f=1
	[ -f "$dir/run.counts" ] && read -r p f <"$dir/run.counts"
	if [ "${f:-1}" -gt 0 ]; then
		echo "  caught mutant $name ($f failing cases; expected: $what)"
		grep -E "not ok|FAIL|kernel report" "$dir/report.txt" | head -n 5 | sed 's/^/      /'
		caught=$((caught + 1))
	else
		echo "  MISSED mutant $name ($p cases passed; expected: $what)"
		missed=$((missed + 1))
	fi
done
echo "$caught caught, $missed missed"
[ "$missed" = 0 ]
