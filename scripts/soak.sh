#!/usr/bin/env bash
# `make soak`: the reliability cases of make check at full size: the
# stateful fuzzer (5,000,000 operations per PMU), trinity (200,000
# syscalls per arch), 1,000 insmod/rmmod cycles, 100 CPU hotplug cycles
# during capture and during counting, and 10,000 disable/enable toggles
# during capture; then make compat (scripts/compat.sh, another kernel), and
# every patch of the upstream series built on its own (series-bisect.sh).
#
# Hours of guest time, so the soak is a list of jobs, each one guest boot
# (the fuzzer and trinity in chunks of SOAK_CHUNK operations, chunk k from
# seed SEED+k), run SOAK_JOBS at a time. A finished job leaves its log in
# build/soak/<seed>/ and its result (counts, figures, the commit it ran)
# in the ledger, tools/testing/soak/<seed>/, which is committed: `make
# soak` run again, on this machine or a new one, resumes the same seed and
# runs only what is missing (SOAK_FRESH=1, or another SOAK_SEED, starts
# over). Prints one SOAK/FUZZ/TRINITY line per figure, the totals, and
# "N passed, M failed" once every job has run.
#
#   scripts/soak.sh                 run (or resume) the soak
#   scripts/soak.sh --status        what is done, what is left, the
#                                   totals so far (from the ledger;
#                                   it records no seed)
#   SOAK_UNTIL=15:00 scripts/soak.sh   start no job after that time (a
#                                   session's end); run again to go on
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build/soak tools/testing/soak

ops=${SOAK_FUZZ_OPS:-5000000} tops=${SOAK_TRINITY_OPS:-200000}
chunk=${SOAK_CHUNK:-500000} tchunk=${SOAK_TRINITY_CHUNK:-100000}
export RPMU_GUEST_TIMEOUT=${SOAK_GUEST_TIMEOUT:-21600} RPMU_LOG_BUF=${SOAK_LOG_BUF:-128M}
v2dtsi=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi
# A job's figure lines, in its guest log and in its ledger entry.
figures='^SOAK \|^FUZZ \|^TRINITY '

# The run: the seed given, else the unfinished run, else a new one.
if [ -n "${SOAK_SEED:-}" ]; then
	seed=$SOAK_SEED
elif [ "${SOAK_FRESH:-0}" != 1 ] && [ -e tools/testing/soak/current ]; then
	seed=$(cat tools/testing/soak/current)
else
	seed=$(date +%s)
fi
case $seed in '' | *[!0-9]*) die "bad soak seed '$seed' (tools/testing/soak/current, SOAK_SEED)" ;; esac
dir=build/soak/$seed ledger=tools/testing/soak/$seed
mkdir -p "$dir" "$ledger"
# Jobs run side by side and take the seed from the environment; only the
# parent records it, and atomically (a job once read the file while another
# rewrote it, got no seed, and ran its chunk from seed k).
export SOAK_SEED=$seed
if [ -z "${1:-}" ]; then
	printf '%s\n' "$seed" >tools/testing/soak/current.tmp
	mv tools/testing/soak/current.tmp tools/testing/soak/current
fi

# jobs: one line per job, "NAME GUEST PLAN SIZES [ENV...]".
jobs() {
	local k n pmu
	# The cycle soaks first: they are one job each.
	echo "soak-vpa_dtl ppc64le vpa_dtl_soak SOAK_LOADS=1000,SOAK_HOTPLUG=100,SOAK_TOGGLES=10000,SOAK_CAPTURE_T=7200"
	echo "soak-xgene arm64 xgene_soak SOAK_LOADS=1000,SOAK_HOTPLUG=100,SOAK_CAPTURE_T=7200 RPMU_DTSI=$v2dtsi"
	# One trinity chunk per arch early: the other fuzzer's findings first.
	trinity_jobs 1 1
	n=$(((ops + chunk - 1) / chunk))
	for k in $(seq 1 "$n"); do
		echo "fuzz-vpa_dtl-$k ppc64le vpa_dtl_fuzz FUZZ_OPS=$chunk,FUZZ_SEED=$((seed + k)),FUZZ_TIMEOUT=14400"
		for pmu in l3c0 iob0 mcb0 mc0; do
			echo "fuzz-$pmu-$k arm64 xgene_fuzz FUZZ_OPS=$chunk,FUZZ_SEED=$((seed + k)),FUZZ_PMUS=$pmu,FUZZ_TIMEOUT=14400 RPMU_DTSI=$v2dtsi"
		done
	done
	trinity_jobs 2 $(((tops + tchunk - 1) / tchunk))
	echo "compat - - -"
	echo "bisect-ppc64le ppc64le - -"
	echo "bisect-arm64 arm64 - -"
}

