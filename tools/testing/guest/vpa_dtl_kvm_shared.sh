# Under Linux KVM-HV (run-guest.sh RPMU_NESTED=1, the ppc64le-acct kernel):
# KVM writes this guest's DTL, an entry at each guest entry, into the ring
# native accounting registered at boot. vpa_dtl reads the same ring alongside
# the kernel (Mode::Shared), and each capture is checked against what KVM
# published while dtl_sim (rate=0) had adopted the ring.
. /t/lib.sh
. /t/dtl_lib.sh

ok "the hypervisor is Linux KVM (device tree: linux,kvm)" \
	grep -q "linux,kvm" /proc/device-tree/hypervisor/compatible
# still_logged WHEN: the kernel's ring of each CPU is registered and written
# by KVM: dtl_sim (rate=0) adopts it for half a second and reports what KVM
# published. (The kernel's debugfs reader would show it too, but holding
# its file open gives 7.3.4's dtl_access_lock lockdep report.)
still_logged() {
	l0=$(dmesg | wc -l)
	insmod $M/dtl_sim.ko rate=0 period_us=20000 adopt=1
	sleep 0.5
	rmmod dtl_sim
	for cpu in 0 1; do
		n=$(dmesg | tail -n +$((l0 + 1)) |
			sed -n "s/.*dtl_sim: cpu $cpu session: .* published \([0-9]*\) .*/\1/p" | tail -n 1)
		ok "$1: the kernel's ring of cpu $cpu is registered and KVM writes it (${n:-no} entries in 0.5 s)" \
			test "${n:-0}" -gt 0
	done
}
still_logged before
insmod $M/vpa_dtl.ko
for kind in idle fork; do
	if [ $kind = fork ]; then
		for c in 0 1; do
			taskset -c $c timeout 3 sh -c 'while :; do /bin/true; done' &
		done
	fi
	KVM_SHARED=1 kvm_capture shared_$kind -- sleep 2
	wait
done
rmmod vpa_dtl
ok "vpa_dtl unloads" test ! -e $D
# A shared ring stays the kernel's: still registered, still written.
still_logged after
