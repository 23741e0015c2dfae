# The instruments of make bench's guest scripts, which run under QEMU's
# -icount (one guest instruction is one nanosecond of guest time, so a time
# is a count of instructions, the same on every run and every host):
#   - hrtimer_on/hrtimer_off: a driver's hrtimer callback, between the
#     kernel's static tracepoints timer:hrtimer_expire_entry (filtered on
#     the callback's address) and timer:hrtimer_expire_exit. The tracepoints
#     cost the same whichever driver's callback they bracket.
#   - probe_on/probe_off: a kprobe and a kretprobe (tracefs kprobe events)
#     on any function. Their cost falls inside each span and differs from
#     one probed function to another (under -icount, 1,750 instructions on
#     hrtimer_forward, more than the C driver's whole probed callback): not
#     comparable between two drivers' functions.
#   - wakeups_on/wakeups_off: CPU wakeups, the exits from idle
#     (power:cpu_idle with the exit state), and the expiries of one
#     timer_list callback (timer:timer_expire_entry), in the same trace as
#     an hrtimer_on instrument: call wakeups_on after it, wakeups_off after
#     hrtimer_off.
# A span is from its entry event to its exit event on the same CPU, in the
# trace clock: the timebase on pseries (ppc-tb), the local clock elsewhere.
TR=/sys/kernel/tracing
mount -t tracefs tracefs $TR 2>/dev/null
ncpu=$(grep -c '^processor' /proc/cpuinfo)
tb_hz=$(awk '/^timebase/ { print $3; exit }' /proc/cpuinfo)
clock=local
[ -n "$tb_hz" ] && clock=ppc-tb

# probe_on SYMBOL: start timing SYMBOL.
probe_on() {
	echo 0 >$TR/tracing_on
	echo >$TR/kprobe_events
	echo "p:rpmu_bench/enter $1" >$TR/kprobe_events
	echo "r:rpmu_bench/leave $1" >>$TR/kprobe_events
	echo $clock >$TR/trace_clock
	echo 16384 >$TR/buffer_size_kb
	echo >$TR/trace
	echo 1 >$TR/events/rpmu_bench/enable
	echo 1 >$TR/tracing_on
}

# hrtimer_on SYMBOL: start timing the hrtimer callback SYMBOL.
hrtimer_on() {
	addr=$(awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms)
	echo 0 >$TR/tracing_on
	echo $clock >$TR/trace_clock
	echo 16384 >$TR/buffer_size_kb
	echo >$TR/trace
	echo "function == 0x$addr" >$TR/events/timer/hrtimer_expire_entry/filter
	echo 1 >$TR/events/timer/hrtimer_expire_entry/enable
	echo 1 >$TR/events/timer/hrtimer_expire_exit/enable
	echo 1 >$TR/tracing_on
}

# hrtimer_off: as probe_off, for hrtimer_on.
hrtimer_off() {
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/timer/hrtimer_expire_entry/enable
	echo 0 >$TR/events/timer/hrtimer_expire_exit/enable
	echo 0 >$TR/events/timer/hrtimer_expire_entry/filter
	spans hrtimer_expire_entry: hrtimer_expire_exit:
}

# probe_off: stop, and print "calls=N ns=T overrun=O": the calls, their
# summed time, and the trace events lost (a run with any is not counted).
probe_off() {
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/rpmu_bench/enable
	spans enter: leave:
	echo >$TR/kprobe_events
}

# spans ENTER EXIT: "calls=N ns=T overrun=O" from the trace: each ENTER
# event paired with the next EXIT event on its CPU (of the same hrtimer,
# for the timer events).
spans() {
	over=$(cat $TR/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	awk -v hz="${tb_hz:-0}" -v over="$over" -v enter="$1" -v leave="$2" '
	{
		cpu = ""; ts = ""; ev = ""; tm = ""
		for (i = 1; i < NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) cpu = $i
			else if (cpu != "" && $i ~ /^[0-9]+(\.[0-9]+)?:$/) { ts = substr($i, 1, length($i) - 1); ev = $(i + 1); break }
		}
		if (ev == "") next
		for (i = 1; i <= NF; i++) if ($i ~ /^hrtimer=/) tm = $i
		# Seconds with a decimal point, or timebase ticks.
		if (ts ~ /\./) t = ts * 1e9
		else if (hz > 0) t = ts * 1e9 / hz
		else next
		if (ev == enter) { start[cpu] = t; timer[cpu] = tm }
		else if (ev == leave && (cpu in start) && timer[cpu] == tm) { sum += t - start[cpu]; n++; delete start[cpu] }
	}
	END { printf "calls=%d ns=%.0f overrun=%d\n", n, sum, over }' $TR/trace
}

# wakeups_on [SYMBOL]: also count idle exits, and the expiries of the
# timer_list callback SYMBOL (if given).
wakeups_on() {
	echo 'state == 4294967295' >$TR/events/power/cpu_idle/filter
	echo 1 >$TR/events/power/cpu_idle/enable
	w_addr=$(awk -v s="${1:-}" 's != "" && $3 == s { print $1; exit }' /proc/kallsyms)
	if [ -n "$w_addr" ]; then
		echo "function == 0x$w_addr" >$TR/events/timer/timer_expire_entry/filter
		echo 1 >$TR/events/timer/timer_expire_entry/enable
	fi
}

# wakeups_off: "wakeups=N deferred=D" from the trace hrtimer_off stopped.
wakeups_off() {
	echo 0 >$TR/events/power/cpu_idle/enable
	echo 0 >$TR/events/power/cpu_idle/filter
	echo 0 >$TR/events/timer/timer_expire_entry/enable
	echo 0 >$TR/events/timer/timer_expire_entry/filter
	echo "wakeups=$(grep -c ' cpu_idle: ' $TR/trace) deferred=$(grep -c ' timer_expire_entry: ' $TR/trace)"
}
