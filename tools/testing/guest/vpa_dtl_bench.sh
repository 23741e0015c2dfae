# make bench, vpa_dtl: the same simulated hypervisor loads and the same
# instrument for whichever driver provides the vpa_dtl PMU: ours (insmod),
# or the upstream C one built into the kernel (an RPMU_C_REFERENCE boot).
# Prints one "BENCH ..." line per run for scripts/bench.sh; the figures are
# computed on the host. The instrument (bench_lib.sh) times the driver's
# hrtimer callback between the kernel's hrtimer tracepoints, and counts the
# CPUs' wakeups (exits from idle) and our deferrable timer's expiries.
. /t/lib.sh
. /t/dtl_lib.sh
. /t/bench_lib.sh
REPS=${BENCH_REPS:-3}
# BENCH_PARTS: which measurements (a comma-separated subset of cost, idle,
# sweep and burst; all by default), for quicker comparisons by hand.
PARTS=,${BENCH_PARTS:-cost,idle,sweep,burst},
part() { case $PARTS in *,$1,*) return 0 ;; *) return 1 ;; esac; }
if [ -d $D ]; then
	drv=c sym=vpa_dtl_hrtimer_handle
else
	drv=ours
	# shellcheck disable=SC2086 # word-split module parameters
	ok "insmod vpa_dtl.ko ${VPA_DTL_ARGS:-}" insmod $M/vpa_dtl.ko ${VPA_DTL_ARGS:-}
	sym=$(awk '$4 == "[vpa_dtl]" && $3 ~ /timer_callback/ && $3 !~ /idle_timer/ { print $3; exit }' /proc/kallsyms)
	isym=$(awk '$4 == "[vpa_dtl]" && $3 ~ /idle_timer_callback/ { print $3; exit }' /proc/kallsyms)
fi
echo "bench: driver $drv, hrtimer callback $sym, $ncpu CPUs"
# BENCH_PROFILE (scripts/bench.sh): the modules' symbols, for the report
# of the instruction profile (tools/testing/insn_profile), and a phase
# mark before each run: a sethostname(2) the profile counts.
phase=0
mark() {
	[ -n "${BENCH_PROFILE:-}" ] || return 0
	phase=$((phase + 1))
	hostname "bench$phase"
	echo "PROFILE_PHASE $phase $1"
}
if [ -n "${BENCH_PROFILE:-}" ]; then
	awk '$4 ~ /^\[/ { print "KALLSYMS " $0 }' /proc/kallsyms
fi
ok "the driver's hrtimer callback is in kallsyms" awk -v s="$sym" '$3 == s { f = 1 } END { exit !f }' /proc/kallsyms

# The instruments, around each recording.
trace_on() {
	hrtimer_on "$sym"
	wakeups_on "${isym:-}"
}
trace_off() { echo 0 >$TR/tracing_on; }

# run NAME "SIM PARAMS" PERF-RECORD-ARGS...: one capture under the
# instruments; prints its BENCH line.
run() {
	name=$1 simargs=$2
	shift 2
	eval "secs=\${$#}" # the "sleep SECONDS" that ends the arguments
	mark "$name"
	CAPTURE_TRACE_ON=trace_on CAPTURE_TRACE_OFF=trace_off capture "$name" "$simargs" "$@" >/dev/null
	t=$(hrtimer_off)
	w=$(wakeups_off)
	res=$(tail -n 1 /tmp/$name.check)
	echo "BENCH vpa_dtl drv=$drv run=$name sim=\"$simargs\" secs=$secs cpus=$ncpu $t $w ${res:-injected=0 captured=0 lost=0}"
}

# reps NAME SEED0 "SIM PARAMS" PERIOD SECONDS: REPS runs NAME_1.., seeds
# SEED0+1..
reps() {
	r_name=$1 r_seed=$2 r_sim=$3 r_period=$4 r_secs=$5
	for r_rep in $(seq 1 "$REPS"); do
		run "${r_name}_$r_rep" "seed=$((r_seed + r_rep)) $r_sim" \
			-e vpa_dtl/dtl_cede/ -c "$r_period" -- sleep "$r_secs"
	done
}

# series PREFIX SEED0 PERIOD SECONDS RATE...: REPS runs at each rate.
series() {
	s_pre=$1 s_seed=$2 s_period=$3 s_secs=$4
	shift 4
	for s_rate in "$@"; do
		reps "${s_pre}_r$s_rate" "$s_seed" "rate=$s_rate" "$s_period" "$s_secs"
	done
}

if part cost; then
	echo
	echo "== cost per captured entry at 1 ms (-c 1000000): rate entries/ms/CPU"
	series cost 70 1000000 1 1 10 50
fi

if part idle; then
	echo
	echo "== wakeups with the event open and no DTL traffic (-c 1000000), and with perf's dummy event"
	# idle NAME EVENT: perf record -a of EVENT for 10 s, without the
	# simulator (whose own timer would wake the CPUs); only the recording
	# is traced.
	idle() {
		mark "$1"
		trace_on
		timeout 60 perf record -q -a -o /tmp/$1.data -e "$2" -c 1000000 -- sleep 10 >/dev/null 2>&1
		t=$(hrtimer_off)
		w=$(wakeups_off)
		echo "BENCH vpa_dtl drv=$drv run=$1 sim=\"\" secs=10 cpus=$ncpu $t $w injected=0 captured=0 lost=0"
	}
	for r_rep in $(seq 1 "$REPS"); do
		idle idle_$r_rep vpa_dtl/dtl_cede/
		# perf record's own wakeups, which the driver's are counted beyond.
		idle idlebase_$r_rep dummy
	done
fi

if part sweep; then
	echo
	echo "== highest rate without loss at 10 ms (-c 10000000)"
	series sweep 90 10000000 0.5 4 8 16 32 48 64
fi

if part burst; then
	echo
	echo "== entries kept per 120-entry overrun burst (-c 1000000)"
	reps burst 60 "rate=0 burst_every=20 burst_len=120" 1000000 1
fi
ok "bench runs completed" test -n "$(ls /tmp/*.check 2>/dev/null)"
