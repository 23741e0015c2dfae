# Soak cases for the X-Gene PMUs, sized from the kernel command line (make
# check runs the CI size, make soak the full size):
#   SOAK_LOADS    insmod/perf stat/rmmod cycles, kmemleak-checked (10; 1000)
#   SOAK_HOTPLUG  cycles taking the owning CPU offline and online again while
#                 perf stat counts; every count must equal the model's tally
#                                                                 (10; 100)
. /t/lib.sh
. /t/xgene_lib.sh
loads=${SOAK_LOADS:-10} hp=${SOAK_HOTPLUG:-10}
ok "insmod xgene_sim.ko (sessions not logged)" timeout 30 insmod $XGSIM log_sessions=0

cycle() {
	insmod $M/xgene_pmu.ko && perf stat -a -e l3c0/read-miss/,mc0/act-cmd-sent/ -- true >/dev/null 2>&1 &&
		rmmod xgene_pmu
}
t0=$(date +%s)
leak_cycles "$loads" "insmod/perf stat/rmmod"
echo "SOAK xgene loads=$loads seconds=$(($(date +%s) - t0))"

insmod $M/xgene_pmu.ko
cat >/tmp/hotplug.sh <<EOS
i=0
while [ \$i -lt $hp ]; do
	own=\$(cat $D/l3c0/cpumask)
	echo 0 >/sys/devices/system/cpu/cpu\$own/online || exit 1
	sleep 0.05
	echo 1 >/sys/devices/system/cpu/cpu\$own/online || exit 1
	sleep 0.05
	i=\$((i + 1))
done
echo "hotplug cycles: \$i"
EOS
xg_reset
specs="l3c0/read-miss/ mc0/rd-cmd-sent/"
t0=$(date +%s)
evs=$(echo $specs | tr ' ' ',')
PERF_T=${SOAK_CAPTURE_T:-600}
timeout $PERF_T perf stat -a -x';' --no-scale -o /tmp/soakhp.csv -e "$evs" sh /tmp/hotplug.sh >/tmp/soakhp.out 2>&1
ok "hotplug soak: $hp cycles of the owning CPU during perf stat" grep -q "hotplug cycles: $hp" /tmp/soakhp.out
xg_check soakhp ';' "$specs"
echo "SOAK xgene hotplug=$hp seconds=$(($(date +%s) - t0))"
ok "rmmod xgene_pmu" timeout 30 rmmod xgene_pmu
ok "rmmod xgene_sim" timeout 30 rmmod xgene_sim