# trinity_jobs FROM TO: the trinity chunks FROM..TO of both arches.
# A chunk of 100,000 syscalls takes about 1,300 s on arm64 (10,000 in
# 125 s) and 2,500 s on ppc64le. It runs in pieces of 10,000 syscalls,
# each bounded by 900 s, and a piece that livelocks in trinity's own code
# is replaced by the next (tools/testing/guest/trinity.sh); 7,200 s bound
# the chunk with three such pieces in it, so that a run that stops making
# progress fails inside one session instead of holding a core for hours.
trinity_jobs() {
	local k
	for k in $(seq "$1" "$2"); do
		echo "trinity-ppc64le-$k ppc64le trinity TRINITY_OPS=$tchunk,FUZZ_SEED=$((seed + k)),TRINITY_TIMEOUT=7200"
		echo "trinity-arm64-$k arm64 trinity TRINITY_OPS=$tchunk,FUZZ_SEED=$((seed + k)),TRINITY_TIMEOUT=7200 RPMU_DTSI=$v2dtsi"
	done
}

# commit: the commit the job runs (marked -dirty if the code differs from
# it: anything but the ledger and the prose).
commit() {
	local c
	c=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	git diff --quiet HEAD -- . ':!tools/testing/soak' ':!*.md' ':!*.rst' 2>/dev/null || c=$c-dirty
	echo "$c"
}

# record NAME SECONDS COMMIT: the job's ledger entry, written last
# (atomically).
record() {
	{
		echo "counts $(cat "$dir/$1.counts")"
		echo "commit $3"
		echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
		echo "seconds $2"
		cat "$dir/$1.figures" 2>/dev/null || true
	} >"$ledger/.$1.tmp"
	mv "$ledger/.$1.tmp" "$ledger/$1"
}

# totals FILE...: the FUZZ and TRINITY lines of the jobs' figure files
# (build/soak/<seed>/NAME.figures) added up: per PMU for the fuzzer
# (operations, chunks, seconds and the range of a chunk's seconds), per
# arch for trinity (the arch is in the job's name, trinity-ARCH-K).
totals() {
	[ -e "$1" ] || return 0
	awk '
	/^FUZZ / || /^TRINITY / {
		delete f
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	}
	/^FUZZ / {
		p = f["pmu"]; s = f["seconds"]
		ops[p] += f["ops"]; secs[p] += s; n[p]++
		if (!(p in lo) || s < lo[p]) lo[p] = s
		if (s > hi[p]) hi[p] = s
		if (f["status"] != 0) bad[p]++
	}
	/^TRINITY / {
		a = FILENAME; sub(/.*\/trinity-/, "", a); sub(/-[0-9]+\.figures$/, "", a)
		t[a]++; tops[a] += f["ops"]; tsecs[a] += f["seconds"]; if (f["status"] != 0) tbad[a]++
	}
	END {
		for (p in ops)
			printf "SOAK total: fuzz %s %d operations in %d chunks, %d s (%d-%d s a chunk; %d chunks failed)\n",
				p, ops[p], n[p], secs[p], lo[p], hi[p], bad[p]
		for (a in t)
			printf "SOAK total: trinity %s %d syscalls in %d runs, %d s (%d failed)\n",
				a, tops[a], t[a], tsecs[a], tbad[a]
	}' "$@" | sort
}

