# The stateful perf_event_open fuzzer (tools/testing/pmu_fuzz) on one PMU of
# each X-Gene type, with the simulated silicon counting throughout, CPU
# hotplug (the owning CPU moves), and rmmod/insmod attempts of the driver.
# XGENE_DRIVER=builtin fuzzes the upstream C driver bound at boot (no module
# operations); FUZZ_NO_HOTPLUG=1 leaves CPU hotplug out (for bisecting).
. /t/lib.sh
. /t/xgene_lib.sh
RPMU_DTSI_HINT="RPMU_DTSI=tools/testing/xgene/xgene-v2.dtsi "
ok "insmod xgene_sim.ko (sessions not logged)" timeout 30 insmod $XGSIM log_sessions=0
fargs=
[ "${FUZZ_NO_HOTPLUG:-0}" = 1 ] || fargs=--hotplug
if [ "${XGENE_DRIVER:-}" = builtin ]; then
	# The C driver warns on some refused opens (xgene_pmu.c, event_init):
	# its kernel log is judged after the run (report.py), not per operation.
	RPMU_DTSI_HINT="RPMU_C_REFERENCE=1 $RPMU_DTSI_HINT"
	fargs="$fargs --reference"
else
	insmod_driver $M/xgene_pmu.ko
	fargs="$fargs --module xgene_pmu:$M/xgene_pmu.ko"
fi
# Unbind attempts through sysfs, whatever is open: refused (no unbind file),
# by our driver as by upstream's (suppress_bind_attrs).
drv=xgene_pmu
[ "${XGENE_DRIVER:-}" = builtin ] && drv=xgene-pmu
dev=$(basename "$(ls -d /sys/bus/platform/drivers/$drv/*.pmu 2>/dev/null | head -n 1)")
[ -n "$dev" ] && fargs="$fargs --unbind $drv:$dev"
for pmu in ${FUZZ_PMUS:-l3c0 iob0 iob-slow0 mcb0 mc0}; do
	if [ -d $D/$pmu ]; then
		# shellcheck disable=SC2086 # word-split arguments
		fuzz_run $pmu counting $fargs
	else
		xg_skip "fuzz $pmu" "no such PMU on this silicon"
	fi
done
if [ "${XGENE_DRIVER:-}" != builtin ]; then
	ok "rmmod xgene_pmu after the fuzzer" timeout 30 rmmod xgene_pmu
fi
ok "rmmod xgene_sim" timeout 30 rmmod xgene_sim
