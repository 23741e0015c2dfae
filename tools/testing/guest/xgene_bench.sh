# make bench, X-Gene: the same simulated silicon and the same instrument
# (bench_lib.sh) for whichever driver provides the PMUs: ours (insmod) or
# the upstream C one built into the kernel (XGENE_DRIVER=builtin, an
# RPMU_C_REFERENCE boot). Prints one "BENCH ..." line per run: the time of
# a read() of one event (its pmu->read inside the same syscall path for
# both drivers), and the CPU time of `perf stat -a -I 100` reading 8
# events for 30 s.
. /t/lib.sh
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

# perf stat's CPU time, pinned to the PMUs' owning CPU so that its reads
# stay local (no IPI whose cost would land on another task): wait4's
# rusage, the scheduler's run time, not /proc/stat's 100 Hz samples (which
# gave 1 to 9 ticks for the same run).
cpu=$(cat $D/l3c0/cpumask)
secs=30 ival=100
for rep in $(seq 1 "$REPS"); do
	r=$(timeout $PERF_T /t/pmu_open cputime "$cpu" perf stat -a -I $ival -e "$evs" -o /tmp/xb.out -- sleep $secs)
	rc=${r##*status=}
	echo "BENCH xgene drv=$drv run=stat_$rep secs=$secs interval_ms=$ival cpus=$ncpu rc=$rc $r"
	# Its fixed part (the same events, no interval), and perf's start-up
	# with one software event (perf still loads every PMU to look for the
	# name among their events).
	echo "BENCH xgene drv=$drv run=stat0_$rep $(timeout $PERF_T /t/pmu_open cputime "$cpu" perf stat -a -e "$evs" -o /tmp/xb.out -- sleep 0)"
	echo "BENCH xgene drv=$drv run=swonly_$rep $(timeout $PERF_T /t/pmu_open cputime "$cpu" perf stat -a -e cpu-clock -o /tmp/xb.out -- sleep 0)"
	# The same two start-ups with perf as 7.3.4 ships it (without
	# patches/perf, which compiles a table's Compat expression once per PMU).
	echo "BENCH xgene drv=$drv run=stat0stock_$rep $(timeout $PERF_T /t/pmu_open cputime "$cpu" /t/perf-stock stat -a -e "$evs" -o /tmp/xb.out -- sleep 0)"
	echo "BENCH xgene drv=$drv run=swonlystock_$rep $(timeout $PERF_T /t/pmu_open cputime "$cpu" /t/perf-stock stat -a -e cpu-clock -o /tmp/xb.out -- sleep 0)"
done
ok "perf stat -I 100 ran" test "$rc" = 0
# read() of one l3c0 event from its owning CPU, timed in user space: the
# syscall around pmu->read is the same for both drivers.
cfg=$(sed -n 's/.*config=\(0x[0-9a-f]*\).*/\1/p' $D/l3c0/events/$(ls $D/l3c0/events | head -n 1))
for rep in $(seq 1 "$REPS"); do
	echo "BENCH xgene drv=$drv run=readloop_$rep $(/t/pmu_open read-loop l3c0 "${cfg:-0}" "$cpu" 200000)"
done