# restore: a job the ledger has and build/soak does not (a new machine)
# counts as done; its figures come from the ledger.
restore() {
	local f name
	for f in "$ledger"/*; do
		[ -f "$f" ] || continue
		name=$(basename "$f")
		[ -e "$dir/$name.counts" ] && continue
		sed -n 's/^counts //p' "$f" >"$dir/$name.counts"
		grep "$figures" "$f" >"$dir/$name.figures" || true
	done
}

# run_job NAME GUEST PLAN SIZES [ENV...]: one guest boot; its counts file
# marks it done.
run_job() {
	local name=$1 g=$2 plan=$3 sizes=${4//,/ } ksrc t0=$SECONDS c
	shift 4
	c=$(commit)
	if [ "$name" = "bisect-$g" ]; then
		# Every patch of the upstream series builds on its own.
		"$RPMU_TOP/scripts/series-bisect.sh" "$g" >"$dir/$name.out" 2>&1 || true
		mkdir -p "$dir/tmp"
		tail -n 1 "$dir/$name.out" | awk '/passed,/ { print $1, $3 }' >"$dir/tmp/$name.counts"
		[ -s "$dir/tmp/$name.counts" ] || echo "0 1" >"$dir/tmp/$name.counts"
		grep -a 'FAILED' "$dir/$name.out" | sed "s/^/SOAK $name: /" >"$dir/$name.figures" || true
		mv "$dir/tmp/$name.counts" "$dir/$name.counts"
		record "$name" $((SECONDS - t0)) "$c"
		return
	fi
	if [ "$name" = compat ]; then
		"$RPMU_TOP/scripts/compat.sh" >"$dir/compat.out" 2>&1 || true
		mkdir -p "$dir/tmp"
		tail -n 1 "$dir/compat.out" | awk '/passed,/ { print $1, $3 }' >"$dir/tmp/compat.counts"
		[ -s "$dir/tmp/compat.counts" ] || echo "0 1" >"$dir/tmp/compat.counts"
		tail -n 3 "$dir/compat.out" | sed 's/^/SOAK compat: /' >"$dir/compat.figures"
		mv "$dir/tmp/compat.counts" "$dir/compat.counts"
		record compat $((SECONDS - t0)) "$c"
		return
	fi
	ksrc=$(readlink -f "$("$RPMU_TOP/scripts/kernel.sh" "$g")/source")
	log "soak: $name"
	rm -f "$dir/$name.log"
	env "$@" timeout $((RPMU_GUEST_TIMEOUT + 600)) "$RPMU_TOP/tools/testing/run-guest.sh" "$g" "$plan" \
		"$dir/$name.log" "$sizes" >"$dir/$name.out" 2>&1 || true
	# No guest log: the host could not prepare the guest (a build or a
	# download failed). That says nothing of the code under test, so the
	# job stays pending instead of entering the ledger as a failure.
	if [ ! -s "$dir/$name.log" ]; then
		warn "soak: $name did not boot, left pending: $(tail -n 1 "$dir/$name.out")"
		return 1
	fi
	mkdir -p "$dir/tmp"
	python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" "$dir/$name.log" "$dir/tmp/$name" >>"$dir/$name.out" 2>&1 ||
		echo "0 1" >"$dir/tmp/$name.counts"
	grep -a -h "$figures" "$dir/$name.log" | tr -d '\r' >"$dir/$name.figures" || true
	mv "$dir/tmp/$name.counts" "$dir/$name.counts"
	record "$name" $((SECONDS - t0)) "$c"
	log "soak: $name done: $(cat "$dir/$name.counts") (passed failed)"
}

# SOAK_UNTIL as an instant, fixed once: a bare time of day that has
# passed today means tomorrow (SOAK_UNTIL=01:30 started at 23:00 once
# started nothing). Jobs get it as @EPOCH.
if [ -n "${SOAK_UNTIL:-}" ] && [ "${SOAK_UNTIL#@}" = "$SOAK_UNTIL" ]; then
	until=$(date -d "$SOAK_UNTIL" +%s) || die "bad SOAK_UNTIL '$SOAK_UNTIL'"
	case $SOAK_UNTIL in
	[0-9]:[0-9][0-9] | [0-9][0-9]:[0-9][0-9])
		[ "$until" -gt "$(date +%s)" ] || until=$((until + 86400)) ;;
	esac
	export SOAK_UNTIL=@$until
fi

if [ "${1:-}" = --job ]; then
	if [ -n "${SOAK_UNTIL:-}" ] && [ "$(date +%s)" -ge "$(date -d "$SOAK_UNTIL" +%s)" ]; then
		log "soak: $2 not started (SOAK_UNTIL=$SOAK_UNTIL)"
		exit 0
	fi
	line=$(jobs | awk -v n="$2" '$1 == n')
	[ -n "$line" ] || die "no soak job $2"
	# shellcheck disable=SC2086 # the job line is words
	run_job $line
	exit 0
fi

restore
pending() { jobs | while read -r name _; do [ -e "$dir/$name.counts" ] || echo "$name"; done; }
total=$(jobs | wc -l)
left=$(pending | wc -l)
if [ "${1:-}" = --status ]; then
	echo "soak seed $seed: $((total - left)) of $total jobs done; left: $(pending | tr '\n' ' ')"
	totals "$dir"/*.figures
	exit 0
fi

start=$(date +%s)
log "make soak: seed $seed, $((total - left)) of $total jobs already done, ${SOAK_JOBS:-2} at a time"
# Nothing to run (a finished ledger, on this machine or a new one): no
# tools, kernels or guests, only the figures below.
if [ "$left" != 0 ]; then
	"$RPMU_TOP/scripts/setup-host.sh"
	# Kernels, modules and perf once, before jobs of the same arch run
	# side by side.
	for g in ppc64le arm64; do
		k=$("$RPMU_TOP/scripts/kernel.sh" "$g")
		guest_arch "$g"
		"$RPMU_TOP/scripts/modules.sh" "$k" "$karch" >/dev/null
		"$RPMU_TOP/scripts/guest-perf.sh" "$g" "$(readlink -f "$k/source")" >/dev/null
	done
	pending | xargs -r -P "${SOAK_JOBS:-2}" -n 1 "$RPMU_TOP/scripts/soak.sh" --job || true
fi

# The figures: every job's lines, then the totals.
for f in "$dir"/*.figures; do [ -e "$f" ] && cat "$f"; done
totals "$dir"/*.figures
left=$(pending | wc -l)
sum_counts "$dir"
log "make soak: $((total - left)) of $total jobs done, this run took $(($(date +%s) - start)) s (seed $seed)"
if [ "$left" != 0 ]; then
	echo "make soak: $left jobs left; run it again to resume seed $seed"
	exit 1
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
