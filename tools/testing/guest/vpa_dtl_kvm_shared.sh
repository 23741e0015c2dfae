# Under Linux KVM-HV (run-guest.sh RPMU_NESTED=1, the ppc64le-acct kernel):
# KVM writes this guest's DTL, an entry at each guest entry, into the ring
# native accounting registered at boot. The kernel's own reader (debugfs
# powerpc/dtl) shows KVM's entries; vpa_dtl reads the same ring alongside the
# kernel (Mode::Shared), and each capture is checked against what KVM
# published while dtl_sim (rate=0) had adopted the ring.
. /t/lib.sh
. /t/dtl_lib.sh

ok "the hypervisor is Linux KVM (device tree: linux,kvm)" \
	grep -q "linux,kvm" /proc/device-tree/hypervisor/compatible
# debugfs_read WHEN: the kernel's debugfs DTL reader on each CPU. debugfs
# dtl holds dtl_access_lock from open to release: a known 7.3.4 lockdep
# report, bracketed (lockdep is off afterwards).
debugfs_read() {
	echo "rpmu: known upstream report begin: dtl_access_lock" >/dev/kmsg
	for cpu in 0 1; do
		# The reader gets the entries logged after it opened the file: hold it
		# open for a second (an idle vCPU is entered again at each tick), then
		# read whole 48-byte entries.
		exec 3</sys/kernel/debug/powerpc/dtl/cpu-$cpu
		sleep 1
		timeout 5 dd of=/tmp/dtl$cpu.bin bs=4080 count=1 <&3 2>/dev/null
		exec 3<&-
		n=$(($(wc -c </tmp/dtl$cpu.bin) / 48))
		# Byte 0 of an entry is its dispatch_reason: KVM writes 7 (time_slice).
		reasons=$(od -An -tu1 -w48 -v /tmp/dtl$cpu.bin | awk '{ print $1 }' | sort -u | tr '\n' ' ')
		echo "      | cpu $cpu: $n entries, dispatch_reason values: $reasons"
		od -An -tx1 -w48 -v /tmp/dtl$cpu.bin | head -n 2 | sed 's/^/      | /'
		ok "$1: debugfs dtl cpu $cpu: KVM wrote entries ($n read)" test "$n" -gt 0
		ok "$1: debugfs dtl cpu $cpu: every dispatch_reason is KVM's 7" test "$reasons" = "7 "
	done
	echo "rpmu: known upstream report end" >/dev/kmsg
}
debugfs_read before
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
debugfs_read after
