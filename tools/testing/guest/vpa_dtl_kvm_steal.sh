# vpa_dtl under Linux KVM-HV with L1 busy (run-guest.sh RPMU_NESTED=1
# RPMU_L1_HOG=0,1, the plain ppc64le kernel as L2): a busy loop on each L1
# CPU competes with L2's vCPUs, so KVM accounts stolen time, and puts each
# entry's share in its enqueue_to_dispatch_time. dtl_sim (rate=0) reads
# KVM's running total of it, the lppaca's enqueue_dispatch_tb, around each
# registration; dtl_check --hypervisor compares, per CPU: equal (within the
# bracket of those reads) where no entry was lost, at most otherwise.
. /t/lib.sh
. /t/dtl_lib.sh

# steal_of CPU: the steal column of /proc/stat (USER_HZ ticks).
steal_of() { awk -v c="cpu$1" '$1 == c { print $9 }' /proc/stat; }

insmod $M/vpa_dtl.ko
s0="$(steal_of 0) $(steal_of 1)"
for kind in idle sleepy; do
	if [ $kind = sleepy ]; then
		for c in 0 1; do
			taskset -c $c timeout 3 sh -c 'while :; do sleep 0.005; done' &
		done
	fi
	kvm_capture steal_$kind -- sleep 2
	wait
	# KVM stole time (its total grew on a CPU), so that the cases above
	# compared something (how much each vCPU loses to the L1 hog varies:
	# one lost none in 2 s once); the exact comparison needs a CPU that
	# lost no entry, the bound holds either way.
	n=$(grep -c 'is the hypervisor.s total (no entry lost)' /tmp/steal_$kind.check)
	ok "steal_$kind: KVM accounted stolen time ($n CPUs compared exactly, $((2 - n)) bounded)" \
		sh -c "grep -q '^cpu [0-9]*: stolen time .* total grew [0-9]*[.][.][1-9]' /tmp/steal_$kind.check"
done
s1="$(steal_of 0) $(steal_of 1)"
# The test kernel's own steal time: it has neither VIRT_CPU_ACCOUNTING_GEN
# (whose paravirt steal clock reads the same total) nor _NATIVE.
echo "      | /proc/stat steal (USER_HZ ticks) of cpu0 cpu1: $s0 before, $s1 after"
rmmod vpa_dtl
