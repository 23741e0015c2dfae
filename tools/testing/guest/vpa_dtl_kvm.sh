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

# kvm_capture NAME PERF-RECORD-ARGS...: one capture of dtl_all, checked
# against what KVM published.
kvm_capture() {
	name=$1
	shift
	c0=$(stat_or0 captured) o0=$(stat_or0 lost_overrun) a0=$(stat_or0 lost_aux_full)
	l0=$(dmesg | wc -l)
	insmod $M/dtl_sim.ko rate=0 period_us=100000 adopt=0
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
	timeout 60 /t/dtl_check --label "$name: " --hypervisor --script /tmp/$name.script \
		--dmesg /tmp/$name.dmesg --dispatch-reason time_slice \
		--captured "$captured" --lost-overrun "$overrun" --lost-aux "$aux" >/tmp/$name.check
	ktap_cases </tmp/$name.check
}

# Light load: a shell loop on each CPU sleeping in between.
for c in 0 1; do
	taskset -c $c sh -c 'i=0; while [ $i -lt 400 ]; do i=$((i + 1)); sleep 0.005; done' &
done
kvm_capture kvm_default -- sleep 2
wait
ok "kvm_default: loss below 1% of what KVM published" \
	sh -c "tail -n 1 /tmp/kvm_default.check | awk '{ split(\$1, p, \"=\"); split(\$3, l, \"=\"); exit !(p[2] > 0 && l[2] * 100 < p[2]) }'"

rmmod vpa_dtl
ok "vpa_dtl unloads" test ! -e $D
