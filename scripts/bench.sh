#!/usr/bin/env bash
# `make bench`: our drivers' cost next to the upstream C drivers', in one
# run, under the same simulated loads and with the same instrument (see the
# guest scripts tools/testing/guest/*_bench.sh). The guests boot a kernel
# without the detectors (tools/testing/configs/bench.config). Results in
# build/bench/: the guest logs, summary.txt and bench.svg.
#   BENCH_REPS (default 3): runs per figure; each figure is their median.
#   BENCH_OURS_ARGS: module parameters for our vpa_dtl (e.g. adaptive=1).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
start=$(date +%s)
out=build/bench
mkdir -p "$out"
rm -rf "$out"/*.log "$out"/*.prof "$out/smp8"
"$RPMU_TOP/scripts/setup-host.sh"
if ! command -v gnuplot >/dev/null; then
	log "installing gnuplot-nox (the chart)"
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	retry 3 $SUDO apt-get install -y -q --no-install-recommends gnuplot-nox >/dev/null
fi
reps=${BENCH_REPS:-3}
# BENCH_PARTS (vpa_dtl: a subset of cost,idle,sweep,burst) is passed on.
guest_env="RPMU_BENCH=1 BENCH_REPS=$reps${BENCH_PARTS:+ BENCH_PARTS=$BENCH_PARTS}"
# Guest time counts guest instructions (one per nanosecond; idle time is
# skipped): every figure is a deterministic instruction count, free of the
# host's load and of TCG's translation and TLB costs.
export RPMU_QEMU_ARGS=${BENCH_QEMU_ARGS:--icount shift=0,sleep=off}

kp=$("$RPMU_TOP/scripts/kernel.sh" ppc64le-bench)
guest_arch ppc64le
# The drivers' own instructions, besides the tracepoint instrument's
# figures: a QEMU plugin counts the guest instructions between the indirect
# call of __hrtimer_run_queues() that runs each hrtimer callback and its
# return (tools/testing/insn_profile), per run (the guest's sethostname(2)
# marks). The vmlinux addresses come from the bench kernel.
cargo "+$RUST_TOOLCHAIN" build --quiet --release -p insn-profile
plugin=$RPMU_TOP/target/release/libinsn_profile.so
addr() { awk -v s="$1" '$3 == s { print $1; exit }' "$kp/System.map"; }
from=$(addr __hrtimer_run_queues)
# (The awk programs read all their input: an early exit would end the
# pipeline with SIGPIPE.)
to=$(sort "$kp/System.map" | awk -v s="$from" '$1 > s && !f { print $1; f = 1 }')
read -r call ret < <(timeout 60 "${cross}objdump" -d --no-show-raw-insn \
	--start-address="0x$from" --stop-address="0x$to" "$kp/vmlinux" |
	awk '/\tbctrl/ && !f { c = $1; getline; print substr(c, 1, length(c) - 1), substr($1, 1, length($1) - 1); f = 1 }')
profile() { echo "$RPMU_QEMU_ARGS -plugin $plugin,call=$call,ret=$ret,mark=$(addr sys_sethostname),out=$1"; }
guest_env_prof="$guest_env BENCH_PROFILE=1"
RPMU_KDIR=$kp RPMU_GUEST_TIMEOUT=3600 RPMU_QEMU_ARGS=$(profile "$out/vpa_dtl-ours.prof") \
	"$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_bench \
	"$out/vpa_dtl-ours.log" "$guest_env_prof VPA_DTL_ARGS=${BENCH_OURS_ARGS:-}"
RPMU_KDIR=$kp RPMU_GUEST_TIMEOUT=3600 RPMU_C_REFERENCE=1 RPMU_QEMU_ARGS=$(profile "$out/vpa_dtl-c.prof") \
	"$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_bench "$out/vpa_dtl-c.log" "$guest_env_prof"
# Our cost runs once more on 8 vCPUs: a poll's own instructions must not
# grow with the number of CPUs (nothing on the poll path is written by two
# CPUs). Its lines are renamed drv=ours8 for bench.py.
mkdir -p "$out/smp8"
RPMU_KDIR=$kp RPMU_GUEST_TIMEOUT=3600 RPMU_QEMU_ARGS="$(profile "$out/smp8/vpa_dtl-ours.prof") -smp 8" \
	"$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_bench "$out/smp8/vpa_dtl-ours.log" \
	"RPMU_BENCH=1 BENCH_REPS=1 BENCH_PARTS=cost BENCH_PROFILE=1 VPA_DTL_ARGS=${BENCH_OURS_ARGS:-}"
for run in vpa_dtl-ours vpa_dtl-c smp8/vpa_dtl-ours; do
	drv=${run#*-}
	[ "$run" = "${run#smp8/}" ] || drv=ours8
	cb=$(sed -n 's/^bench: driver [a-z]*, hrtimer callback \([^,]*\),.*/\1/p' "$out/$run.log" | head -n 1)
	python3 "$RPMU_TOP/tools/testing/insn_profile/report.py" --summary --drv "$drv" --callback "$cb" \
		"$out/$run.prof" "$kp/System.map" "$out/$run.log" >"$out/${run/\//-}-own.log"
done
sed -n 's/^BENCH vpa_dtl drv=ours /BENCH vpa_dtl drv=ours8 /p' "$out/smp8/vpa_dtl-ours.log" >"$out/vpa_dtl-ours8.log"

ka=$("$RPMU_TOP/scripts/kernel.sh" arm64-bench)
v2=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi
RPMU_KDIR=$ka RPMU_DTSI=$v2 RPMU_GUEST_TIMEOUT=1800 "$RPMU_TOP/tools/testing/run-guest.sh" arm64 xgene_bench \
	"$out/xgene-ours.log" "$guest_env"
RPMU_KDIR=$ka RPMU_DTSI=$v2 RPMU_GUEST_TIMEOUT=1800 RPMU_C_REFERENCE=1 "$RPMU_TOP/tools/testing/run-guest.sh" arm64 \
	xgene_bench "$out/xgene-c.log" "$guest_env"

log "make bench: guests done in $(($(date +%s) - start)) s"
python3 "$RPMU_TOP/scripts/bench.py" --out "$out" "$out"/*.log | tee "$out/summary.txt"
log "make bench took $(($(date +%s) - start)) s; chart: $out/bench.svg"
