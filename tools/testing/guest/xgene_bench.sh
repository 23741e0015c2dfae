# make bench, X-Gene: the same simulated silicon and the same instrument
# (bench_lib.sh) for whichever driver provides the PMUs: ours (insmod) or
# the upstream C one built into the kernel (XGENE_DRIVER=builtin, an
# RPMU_C_REFERENCE boot). Prints one "BENCH ..." line per run: the time of
# each pmu->read call, and the guest's busy CPU time while `perf stat -a
# -I 100` reads 8 events.
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
	probe_on "$sym"
	timeout $PERF_T perf stat -a -I 100 -e "$evs" -- sleep 3 >/tmp/xb.out 2>&1
	rc=$?
	t=$(probe_off)
	b1=$(busy_ticks)
	echo "BENCH xgene drv=$drv run=stat_$rep secs=3 cpus=$ncpu rc=$rc $t busy_ticks=$((b1 - b0)) user_hz=100"
done
ok "perf stat -I 100 ran" test "$rc" = 0
