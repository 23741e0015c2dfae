# Helpers for DTL capture scenarios: the simulated hypervisor (dtl_sim.ko)
# writes entries, stock perf records and decodes them, dtl_check compares.
M=/lib/modules/rpmu
D=/sys/bus/event_source/devices/vpa_dtl

stat_or0() { cat "$D/stats/$1" 2>/dev/null || echo 0; }
# The upstream C driver keeps no counters: dtl_check then takes perf's count.
captured_arg() { if [ -e "$D/stats" ]; then echo $(($(stat_or0 captured) - $1)); else echo auto; fi; }

# wait_capturing C0: wait (up to 30 s) until stats/captured has gone past C0,
# that is until a perf session started in the background is capturing.
wait_capturing() {
	i=0
	while [ "$(stat_or0 captured)" -le "$1" ] && [ $i -lt 150 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	sleep 0.3
}

# aux_layout NAME: perf's own dump of the AUX buffers of capture NAME: each
# buffer (what perf record read at once) starts with the header record, and
# no header sits at a buffer's second record, where perf's decoder would stop
# advancing.
aux_layout() {
	nbuf=$(grep -ac "VPA DTL PMU data" /tmp/$1.dump)
	nhdr=$(grep -ac "00000000: boot_tb" /tmp/$1.dump)
	echo "$1: $nbuf AUX buffers, $nhdr start with the header, $(grep -ac ': boot_tb' /tmp/$1.dump) headers"
	ok "$1: every AUX buffer starts with the header record" test "$nbuf" -gt 0 -a "$nbuf" = "$nhdr"
	ok "$1: no header at a buffer's second record" sh -c "! grep -aq '00000030: boot_tb' /tmp/$1.dump"
}

# capture NAME "SIM PARAMS" PERF-RECORD-ARGS...: one scenario; leaves
# /tmp/NAME.script (perf script), /tmp/NAME.check (dtl_check output) and
# returns dtl_check's status. The driver under test is whichever provides
# the vpa_dtl PMU (ours, or the built-in C reference).
capture() {
	name=$1 simargs=$2
	shift 2
	c0=$(stat_or0 captured) o0=$(stat_or0 lost_overrun) a0=$(stat_or0 lost_aux_full)
	l0=$(dmesg | wc -l)
	# shellcheck disable=SC2086 # word-split module parameters
	insmod $M/dtl_sim.ko $simargs || return 1
	# Every step is bounded: a driver that writes a malformed AUX stream can
	# send perf's decoder into a loop.
	# CAPTURE_TRACE_ON/OFF: commands around the recording (make bench's
	# instruments).
	${CAPTURE_TRACE_ON:-:}
	timeout "${CAPTURE_T:-60}" perf record -q -a -o /tmp/$name.data "$@" >/tmp/$name.record 2>&1
	rec=$?
	${CAPTURE_TRACE_OFF:-:}
	rmmod dtl_sim
	dmesg | tail -n +$((l0 + 1)) >/tmp/$name.dmesg
	timeout "${CAPTURE_T:-60}" perf script --ns -i /tmp/$name.data >/tmp/$name.script 2>/tmp/$name.script.err ||
		echo "$name: perf script failed or timed out (status $?)"
	timeout "${CAPTURE_T:-60}" perf report -D -i /tmp/$name.data 2>/dev/null |
		grep -a -E "PERF_RECORD_AUX |VPA DTL PMU data|: boot_tb" >/tmp/$name.dump
	grep -a "PERF_RECORD_AUX " /tmp/$name.dump >/tmp/$name.aux
	echo "$name: perf record exit $rec; AUX records $(wc -l </tmp/$name.aux)," \
		"truncated $(grep -c 'flags: .*T' /tmp/$name.aux), partial $(grep -c 'flags: .*P' /tmp/$name.aux)"
	timeout "${CAPTURE_T:-60}" /t/dtl_check --label "$name: " --script /tmp/$name.script --dmesg /tmp/$name.dmesg \
		--seed "$(echo "$simargs" | sed -n 's/.*seed=\([0-9]*\).*/\1/p')" --clock \
		--captured "$(captured_arg "$c0")" \
		--lost-overrun $(($(stat_or0 lost_overrun) - o0)) \
		--lost-aux $(($(stat_or0 lost_aux_full) - a0)) >/tmp/$name.check
}

# kvm_capture NAME PERF-RECORD-ARGS...: under KVM (RPMU_NESTED=1), one
# capture of dtl_all, checked against what KVM published: dtl_sim with rate=0
# writes nothing, and reports per registration the index KVM published and a
# clock bracket; dtl_check --hypervisor compares. Leaves /tmp/NAME.script and
# /tmp/NAME.check, whose last line is "published=P captured=C lost=L".
# With KVM_SHARED=1 (a kernel with native accounting: the event reads the
# kernel's ring), dtl_sim adopts the kernel's rings before perf starts and
# releases them after it ends, and dtl_check --shared bounds the event's
# entries by what KVM published meanwhile.
kvm_capture() {
	name=$1
	shift
	c0=$(stat_or0 captured) o0=$(stat_or0 lost_overrun) a0=$(stat_or0 lost_aux_full)
	l0=$(dmesg | wc -l)
	shared=
	[ "${KVM_SHARED:-0}" = 1 ] && shared=--shared
	insmod $M/dtl_sim.ko rate=0 period_us=20000 adopt=${KVM_SHARED:-0}
	timeout 120 perf record -q -a -o /tmp/$name.data -e vpa_dtl/dtl_all/ "$@" >/tmp/$name.record 2>&1
	rec=$?
	rmmod dtl_sim
	dmesg | tail -n +$((l0 + 1)) >/tmp/$name.dmesg
	timeout 120 perf script --ns -i /tmp/$name.data >/tmp/$name.script 2>/tmp/$name.script.err
	captured=$(($(stat_or0 captured) - c0))
	overrun=$(($(stat_or0 lost_overrun) - o0))
	aux=$(($(stat_or0 lost_aux_full) - a0))
	echo "$name: perf record exit $rec; captured $captured, lost_overrun $overrun, lost_aux_full $aux"
	grep "dtl_sim: cpu" /tmp/$name.dmesg | sed 's/^/      | /'
	head -n 3 /tmp/$name.script | sed 's/^/      | /'
	sed 's/^/      | /' /tmp/$name.script.err | head -n 5
	# Where KVM entered the guest: the commonest resume symbols.
	grep -a -o '[0-9a-f]\{16\} [^ ]*' /tmp/$name.script | awk '{ print $2 }' | sed 's/+0x[0-9a-f]*$//' |
		sort | uniq -c | sort -rn | head -n 4 | sed 's/^/      | resumed at: /'
	# The AUX records flagged partial (a loss), with their neighbours.
	timeout 60 perf report -D -i /tmp/$name.data 2>/dev/null | grep -a "PERF_RECORD_AUX " >/tmp/$name.aux
	# Each AUX record flagged partial (a loss): its CPU, size, and the time
	# since the previous record of its CPU (the poll interval).
	awk '{ c = $1; t = $2 }
		/flags: .*P/ { n++; if (n <= 8) printf "      | partial: cpu %s, %s bytes, %.2f ms after the previous poll\n", c, $9, (t - last[c]) / 1e6 }
		{ last[c] = t }' /tmp/$name.aux
	# The CPUs with an AUX record flagged partial or truncated (a loss).
	pcpus=$(awk '/flags: .*[PT]/ { print $1 }' /tmp/$name.aux | sort -un | tr '\n' ',')
	timeout 60 /t/dtl_check --label "$name: " --hypervisor $shared --script /tmp/$name.script \
		--dmesg /tmp/$name.dmesg --dispatch-reason time_slice --partial-cpus "${pcpus%,}" --perf-data /tmp/$name.data \
		--captured "$captured" --lost-overrun "$overrun" --lost-aux "$aux" >/tmp/$name.check
	ktap_cases </tmp/$name.check
	# No silent loss: a capture that lost entries has AUX records flagged
	# partial (perf script warns of gaps), one that lost none has none.
	# (Before `ok`, which sets `name`.)
	pub=$(sed -n 's/^published=\([0-9]*\) .*/\1/p' /tmp/$name.check)
	if [ "${pub:-0}" -gt 0 ]; then
		bp=$(((overrun + aux) * 10000 / pub))
		printf '%s: lost %d of %d published (%d.%02d%%)\n' "$name" $((overrun + aux)) "$pub" $((bp / 100)) $((bp % 100))
	fi
	partials=$(grep -c 'flags: .*P' /tmp/$name.aux)
	ok "$name: losses flagged in the AUX stream ($partials partial records, $((overrun + aux)) lost)" \
		test $((overrun + aux > 0)) = $((partials > 0))
}
