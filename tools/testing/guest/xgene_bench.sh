# make bench, X-Gene: the same simulated silicon and the same instrument
# (bench_lib.sh) for whichever driver provides the PMUs: ours (insmod) or
# the upstream C one built into the kernel (XGENE_DRIVER=builtin, an
# RPMU_C_REFERENCE boot). Prints one "BENCH ..." line per run: the time of
# a read() of one event (its pmu->read inside the same syscall path for
# both drivers), and the guest's busy CPU time while `perf stat -a -I 100`
# reads 8 events.
. /t/xgene_lib.sh
. /t/bench_lib.sh
REPS=${BENCH_REPS:-3}
ok "insmod xgene_sim.ko (sessions not logged)" timeout 30 insmod $XGSIM log_sessions=0
if [ "${XGENE_DRIVER:-}" = builtin ]; then
	drv=c sym=xgene_perf_read
else
	drv=ours
	ok "insmod xgene_pmu.ko" timeout 30 insmod $M/xgene_pmu.ko
	sym=$(awk '$4 == "[xgene_pmu]" && $3 ~ /read_callback/ { print $3; exit }' /proc/kallsyms)
fi
ok "the driver's read callback is in kallsyms" awk -v s="$sym" '$3 == s { f = 1 } END { exit !f }' /proc/kallsyms
# Eight events: the first two of each of l3c0, iob0, mcb0 and mc0.
evs=$(for p in l3c0 iob0 mcb0 mc0; do ls $D/$p/events | head -n 2 | sed "s|.*|$p/&/|"; done | tr '\n' ',' | sed 's/,$//')
echo "bench: driver $drv, read callback $sym, events $evs"

for rep in $(seq 1 "$REPS"); do
	b0=$(busy_ticks)
	timeout $PERF_T perf stat -a -I 100 -e "$evs" -- sleep 30 >/tmp/xb.out 2>&1
	rc=$?
	b1=$(busy_ticks)
	echo "BENCH xgene drv=$drv run=stat_$rep secs=30 cpus=$ncpu rc=$rc busy_ticks=$((b1 - b0)) user_hz=100"
done
ok "perf stat -I 100 ran" test "$rc" = 0
# read() of one l3c0 event from its owning CPU, timed in user space: the
# syscall around pmu->read is the same for both drivers.
cpu=$(cat $D/l3c0/cpumask)
cfg=$(sed -n 's/.*config=\(0x[0-9a-f]*\).*/\1/p' $D/l3c0/events/$(ls $D/l3c0/events | head -n 1))
for rep in $(seq 1 "$REPS"); do
	echo "BENCH xgene drv=$drv run=readloop_$rep $(/t/pmu_open read-loop l3c0 "${cfg:-0}" "$cpu" 200000)"
done
