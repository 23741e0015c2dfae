# Soak cases for vpa_dtl, sized from the kernel command line (make check
# runs the CI size, make soak the full size):
#   SOAK_LOADS    insmod/open/close/rmmod cycles, kmemleak-checked (20; 1000)
#   SOAK_HOTPLUG  offline/online cycles of CPU 1 during a capture  (10; 100)
#   SOAK_TOGGLES  disable/enable toggles during a capture         (500; 10000)
# Each capture ends with dtl_check: injected = captured + reported lost,
# exactly, with the simulator writing throughout.
. /t/lib.sh
. /t/dtl_lib.sh
loads=${SOAK_LOADS:-20} hp=${SOAK_HOTPLUG:-10} tog=${SOAK_TOGGLES:-500}
CAPTURE_T=${SOAK_CAPTURE_T:-600}

cycle() {
	insmod $M/vpa_dtl.ko && /t/pmu_open hold vpa_dtl 0x7 0 0 >/dev/null && rmmod vpa_dtl
}
t0=$(date +%s)
leak_cycles "$loads" insmod/open/close/rmmod
echo "SOAK vpa_dtl loads=$loads seconds=$(($(date +%s) - t0))"

insmod $M/vpa_dtl.ko
# CPU 1 goes offline and online again $hp times while perf records every CPU.
cat >/tmp/hotplug.sh <<EOS
i=0
while [ \$i -lt $hp ]; do
	echo 0 >/sys/devices/system/cpu/cpu1/online || exit 1
	sleep 0.05
	echo 1 >/sys/devices/system/cpu/cpu1/online || exit 1
	sleep 0.05
	i=\$((i + 1))
done
echo "hotplug cycles: \$i"
EOS
t0=$(date +%s)
capture soakhp "seed=31 rate=3" -e vpa_dtl/dtl_cede/ -c 1000000 -- sh /tmp/hotplug.sh
ktap_cases </tmp/soakhp.check
ok "hotplug soak: $hp offline/online cycles of CPU 1 during the capture" grep -q "hotplug cycles: $hp" /tmp/soakhp.record
echo "SOAK vpa_dtl hotplug=$hp seconds=$(($(date +%s) - t0)) $(tail -n 1 /tmp/soakhp.check)"

# $tog disable/enable pairs through perf's control fifo, back to back; the
# workload is the toggler itself, so the capture lasts as long as they do.
rm -f /tmp/ctl /tmp/ack
mkfifo /tmp/ctl /tmp/ack
cat >/tmp/toggle.sh <<EOS
i=0
while [ \$i -lt $tog ]; do
	echo disable >/tmp/ctl && read -r _ </tmp/ack
	echo enable >/tmp/ctl && read -r _ </tmp/ack
	i=\$((i + 1))
done
echo "toggles: \$i"
EOS
t0=$(date +%s)
capture soaktog "seed=32 rate=3" -e vpa_dtl/dtl_cede/ -c 1000000 --control=fifo:/tmp/ctl,/tmp/ack -- sh /tmp/toggle.sh
ktap_cases </tmp/soaktog.check
ok "toggle soak: $tog disable/enable toggles during the capture" grep -q "toggles: $tog" /tmp/soaktog.record
echo "SOAK vpa_dtl toggles=$tog seconds=$(($(date +%s) - t0)) $(tail -n 1 /tmp/soaktog.check)"
rmmod vpa_dtl
