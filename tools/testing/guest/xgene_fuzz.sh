# The stateful perf_event_open fuzzer (tools/testing/pmu_fuzz) on one PMU of
# each X-Gene type, with the simulated silicon counting throughout, CPU
# hotplug (the owning CPU moves), and rmmod/insmod attempts of the driver.
. /t/xgene_lib.sh
RPMU_DTSI_HINT="RPMU_DTSI=tools/testing/xgene/xgene-v2.dtsi "
ok "insmod xgene_sim.ko" timeout 30 insmod $M/xgene_sim.ko
insmod_driver $M/xgene_pmu.ko
for pmu in ${FUZZ_PMUS:-l3c0 iob0 iob-slow0 mcb0 mc0}; do
	if [ -d $D/$pmu ]; then
		fuzz_run $pmu counting --hotplug --module xgene_pmu:$M/xgene_pmu.ko
	else
		xg_skip "fuzz $pmu" "no such PMU on this silicon"
	fi
done
ok "rmmod xgene_pmu after the fuzzer" timeout 30 rmmod xgene_pmu
ok "rmmod xgene_sim" timeout 30 rmmod xgene_sim
