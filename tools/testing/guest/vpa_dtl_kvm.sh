# vpa_dtl under Linux KVM-HV (run-guest.sh RPMU_NESTED=1, the plain
# ppc64le kernel as L2): KVM, not a simulator, writes the DTL, an entry at
# each guest entry, whatever the enable mask. The driver loads, takes a 64 KiB
# ring (KVM takes up to the rest of the host page; L1 has 64 KiB pages),
# refuses the single kinds (KVM logs none) and captures dtl_all with stock
# perf's default options. dtl_sim with rate=0 writes nothing: its kprobe only
# reports, per registration, the index KVM published before the driver
# deregistered, and a clock bracket for the timestamps.
. /t/lib.sh
. /t/dtl_lib.sh

ok "the hypervisor is Linux KVM (device tree: linux,kvm)" \
	grep -q "linux,kvm" /proc/device-tree/hypervisor/compatible
l0=$(dmesg | wc -l)
ok "vpa_dtl loads in a KVM guest" insmod $M/vpa_dtl.ko
dmesg | tail -n +$((l0 + 1)) | grep vpa_dtl | sed 's/^/      | /'
ok "vpa_dtl: a large ring, dtl_all only" sh -c "dmesg | grep -q 'Large ring, KVM: dtl_all only'"

/t/pmu_open errno-table vpa_dtl kvm >/tmp/errno.out 2>&1
ktap_cases </tmp/errno.out

# load KIND SECONDS: runs on both CPUs for SECONDS in the background.
#   sleepy: a shell loop sleeping 5 ms at a time (a light load);
#   spin:   busy loops (no exits of their own);
#   fork:   fork and exec in a loop (new pages: exits to L1).
load() {
	for c in 0 1; do
		case $1 in
		sleepy) taskset -c $c timeout "$2" sh -c 'while :; do sleep 0.005; done' & ;;
		spin) taskset -c $c timeout "$2" sh -c 'while :; do :; done' & ;;
		fork) taskset -c $c timeout "$2" sh -c 'while :; do /bin/true; done' & ;;
		esac
	done
}

kvm_capture kvm_idle -- sleep 2
for kind in sleepy spin fork; do
	load $kind 3
	kvm_capture kvm_$kind -- sleep 2
	wait
done

# Under KVM a stopped event's ring is deregistered (KVM would keep logging
# into it) and registered again at start: disable/enable cycles.
ok "200 disable/enable cycles of a dtl_all event" /t/pmu_open toggle vpa_dtl 0x7 1 200
ok "no DTL registration failure logged" sh -c "! dmesg | grep -q 'DTL .*registration failed'"

# CPU hotplug in L2 during a capture: CPU 1 goes offline and online twice
# (each time its event is removed, its ring deregistered, and added again).
cat >/tmp/kvm_hp.sh <<'EOS'
for i in 1 2; do
	sleep 0.3
	echo 0 >/sys/devices/system/cpu/cpu1/online || exit 1
	sleep 0.3
	echo 1 >/sys/devices/system/cpu/cpu1/online || exit 1
done
echo "hotplug cycles: $i"
EOS
kvm_capture kvm_hotplug -- sh /tmp/kvm_hp.sh
ok "kvm_hotplug: two offline/online cycles of CPU 1 during the capture" \
	grep -q "hotplug cycles: 2" /tmp/kvm_hotplug.record

# rmmod during a capture is refused; the capture goes on.
perf record -q -a -e vpa_dtl/dtl_all/ -o /tmp/rm.data -- \
	sh -c 'sleep 0.3; rmmod vpa_dtl 2>/dev/null; echo "rmmod status $?"; sleep 0.3' >/tmp/rm.out 2>&1
ok "rmmod refused while a capture runs" grep -q "rmmod status 1" /tmp/rm.out
ok "that capture decodes" sh -c "perf script -i /tmp/rm.data 2>/dev/null | grep -q dispatch_reason"

# The stateful fuzzer, dtl_all only (the other aliases are refused here),
# with CPU hotplug and rmmod/insmod attempts, while KVM writes.
fuzz_run vpa_dtl aux --event dtl_all --hotplug --module vpa_dtl:$M/vpa_dtl.ko
grep -q "^vpa_dtl " /proc/modules || insmod $M/vpa_dtl.ko

# The standard 4 KiB ring (85 entries) under the fork load: the limit the
# large ring removes. Its loss is measured, not bounded.
rmmod vpa_dtl
insmod $M/vpa_dtl.ko ring_kib=4
ok "ring_kib=4: a standard ring" sh -c "dmesg | tail -n 1 | grep -q 'Standard ring, KVM'"
load fork 3
kvm_capture kvm_4k -- sleep 2
wait

rmmod vpa_dtl
ok "vpa_dtl unloads" test ! -e $D
