# vpa_dtl capture scenarios against the simulated hypervisor.
. /t/lib.sh
. /t/dtl_lib.sh
insmod $M/vpa_dtl.ko

# Normal: a gentle rate the 1 ms polling keeps up with; nothing may be lost.
capture normal "seed=11 rate=3" -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 1
ktap_cases </tmp/normal.check
ok "normal: nothing lost" grep -q " lost=0$" /tmp/normal.check
aux_layout normal

# All kinds enabled, polled at 100 Hz through frequency mode.
capture all "seed=12 rate=1" -e vpa_dtl/dtl_all/ -F 100 -- sleep 1
ktap_cases </tmp/all.check

# Overload: bursts of 120 entries overrun the 85-entry ring, and a one-page
# AUX area fills; every entry is captured or counted lost, and the AUX
# records say so (PARTIAL for overruns, TRUNCATED when space ran out).
capture overload "seed=13 rate=20 burst_every=5 burst_len=120" -e vpa_dtl/dtl_cede/ -c 1000000 -m 8,1 -- sleep 1
ktap_cases </tmp/overload.check
ok "overload: losses flagged PARTIAL in AUX records" grep -q "flags: .*P" /tmp/overload.aux
ok "overload: the driver reported losses" sh -c '! grep -q " lost=0$" /tmp/overload.check'
aux_layout overload

# Every ring entry is kept: bursts of 120 entries and nothing else, each read
# by one poll, leave 85 entries (the whole ring) and 35 overwritten. The
# module is loaded afresh so that its once-only notices are printed by this
# case and the next if they are due at all.
rmmod vpa_dtl && insmod $M/vpa_dtl.ko
t0=$(stat_or0 lost_torn)
capture burst85 "seed=18 rate=0 burst_every=20 burst_len=120" -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 1
ktap_cases </tmp/burst85.check
b85=$(sed -n 's/.*injected=\([0-9]*\) captured=\([0-9]*\) lost=\([0-9]*\)$/\1 \2 \3/p' /tmp/burst85.check)
set -- $b85
echo "burst85: injected ${1:-?} captured ${2:-?} lost ${3:-?}: kept per 120-entry burst $((${1:-0} > 0 ? ${2:-0} * 120 / ${1:-1} : 0))"
ok "burst85: 85 of every 120-entry burst kept (the whole ring)" \
	test -n "${1:-}" -a "${1:-0}" -gt 0 -a "$((${1:-0} % 120))" = 0 -a "$((${2:-0} * 120))" = "$((${1:-0} * 85))"
ok "burst85: a writer on the logged CPU never tears an entry (lost_torn 0)" test "$(($(stat_or0 lost_torn) - t0))" = 0

# A writer on another CPU (the simulator's remote mode, which PHYP's
# dispatch-time logging rules out): writes race the polls, so slots are
# rewritten while they are copied. A reader can then trust only 84 slots (the
# oldest may be half rewritten, its index not yet published); the driver
# sees the log written while it read it without being preempted and falls
# back to 84. Bursts start after 500 ms of gentle traffic, so that it has
# seen the writer before the ring first fills. That traffic keeps the
# writer busy for about half of each tick (10 entries 30 us apart, each in
# flight, written but not published, for 20 us), and the writer ticks every
# 997 us against the driver's 1 ms polls, so the two meet whenever both
# vCPUs run at once (with 3 entries at once per 1 ms tick, make check runs
# under load saw no write during a poll at all). Every torn entry is counted
# lost and none is decoded: the field-by-field and identity checks hold.
# When the event stops, the writer may be mid-entry (about one time in five
# per CPU): that entry is published after the last poll and must still be
# read, after deregistration, not lost (a make check run under load, with
# the mask read once per tick, missed 9).
t0=$(stat_or0 lost_torn)
capture remote "seed=19 rate=10 remote=1 pace_us=30 publish_delay_us=20 period_us=997 burst_every=10 burst_len=170 burst_from=500" \
	-e vpa_dtl/dtl_all/ -c 1000000 -- sleep 1.5
