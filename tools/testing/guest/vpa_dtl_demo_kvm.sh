# `make demo-kvm`: our vpa_dtl in a KVM guest (run-guest.sh RPMU_NESTED=1),
# where Linux KVM-HV, not a simulator, writes the DTL; recorded and decoded
# by stock perf, and checked against the index KVM published.
. /t/lib.sh
. /t/dtl_lib.sh
echo
echo "== the hypervisor: $(tr -d '\0' </proc/device-tree/hypervisor/compatible)"
echo "== insmod vpa_dtl.ko; the PMU in sysfs"
insmod $M/vpa_dtl.ko
dmesg | grep "vpa_dtl: registered"
ls $D/events
echo
echo "== perf record -e vpa_dtl/dtl_cede/: refused, KVM logs no kinds"
perf record -q -a -e vpa_dtl/dtl_cede/ -o /tmp/cede.data -- true 2>&1 | head -n 3
echo
echo "== perf record -a -e vpa_dtl/dtl_all/ -- sleep 1   (beside a fork loop on each CPU)"
for c in 0 1; do
	taskset -c $c timeout 2 sh -c 'while :; do /bin/true; done' &
done
kvm_capture demo -- sleep 1
wait
echo
echo "== perf script (first entries)"
head -n 8 /tmp/demo.script
echo
echo "== checker (the capture against KVM's published index)"
cat /tmp/demo.check
ok "demo capture verified" sh -c '! grep -q "^not ok" /tmp/demo.check'
echo
echo "vpa_dtl kvm demo: $(tail -n 1 /tmp/demo.check | sed 's/^published=/written=/')"
echo "=== DTL SCRIPT BEGIN ==="
cat /tmp/demo.script
echo "=== DTL SCRIPT END ==="
