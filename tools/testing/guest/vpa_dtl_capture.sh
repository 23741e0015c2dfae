# vpa_dtl capture scenarios against the simulated hypervisor.
. /t/dtl_lib.sh
insmod $M/vpa_dtl.ko

# Normal: a gentle rate the 1 ms polling keeps up with; nothing may be lost.
capture normal "seed=11 rate=3" -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 1
ktap_cases </tmp/normal.check
ok "normal: nothing lost" grep -q " lost=0$" /tmp/normal.check

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
# more than the ring holds. The fixed period loses about a third; the
# adaptive mode halves the period while polls find half a ring or more, so
# it loses only until it has caught up.
capture fixed8 "seed=15 rate=15" -e vpa_dtl/dtl_cede/ -c 8000000 -- sleep 1
ktap_cases </tmp/fixed8.check
rmmod vpa_dtl && insmod $M/vpa_dtl.ko adaptive=1
capture adaptive8 "seed=15 rate=15" -e vpa_dtl/dtl_cede/ -c 8000000 -- sleep 1
ktap_cases </tmp/adaptive8.check
rmmod vpa_dtl && insmod $M/vpa_dtl.ko
lost_of() { sed -n 's/.* lost=\([0-9]*\)$/\1/p' "$1"; }
echo "lost with a fixed 8 ms period: $(lost_of /tmp/fixed8.check); adaptive: $(lost_of /tmp/adaptive8.check)"
ok "fixed 8 ms period overruns at 15 entries/ms" test "$(lost_of /tmp/fixed8.check)" -gt 1000
ok "adaptive mode loses under a tenth of that" test $(($(lost_of /tmp/adaptive8.check) * 10)) -lt "$(lost_of /tmp/fixed8.check)"

# Snapshot (overwrite) mode -- an AUX area mapped read-only -- is refused,
# with a reason in the log; a writable mapping is accepted.
ok "AUX area mapped writable: accepted" /t/pmu_open aux vpa_dtl 0x1 0 rw
ok "AUX area mapped read-only (snapshot): refused" sh -c '! /t/pmu_open aux vpa_dtl 0x1 0 ro'
ok "snapshot refusal not logged (refusals are quiet)" sh -c '! dmesg | grep -q "snapshot"'

# PERF_EVENT_IOC_PERIOD on a running event: the next poll uses the new period.
insmod $M/dtl_sim.ko rate=3 seed=17
/t/pmu_edge period vpa_dtl 0x1 1 >/tmp/period.out 2>&1
rmmod dtl_sim
ktap_cases </tmp/period.out

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
