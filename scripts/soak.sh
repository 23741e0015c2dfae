#!/usr/bin/env bash
# `make soak`: the reliability cases of make check at full size, with a
# fresh seed (printed; set SOAK_SEED to replay): the stateful fuzzer
# (5,000,000 operations per PMU), trinity (1,000,000 syscalls), 1,000
# insmod/rmmod cycles, 100 CPU hotplug cycles during capture and during
# counting, and 10,000 disable/enable toggles during capture; then make
# compat (scripts/compat.sh, another kernel). Prints one
# SOAK/FUZZ/TRINITY line per figure and "N passed, M failed".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
start=$(date +%s)
mkdir -p build/soak
rm -f build/soak/*.counts
seed=${SOAK_SEED:-$(date +%s)}
sizes="FUZZ_OPS=${SOAK_FUZZ_OPS:-5000000} FUZZ_SEED=$seed TRINITY_OPS=${SOAK_TRINITY_OPS:-1000000}"
sizes+=" SOAK_LOADS=1000 SOAK_HOTPLUG=100 SOAK_TOGGLES=10000 FUZZ_TIMEOUT=86400 TRINITY_TIMEOUT=86400"
sizes+=" SOAK_CAPTURE_T=7200"
log "make soak: seed $seed"
"$RPMU_TOP/scripts/setup-host.sh"
ksrc=$(readlink -f "$("$RPMU_TOP/scripts/kernel.sh" ppc64le)/source")
"$RPMU_TOP/scripts/kernel.sh" arm64 >/dev/null
export RPMU_GUEST_TIMEOUT=${SOAK_GUEST_TIMEOUT:-172800} RPMU_LOG_BUF=${SOAK_LOG_BUF:-128M}

run() { # guest plan name [env...]
	local g=$1 p=$2 n=$3
	shift 3
	env "$@" "$RPMU_TOP/tools/testing/run-guest.sh" "$g" "$p" "build/soak/$n.log" "$sizes"
	python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" "build/soak/$n.log" "build/soak/$n"
	grep -a -h '^SOAK \|^FUZZ \|^TRINITY ' "build/soak/$n.log" | tr -d '\r' || true
}
(run ppc64le vpa_dtl_fuzz,vpa_dtl_soak,trinity ppc64le-soak) >build/soak/ppc64le.out 2>&1 &
p1=$!
(run arm64 xgene_fuzz,xgene_soak,trinity arm64-soak RPMU_DTSI="$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi") \
	>build/soak/arm64.out 2>&1 &
p2=$!
wait $p1 || true
wait $p2 || true
cat build/soak/ppc64le.out build/soak/arm64.out
# Another kernel (make compat), counted with the rest.
"$RPMU_TOP/scripts/compat.sh" >build/soak/compat.out 2>&1 || true
cat build/soak/compat.out
tail -n 1 build/soak/compat.out | awk '/passed,/ { print $1, $3 }' >build/soak/compat.counts
[ -s build/soak/compat.counts ] || echo "0 1" >build/soak/compat.counts
sum_counts build/soak
log "make soak took $(($(date +%s) - start)) s (seed $seed)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
