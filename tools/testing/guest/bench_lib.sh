# The instrument of make bench's guest scripts: a kprobe and a kretprobe
# (tracefs kprobe events) on one driver function. A call's time is from its
# entry event to its return event on the same CPU, in the trace clock: the
# timebase on pseries (ppc-tb, 2 ns at QEMU's 512 MHz), the local clock
# elsewhere (printed in microseconds, so a call's time is exact only on
# average). The probes' own cost falls inside each span, the same for every
# driver measured.
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

# probe_off: stop, and print "calls=N ns=T overrun=O": the calls, their
# summed time, and the trace events lost (a run with any is not counted).
probe_off() {
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/rpmu_bench/enable
	over=$(cat $TR/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	awk -v hz="${tb_hz:-0}" -v over="$over" '
	{
		cpu = ""; ts = ""; ev = ""
		for (i = 1; i < NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) cpu = $i
			else if (cpu != "" && $i ~ /^[0-9]+(\.[0-9]+)?:$/) { ts = substr($i, 1, length($i) - 1); ev = $(i + 1); break }
		}
		if (ev == "") next
		# Seconds with a decimal point, or timebase ticks.
		if (ts ~ /\./) t = ts * 1e9
		else if (hz > 0) t = ts * 1e9 / hz
		else next
		if (ev == "enter:") start[cpu] = t
		else if (ev == "leave:" && (cpu in start)) { sum += t - start[cpu]; n++; delete start[cpu] }
	}
	END { printf "calls=%d ns=%.0f overrun=%d\n", n, sum, over }' $TR/trace
	echo >$TR/kprobe_events
}

# busy_ticks: CPU time spent not idle, all CPUs, in USER_HZ ticks.
busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