ktap_cases </tmp/remote.check
# How many entries a write during a copy actually reached depends on timing
# (0 and 92 seen): shown, not asserted. A write during a copy is asserted.
echo "remote: $(($(stat_or0 lost_torn) - t0)) entries torn during a copy (counted in lost_overrun)"
ok "remote: the driver saw the log written during a copy and took 84 slots" grep -q "written while this CPU read it" /tmp/remote.dmesg
ok "burst85: the writer on the logged CPU was never taken for a concurrent one" \
	sh -c '! grep -q "written while this CPU read it" /tmp/burst85.dmesg'

# perf record --switch-output: every output file starts its AUX data with the
# header record, so each decodes on its own with correct timestamps. The
# guest's perf carries the project's fixes to two defects of stock perf 7.3.4
# that show here (patches/perf, Documentation/vpa-dtl.rst): it kept its AUX
# index across a switch, so perf script refused every file after the first,
# and the vpa-dtl decoder's flush did nothing, so entries later than a file's
# last other event were not printed. Asserted: perf script decodes every file
# directly, every entry the driver captured is in the files (perf's own dump)
# and decoded, the identity with the simulator, and every decoded entry right.
for how in signal 300K 1s; do
	rm -f /tmp/sw.data* /tmp/sw.fixed*
	c0=$(stat_or0 captured) o0=$(stat_or0 lost_overrun) a0=$(stat_or0 lost_aux_full) l0=$(dmesg | wc -l)
	insmod $M/dtl_sim.ko seed=20 rate=3
	perf record -q -a -o /tmp/sw.data --switch-output=$how -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 3.5 >/tmp/sw.record 2>&1 &
	rec=$!
	if [ $how = signal ]; then
		for _ in 1 2 3; do sleep 0.8 && kill -USR2 $rec; done
	fi
	wait $rec
	rmmod dtl_sim
	grep -v "^$" /tmp/sw.record | tail -n 3
	dmesg | tail -n +$((l0 + 1)) >/tmp/sw.dmesg
	set --
	n=0 direct=0
	for f in /tmp/sw.data.*; do
		n=$((n + 1))
		timeout 60 perf script --ns -i "$f" >"/tmp/sw.$n.script" 2>/dev/null && [ -s "/tmp/sw.$n.script" ] &&
			direct=$((direct + 1))
		set -- "$@" --script "/tmp/sw.$n.script"
	done
	ok "switch-output=$how: several files" test $n -ge 3
	ok "switch-output=$how: perf script decodes each of the $n files directly ($direct did)" test $direct = $n
	: >/tmp/sw_$how.dump
	for f in /tmp/sw.data.[0-9]*[0-9]; do
		timeout 60 perf report -D -i "$f" 2>/dev/null | grep -a -E "VPA DTL PMU data|: boot_tb" >>/tmp/sw_$how.dump
	done
	aux_layout sw_$how
	records=$(sed -n 's/.*entries is \([0-9]*\)$/\1/p' /tmp/sw_$how.dump | awk '{ s += $1 } END { print s + 0 }')
	in_files=$((records - $(grep -ac ': boot_tb' /tmp/sw_$how.dump)))
	cap=$(($(stat_or0 captured) - c0)) lost=$(($(stat_or0 lost_overrun) - o0 + $(stat_or0 lost_aux_full) - a0))
	timeout 60 /t/dtl_check --label "switch-output=$how: " "$@" --dmesg /tmp/sw.dmesg --seed 20 --clock \
		--captured $cap --lost-overrun 0 --lost-aux $lost >/tmp/sw.check
	ktap_cases </tmp/sw.check
	inj=$(sed -n 's/.*injected=\([0-9]*\) captured=\([0-9]*\).*/\1/p' /tmp/sw.check)
	dec=$(sed -n 's/.*injected=\([0-9]*\) captured=\([0-9]*\).*/\2/p' /tmp/sw.check)
	echo "switch-output=$how: injected ${inj:-?}, captured $cap, lost $lost, in the files $in_files, decoded by perf ${dec:-?}"
	ok "switch-output=$how: every captured entry is in the files" test "$in_files" = "$cap"
	ok "switch-output=$how: injected = captured + reported lost" test "${inj:-x}" = "$((cap + lost))"
