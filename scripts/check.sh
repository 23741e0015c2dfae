#!/usr/bin/env bash
# `make check`: host tests of the no_std logic, lint, then the modules' KUnit
# suites and the end-to-end tests in QEMU pseries (ppc64le), and the X-Gene
# event tables against the upstream driver in QEMU virt (arm64). Ends with "N passed, M failed" counting
# the host, KUnit and end-to-end cases; exits non-zero if any failed.
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

log "lint: rustfmt, clippy"
KDIR=$kdir "$RPMU_TOP/scripts/lint.sh"

# One boot for our driver (the upstream C vpa-dtl blacklisted) ...
log "guest ppc64le: vpa_dtl (KUnit, validation, lifetime, capture scenarios)"
"$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_basic,vpa_dtl_capture build/ppc64le-vpa_dtl.log
python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" build/ppc64le-vpa_dtl.log build/ppc64le-vpa_dtl

# ... and one, thrown away afterwards, for the upstream C reference.
log "guest ppc64le: the upstream C vpa-dtl on the same simulator (differential)"
RPMU_C_REFERENCE=1 "$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_cref build/ppc64le-cref.log
python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" build/ppc64le-cref.log build/ppc64le-cref --reference

# arm64: the X-Gene event tables against the upstream C driver, probed on
# the simulated v2 PMU (device tree from tools/testing/xgene/).
log "guest arm64: X-Gene event tables vs the C xgene_pmu on simulated v2 silicon"
"$RPMU_TOP/scripts/kernel.sh" arm64 >/dev/null
RPMU_C_REFERENCE=1 RPMU_DTSI=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi \
	"$RPMU_TOP/tools/testing/run-guest.sh" arm64 xgene_tables build/arm64-xgene.log
python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" build/arm64-xgene.log build/arm64-xgene

# ... and perf stat end to end on the simulated silicon (xgene_sim.ko), every
# count against the model's tally, with the C driver as the reference.
log "guest arm64: perf stat vs the simulated X-Gene silicon, C xgene_pmu (reference)"
RPMU_C_REFERENCE=1 RPMU_DTSI=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi \
	"$RPMU_TOP/tools/testing/run-guest.sh" arm64 xgene_stat build/arm64-xgene-cref.log
python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" build/arm64-xgene-cref.log build/arm64-xgene-cref --reference

passed=0 failed=0
for f in build/*.counts; do
	read -r p fl <"$f"
	passed=$((passed + p)) failed=$((failed + fl))
done
log "make check took $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
