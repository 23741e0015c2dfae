#!/usr/bin/env bash
# `make check`: host tests of the no_std logic and of the harness's own
# bookkeeping (tools/testing/harness_test.sh), lint, then the modules' KUnit
# suites and the end-to-end tests: vpa_dtl in QEMU pseries (ppc64le) and the
# X-Gene PMUs on simulated silicon in QEMU virt (arm64), each next to the
# upstream C driver. Ends with "N passed, M failed" counting the host, lint,
# dkms, KUnit and end-to-end cases; exits non-zero if any failed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
start=$(date +%s)
mkdir -p build
rm -f build/*.counts

"$RPMU_TOP/scripts/setup-host.sh"

log "host: cargo test (no_std logic, property tests)"
set +e
cargo "+$RUST_TOOLCHAIN" test --workspace --quiet >build/host-test.log 2>&1
set -e
grep -E "^test result:|^test .* FAILED|panicked" build/host-test.log | sed 's/^/  /'
hp=$(awk '/^test result:/ { p += $4 } END { print p + 0 }' build/host-test.log)
hf=$(awk '/^test result:/ { f += $6 } END { print f + 0 }' build/host-test.log)
grep -q "^test result:" build/host-test.log || hf=$((hf + 1))
echo "$hp $hf" >build/host.counts

kdir=$("$RPMU_TOP/scripts/kernel.sh" ppc64le)
ksrc=$(readlink -f "$kdir/source")

log "harness: the soak ledger, the kernel-report pattern, the guest's suite runner"
KSRC=$ksrc timeout 300 "$RPMU_TOP/tools/testing/harness_test.sh" build/harness.counts || true
[ -s build/harness.counts ] || echo "0 1" >build/harness.counts

log "lint: rustfmt, clippy, documentation"
KDIR=$kdir "$RPMU_TOP/scripts/lint.sh"

log "dkms: the drivers built by Debian's dkms against both kernel trees"
KDIR=$kdir "$RPMU_TOP/scripts/dkms-check.sh"

# Sizes of the fuzz and soak cases in make check (make soak: scripts/soak.sh).
RPMU_CI_SIZES="FUZZ_OPS=100000 FUZZ_SEED=1 SOAK_LOADS=20 SOAK_HOTPLUG=10 SOAK_TOGGLES=500"

# The guest boots, one a line, in the order each chain runs them:
#   chain|log name|guest|plans|environment|kernel arguments|what it runs
# The environment is VAR=value words for run-guest.sh (RPMU_C_REFERENCE=1
# makes a boot of the upstream C driver, reported as the reference;
# RPMU_STOCK_PERF=1 gives the guest perf without patches/perf, so that the
# stock tool stays covered).
v1=$RPMU_TOP/tools/testing/xgene/xgene-v1.dtsi
v2=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi
boots=(
	"ppc|ppc64le-vpa_dtl|ppc64le|vpa_dtl_basic,vpa_dtl_capture,vpa_dtl_foreign|RPMU_GUEST_TIMEOUT=1200||vpa_dtl (KUnit, validation, lifetime, capture scenarios, other DTL users)"
	"ppc|ppc64le-acct|ppc64le-acct|vpa_dtl_fuzz,vpa_dtl_shared|RPMU_GUEST_TIMEOUT=1200 RPMU_STOCK_PERF=1|FUZZ_OPS=30000 FUZZ_SEED=2|vpa_dtl next to the kernel's steal-time accounting (native cputime accounting kernel)"
	"ppc|ppc64le-reliability|ppc64le|vpa_dtl_fuzz,vpa_dtl_soak|RPMU_GUEST_TIMEOUT=1800|$RPMU_CI_SIZES|vpa_dtl under the fuzzer, soak cases at CI size"
	"ppc|ppc64le-cref|ppc64le|vpa_dtl_cref|RPMU_C_REFERENCE=1||the upstream C vpa-dtl on the same simulator (differential)"
	"ppc|ppc64le-acct-kvm|ppc64le-acct|vpa_dtl_kvm_shared|RPMU_NESTED=1 RPMU_GUEST_TIMEOUT=900 RPMU_STOCK_PERF=1||vpa_dtl in a KVM guest beside the kernel's steal-time accounting (the shared ring)"
	"ppc|ppc64le-kvm|ppc64le|vpa_dtl_kvm|RPMU_NESTED=1 RPMU_GUEST_TIMEOUT=1200|FUZZ_OPS=20000 FUZZ_SEED=3|vpa_dtl in a KVM guest: Linux KVM-HV writes the DTL (nested)"
	"ppc|ppc64le-kvm-steal|ppc64le|vpa_dtl_kvm_steal|RPMU_NESTED=1 RPMU_L1_HOG=0,1 RPMU_GUEST_TIMEOUT=900||vpa_dtl in a KVM guest whose host is busy: the stolen time captured against KVM's own total"
	"arm|arm64-xgene-rust|arm64|xgene_sysfs,xgene_rust,xgene_stat,xgene_irq,xgene_perf|RPMU_DTSI=$v2||our xgene_pmu on simulated X-Gene 2 silicon (KUnit, probe, sysfs, the perf_event_open contract, lifetime, perf stat)"
	"arm|arm64-xgene-v1|arm64|xgene_rust,xgene_stat,xgene_irq|RPMU_DTSI=$v1 RPMU_XGENE_CSWCR=0 RPMU_XGENE_MCBA=4 RPMU_XGENE_MCBB=0||our xgene_pmu on simulated X-Gene 1 silicon (one counter a PMU, one MCB)"
	"arm|arm64-xgene-reliability|arm64|xgene_fuzz,xgene_soak|RPMU_GUEST_TIMEOUT=2700 RPMU_DTSI=$v2|$RPMU_CI_SIZES|xgene_pmu under the fuzzer, soak cases at CI size"
	"arm|arm64-xgene-cref|arm64|xgene_sysfs,xgene_tables,xgene_stat|RPMU_C_REFERENCE=1 RPMU_DTSI=$v2||the upstream C xgene_pmu on the same silicon (differential)"
	"arm|arm64-xgene-v3|arm64|xgene_stat,xgene_irq,xgene_perf|RPMU_ACPI=3||our xgene_pmu on simulated X-Gene 3 silicon (ACPI)"
	"arm|arm64-xgene-v3-cref|arm64|xgene_stat|RPMU_C_REFERENCE=1 RPMU_ACPI=3||the upstream C xgene_pmu on X-Gene 3 silicon (ACPI, differential)"
	"arm|arm64-xgene-acpi1|arm64|xgene_stat|RPMU_ACPI=1||our xgene_pmu on simulated X-Gene 1 silicon (ACPI: discovery must not read MCB B)"
	"arm|arm64-xgene-acpi2|arm64|perf_shell,xgene_demo|RPMU_ACPI=2 RPMU_STOCK_PERF=1||our xgene_pmu on simulated X-Gene 2 silicon (ACPI), with perf's own shell tests"
)

# Runs a chain's boots one after the other, each reported as it ends.
chain() { # ppc|arm
	local c name guest plans envs args what ref
	for b in "${boots[@]}"; do
		IFS='|' read -r c name guest plans envs args what <<<"$b"
		[ "$c" = "$1" ] || continue
		log "guest $guest: $what"
		read -ra envs <<<"$envs"
		ref=()
		[[ " ${envs[*]} " == *" RPMU_C_REFERENCE=1 "* ]] && ref=(--reference)
		env "${envs[@]}" "$RPMU_TOP/tools/testing/run-guest.sh" "$guest" "$plans" "build/$name.log" "$args"
		python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" "build/$name.log" "build/$name" "${ref[@]}"
		grep -a '^DIFF ' "build/$name.log" | tr -d '\r' | sed "s/^/  C driver ($name): /" || true
	done
}

# Differential: the two X-Gene drivers' sysfs trees, file by file.
sysfs_diff() {
	grep -a '^SYSFS ' build/arm64-xgene-rust.log | tr -d '\r' >build/sysfs-rust.txt || true
	grep -a '^SYSFS ' build/arm64-xgene-cref.log | tr -d '\r' >build/sysfs-cref.txt || true
	if [ -s build/sysfs-cref.txt ] && diff build/sysfs-cref.txt build/sysfs-rust.txt >build/sysfs.diff; then
		echo "  ok     sysfs trees of the C and Rust drivers identical ($(wc -l <build/sysfs-rust.txt) files)"
		echo "1 0" >build/arm64-xgene-diff.counts
	else
		echo "  FAILED sysfs trees of the C and Rust drivers differ:"
		head -n 20 build/sysfs.diff
		echo "0 1" >build/arm64-xgene-diff.counts
	fi
}

# Everything the guests need is built first, one thing at a time (the apt
# and build caches are not made for concurrent fills).
log "guests: kernels, perf, modules and userspace for ppc64le and arm64"
"$RPMU_TOP/scripts/kernel.sh" arm64 >/dev/null
RPMU_PREPARE_ONLY=1 "$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_basic build/prepare.log
RPMU_PREPARE_ONLY=1 "$RPMU_TOP/tools/testing/run-guest.sh" ppc64le-acct vpa_dtl_basic build/prepare.log
# The nested setup's L1: a KVM-HV host kernel and Debian's ppc64el QEMU.
"$RPMU_TOP/scripts/kernel.sh" ppc64le-kvmhost >/dev/null
"$RPMU_TOP/scripts/l1-userspace.sh" >/dev/null
RPMU_PREPARE_ONLY=1 "$RPMU_TOP/tools/testing/run-guest.sh" arm64 xgene_rust build/prepare.log

# The shipped modules carry no test code: no KUnit suite, no simulator or
# test helper (those live in the *_kunit.ko and *_sim.ko test modules).
sp=0 sf=0
ppc_mods=$("$RPMU_TOP/scripts/modules.sh" "$kdir" powerpc)
arm_mods=$("$RPMU_TOP/scripts/modules.sh" "$("$RPMU_TOP/scripts/kernel.sh" arm64)" arm64)
for ko in "$ppc_mods/drivers/perf/vpa_dtl/vpa_dtl.ko" "$arm_mods/drivers/perf/xgene/xgene_pmu.ko"; do
	if [ -f "$ko" ] && shipped_clean "$ko"; then
		echo "  ok     $(basename "$ko"): no test code (no kunit, kprobe, hotplug-control or selftest symbol)"
		sp=$((sp + 1))
	else
		echo "  FAILED $(basename "$ko"): missing, or carries test code"
		sf=$((sf + 1))
	fi
done
echo "$sp $sf" >build/shipped.counts

# The upstream series (make series), applied to the release and built
# in-tree for both architectures on copies of the test kernels' builds.
log "series: make series; applied, checkpatch, in-tree builds (beside the guests)"
rm -rf build/series
"$RPMU_TOP/scripts/series.sh" >/dev/null

# The two chains run side by side (most of a guest's time is spent in tests
# that sleep), and the series' builds beside them; each one's output is
# shown when it ends.
(set -e; chain ppc) >build/chain-ppc64le.out 2>&1 &
ppc_pid=$!
(set -e; chain arm; sysfs_diff) >build/chain-arm64.out 2>&1 &
arm_pid=$!
# The series' builds run at the lowest priority: the guests' timing cases
# (steal time against what the simulator injected) keep the CPU they had.
(for g in ppc64le arm64; do nice -n 19 "$RPMU_TOP/scripts/series-check.sh" "$g" "build/series-$g.counts" || true; done) \
	>build/chain-series.out 2>&1 &
series_pid=$!
ppc_rc=0 arm_rc=0
wait $ppc_pid || ppc_rc=$?
wait $arm_pid || arm_rc=$?
wait $series_pid || true
for g in ppc64le arm64; do [ -s "build/series-$g.counts" ] || echo "0 1" >"build/series-$g.counts"; done
cat build/chain-ppc64le.out build/chain-arm64.out
grep -v '^\[' build/chain-series.out || true
# A chain that stopped early left cases uncounted: count that as a failure.
[ "$ppc_rc" = 0 ] || { echo "  FAILED the ppc64le chain stopped (exit $ppc_rc)"; echo "0 1" >build/chain-ppc64le.counts; }
[ "$arm_rc" = 0 ] || { echo "  FAILED the arm64 chain stopped (exit $arm_rc)"; echo "0 1" >build/chain-arm64.counts; }

sum_counts build
log "make check took $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