done

# Next to tracepoints: the simulator writes each entry from an hrtimer
# callback on the entry's CPU, stamping it with the timebase at that moment,
# so in perf script's time order every DTL sample must fall between an
# hrtimer_expire_entry and the following hrtimer_expire_exit on its CPU.
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
T=/sys/kernel/tracing/events/timer
if [ -r $T/hrtimer_expire_entry/id ]; then
	te=tracepoint/config=$(cat $T/hrtimer_expire_entry/id),period=1/
	tx=tracepoint/config=$(cat $T/hrtimer_expire_exit/id),period=1/
	insmod $M/dtl_sim.ko seed=21 rate=2
	timeout 60 perf record -q -a -o /tmp/tp.data -e vpa_dtl/dtl_all/ -c 1000000 -e "$te" -e "$tx" -- sleep 1 >/dev/null 2>&1
	rmmod dtl_sim
	# Judged only between each CPU's first and last tracepoint: perf enables
	# and disables the events one at a time.
	timeout 60 perf script --ns -i /tmp/tp.data >/tmp/tp.script 2>/dev/null
	awk -v E="$te:" -v X="$tx:" '
		function cpu_of(l) { return match(l, /\[[0-9]+\]/) ? substr(l, RSTART + 1, RLENGTH - 2) : "" }
		function time_of(l) { return match(l, /\] +[0-9]+\.[0-9]+:/) ? substr(l, RSTART + 1, RLENGTH - 2) + 0 : 0 }
		NR == FNR { if (index($0, E) || index($0, X)) { c = cpu_of($0); t = time_of($0)
				if (!(c in first)) first[c] = t; last[c] = t }; next }
		{ c = cpu_of($0) }
		/vpa-dtl:/ { t = time_of($0); if (!(c in first) || t < first[c] || t > last[c]) { skipped++; next }
			n++; if (state[c] != "in") { bad++; if (bad < 4) print "outside a timer callback: " $0 }; next }
		index($0, E) { state[c] = "in"; next }
		index($0, X) { state[c] = "out" }
		END { printf "tracepoints: %d DTL samples, %d outside their timer callback (%d at the edges not judged)\n", n, bad, skipped }' \
		/tmp/tp.script /tmp/tp.script >/tmp/tp.out
	cat /tmp/tp.out
	ok "next to hrtimer tracepoints: every DTL sample inside its writer's callback" \
		grep -q "tracepoints: [1-9][0-9]* DTL samples, 0 outside" /tmp/tp.out
fi

# Disable/enable toggles through perf's control fifo: each enable registers
# the buffer again (del -> add); the same AUX session continues.
rm -f /tmp/ctl /tmp/ack
mkfifo /tmp/ctl /tmp/ack
(
	sleep 0.4
	for _ in 1 2 3; do
		echo disable >/tmp/ctl && read -r _ </tmp/ack
		sleep 0.15
		echo enable >/tmp/ctl && read -r _ </tmp/ack
		sleep 0.15
	done
) &
capture toggle "seed=14 rate=3" -e vpa_dtl/dtl_cede/ -c 1000000 --control=fifo:/tmp/ctl,/tmp/ack -- sleep 2
wait
ktap_cases </tmp/toggle.check
ok "toggle: one simulator session per enable" test "$(grep -c 'session:' /tmp/toggle.dmesg)" -ge 8

