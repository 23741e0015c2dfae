# The stateful perf_event_open fuzzer (tools/testing/pmu_fuzz) on vpa_dtl,
# with the simulated hypervisor writing entries on every CPU throughout, CPU
# hotplug, and rmmod/insmod attempts of the driver.
. /t/lib.sh
. /t/dtl_lib.sh
insmod_driver $M/vpa_dtl.ko
ok "insmod dtl_sim.ko (3 entries/ms on every CPU)" insmod $M/dtl_sim.ko rate=3 seed=21
fuzz_run vpa_dtl aux --hotplug --module vpa_dtl:$M/vpa_dtl.ko
ok "rmmod dtl_sim" rmmod dtl_sim
ok "rmmod vpa_dtl after the fuzzer" rmmod vpa_dtl
