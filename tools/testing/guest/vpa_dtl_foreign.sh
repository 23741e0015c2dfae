# Other DTL users of a kernel without native accounting: vcpudispatch_stats
# registers a buffer of its own on every CPU. While it is on, vpa_dtl refuses
# the CPU's log (EBUSY); when it starts in the middle of a session, the event
# stops reading, never emits a stale slot of its own buffer, flags the gap and
# counts what is logged for the other user as lost.
# vcpudispatch_stats holds dtl_access_lock from one write(2) to another, which
# lockdep reports on return to user space (a known 7.3.4 defect, bracketed
# for report.py), and lockdep is off afterwards: this suite runs last.
. /t/lib.sh
. /t/dtl_lib.sh
insmod $M/vpa_dtl.ko
V=/proc/powerpc/vcpudispatch_stats

if [ -w $V ]; then
	echo "rpmu: known upstream report begin: dtl_access_lock" >/dev/kmsg
	echo 1 >$V
	/t/pmu_open hold vpa_dtl 0x7 1 0 >/tmp/busy.out 2>&1
	ok "vcpudispatch_stats on: the event is refused with EBUSY" grep -q "Device or resource busy" /tmp/busy.out
	ok "the refusal is not logged" sh -c '! dmesg | grep -q "in use by another kernel user"'
	echo 0 >$V
	ok "vcpudispatch_stats off: the event opens" /t/pmu_open hold vpa_dtl 0x7 1 0

	# Taken over mid-session: on at 1 s, off at 2 s, perf records 3 s.
	c0=$(stat_or0 captured) o0=$(stat_or0 lost_overrun) a0=$(stat_or0 lost_aux_full)
	f0=$(stat_or0 lost_foreign) d0=$(stat_or0 displaced) l0=$(dmesg | wc -l)
	insmod $M/dtl_sim.ko seed=41 rate=3
	timeout 60 perf record -q -a -o /tmp/foreign.data -e vpa_dtl/dtl_all/ -c 1000000 -- sleep 3 &
	rec=$!
	wait_capturing "$c0"
	echo 1 >$V
	sleep 1
	echo 0 >$V
	wait $rec
	rmmod dtl_sim
	dmesg | tail -n +$((l0 + 1)) >/tmp/foreign.dmesg
	timeout 60 perf script --ns -i /tmp/foreign.data >/tmp/foreign.script 2>/dev/null
	timeout 60 perf report -D -i /tmp/foreign.data 2>/dev/null | grep -a "PERF_RECORD_AUX " >/tmp/foreign.aux
	timeout 60 /t/dtl_check --label "foreign: " --script /tmp/foreign.script --dmesg /tmp/foreign.dmesg \
		--seed 41 --clock --captured $(($(stat_or0 captured) - c0)) \
		--lost-overrun $(($(stat_or0 lost_overrun) - o0)) \
		--lost-aux $(($(stat_or0 lost_aux_full) - a0)) >/tmp/foreign.check
	# The identity cannot hold exactly: what our ring held between the last
	# poll and the other user's registration is gone with the old index. The
	# other checks must hold.
	grep -v "injected = captured\|missing entries are exactly" /tmp/foreign.check >/tmp/foreign.asserted
	ktap_cases </tmp/foreign.asserted
	lf=$(($(stat_or0 lost_foreign) - f0))
	echo "foreign: displaced $(($(stat_or0 displaced) - d0)) times, lost to the other user $lf"
	ok "foreign: the takeover was detected on both CPUs" test $(($(stat_or0 displaced) - d0)) -ge 2
	ok "foreign: entries logged for the other user counted lost" test "$lf" -gt 0
	ok "foreign: the gap is flagged PARTIAL in the AUX stream" grep -q "flags: .*P" /tmp/foreign.aux
	ok "after the takeover a new session captures again" /t/pmu_open hold vpa_dtl 0x7 1 0
	echo "rpmu: known upstream report end" >/dev/kmsg
else
	echo "no $V: skipped"
fi
rmmod vpa_dtl