# Timer modes: 15 entries/ms against an 8 ms period is 120 entries per poll,
# more than the ring holds. The fixed period (adaptive=0) loses about a
# third; the adaptive mode (the default) starts at its shortest period and
# polls when about half a ring has arrived, so it loses nothing.
rmmod vpa_dtl && insmod $M/vpa_dtl.ko adaptive=0
capture fixed8 "seed=15 rate=15" -e vpa_dtl/dtl_cede/ -c 8000000 -- sleep 1
ktap_cases </tmp/fixed8.check
rmmod vpa_dtl && insmod $M/vpa_dtl.ko
capture adaptive8 "seed=15 rate=15" -e vpa_dtl/dtl_cede/ -c 8000000 -- sleep 1
ktap_cases </tmp/adaptive8.check
lost_of() { sed -n 's/.* lost=\([0-9]*\)$/\1/p' "$1"; }
echo "lost with a fixed 8 ms period: $(lost_of /tmp/fixed8.check); adaptive: $(lost_of /tmp/adaptive8.check)"
ok "fixed 8 ms period overruns at 15 entries/ms" test "$(lost_of /tmp/fixed8.check)" -gt 1000
ok "adaptive mode loses under a tenth of that" test $(($(lost_of /tmp/adaptive8.check) * 10)) -lt "$(lost_of /tmp/fixed8.check)"

# Snapshot (overwrite) mode -- an AUX area mapped read-only -- is refused,
# with a reason in the log; a writable mapping is accepted.
ok "AUX area mapped writable: accepted" /t/pmu_open aux vpa_dtl 0x1 0 rw
ok "AUX area mapped read-only (snapshot): refused" sh -c '! /t/pmu_open aux vpa_dtl 0x1 0 ro'
ok "snapshot refusal not logged (refusals are quiet)" sh -c '! dmesg | grep -q "snapshot"'

# PERF_EVENT_IOC_PERIOD on a running event: the next poll uses the new
# period. Shown with the fixed period (adaptive=0), where a 100 ms period
# must overrun the ring at 3 entries/ms; the adaptive mode would keep up.
rmmod vpa_dtl && insmod $M/vpa_dtl.ko adaptive=0
insmod $M/dtl_sim.ko rate=3 seed=17
/t/pmu_edge period vpa_dtl 0x1 1 >/tmp/period.out 2>&1
rmmod dtl_sim
ktap_cases </tmp/period.out
rmmod vpa_dtl && insmod $M/vpa_dtl.ko

# CPU hotplug: offlining the event's CPU makes perf remove the event (del:
# logging off, buffer deregistered, timer cancelled on that CPU); every entry
# written until then is accounted for (no AUX area here: all counted lost).
a0=$(stat_or0 lost_aux_full) c0=$(stat_or0 captured) l0=$(dmesg | wc -l)
insmod $M/dtl_sim.ko rate=3 seed=16
/t/pmu_open hold vpa_dtl 0x7 1 3 >/tmp/hp.out 2>&1 &
holder=$!
sleep 1
ok "offline the event's CPU" sh -c 'echo 0 >/sys/devices/system/cpu/cpu1/online'
sleep 0.3
ok "online it again" sh -c 'echo 1 >/sys/devices/system/cpu/cpu1/online'
wait $holder
rmmod dtl_sim
hp_injected=$(dmesg | tail -n +$((l0 + 1)) | sed -n 's/.*dtl_sim: cpu 1 session: injected \([0-9]*\).*/\1/p' | head -n 1)
echo "hotplug: injected ${hp_injected:-none}, lost $(($(stat_or0 lost_aux_full) - a0)), captured $(($(stat_or0 captured) - c0))"
ok "hotplug: the CPU's session ended at offline and was accounted for" \
	test "${hp_injected:-0}" -gt 0 -a "$(($(stat_or0 lost_aux_full) - a0))" = "${hp_injected:-x}"

# Raw disable/enable without an AUX area, 200 times on one event.
ok "200 IOC_DISABLE/ENABLE toggles without AUX" /t/pmu_open toggle vpa_dtl 0x7 1 200
rmmod vpa_dtl
