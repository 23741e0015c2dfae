# The demo: our vpa_dtl with the simulated hypervisor, recorded and decoded
# by stock perf. VPA_DTL_KO names the driver's module file (default
# vpa_dtl.ko; the series check boots the in-tree vpa_dtl_rust.ko).
. /t/lib.sh
. /t/dtl_lib.sh
ko=${VPA_DTL_KO:-vpa_dtl.ko}
echo
echo "== insmod $ko dtl_sim.ko; the PMU in sysfs and perf list"
ok "insmod $ko" insmod $M/$ko
ls $D $D/events $D/format
perf list 2>/dev/null | grep vpa_dtl
echo
echo "== perf record -a -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 1   (simulator: 3 entries/ms/CPU)"
capture demo "seed=42 rate=3" -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 1
cat /tmp/demo.record
echo
echo "== perf report -D (AUX header record and first entries)"
perf report -D -i /tmp/demo.data 2>/dev/null | grep -a -m 8 -E "boot_tb|dispatch_reason"
echo
echo "== perf script (first entries)"
head -n 16 /tmp/demo.script
echo
echo "== checker (every decoded entry against what the simulator injected)"
cat /tmp/demo.check
ok "demo capture verified" sh -c '! grep -q "^not ok" /tmp/demo.check'
echo
echo "vpa_dtl demo: $(tail -n 1 /tmp/demo.check)"
# The whole perf script output, for dtl-report on the host: scripts/demo.sh
# cuts it out of the console log (and keeps it out of what it shows).
echo "=== DTL SCRIPT BEGIN ==="
cat /tmp/demo.script
echo "=== DTL SCRIPT END ==="
