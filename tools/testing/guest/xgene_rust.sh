# xgene_pmu.ko (ours) on the simulated X-Gene silicon: probe, sysfs against the
# JSON tables, the perf_event_open contract, module lifetime and leaks.
# The upstream C driver is kept out of this boot (initcall_blacklist).
. /t/lib.sh
M=/lib/modules/rpmu
D=/sys/bus/event_source/devices

# The driver's KUnit suite lives in its own test module (xgene_pmu.ko
# carries no test code).
ok "insmod xgene_pmu_kunit.ko (driver suite)" insmod $M/xgene_pmu_kunit.ko
kunit_save xgene_pmu
ok "rmmod xgene_pmu_kunit" rmmod xgene_pmu_kunit
# The abstractions' suites, here with lockdep on (raw lock nesting checked).
ok "insmod rpmu_kunit.ko (abstraction suites)" insmod $M/rpmu_kunit.ko
kunit_save rpmu_perf
kunit_save rpmu_hotplug
kunit_save rpmu_contexts
ok "rmmod rpmu_kunit" rmmod rpmu_kunit
ok "xgene_pmu.ko has no KUnit symbol" sh -c "! grep -q kunit $M/xgene_pmu.ko"
insmod_driver $M/xgene_pmu.ko
dmesg | grep -i "xgene" | tail -n 12

pmus=$(cd $D && ls -d l3c* iob* mcb* mc[0-9]* 2>/dev/null | tr '\n' ' ')
echo "registered: $pmus"
ok "PMUs registered (l3c, iob, mcb, mc)" sh -c "ls -d $D/l3c0 $D/iob0 $D/mcb0 $D/mc0"

# sysfs: every PMU's events = the JSON table of its type; format files as
# upstream; cpumask one online CPU.
for pmu in $pmus; do
	t=$(echo "$pmu" | sed 's/[0-9]*$//')
	for f in $D/$pmu/events/*; do
		v=$(sed -n 's/^config=\(0x[0-9a-f]*\)$/\1/p' "$f")
		echo "$t ${f##*/} $((v))"
	done | sort >/tmp/ev-$pmu.txt
	grep "^$t " /t/xgene-events-v1v2.txt | sort >/tmp/json-$t.txt
	ok "$pmu: events = JSON $t table ($(wc -l </tmp/json-$t.txt) events)" cmp /tmp/json-$t.txt /tmp/ev-$pmu.txt
	ok "$pmu: cpumask = 0 (the first online CPU owns the device)" test "$(cat $D/$pmu/cpumask)" = 0
done
ok "format l3c0: l3c_eventid config:0-7, l3c_agentid config1:0-9" \
	test "$(cat $D/l3c0/format/l3c_eventid) $(cat $D/l3c0/format/l3c_agentid)" = "config:0-7 config1:0-9"
ok "format iob0: iob_agentid config1:0-63" test "$(cat $D/iob0/format/iob_agentid)" = config1:0-63
ok "format mc0: only mc_eventid config:0-28" test "$(ls $D/mc0/format) $(cat $D/mc0/format/mc_eventid)" = "mc_eventid config:0-28"
# perf lists them under their Unit with the descriptions of its event tables
# (scripts/guest-perf.sh; checked one by one in xgene_perf.sh).
COLUMNS=4000 perf list 2>/dev/null | grep -c "Unit: uncore_l3c\]" >/tmp/n.txt
ok "perf list shows the l3c events ($(cat /tmp/n.txt))" test "$(cat /tmp/n.txt)" -ge 14

/t/pmu_open uncore-table l3c0 mcb0 >/tmp/uncore.out 2>&1
ktap_cases </tmp/uncore.out
ok "mc0 refuses config1 (no agent filter)" sh -c \
	'! perf stat -a -e mc0/act-cmd-sent,config1=0x1/ -- true'
ok "mc0 counts with config1=0" perf stat -a -e mc0/act-cmd-sent/ -- true

hold_start /tmp/hold.out hold-count l3c0 0x3 0 30
ok "rmmod refused while an event is open" sh -c '! rmmod xgene_pmu && grep -q "^xgene_pmu " /proc/modules'
hold_stop
# Unbinding through sysfs is refused (rpmu::platform::NoUnbind: a software
# event in an l3c0 group would outlive the PMU), with and without events.
P=/sys/bus/platform/drivers/xgene_pmu
dev=$(basename "$(ls -d $P/*.pmu 2>/dev/null | head -n 1)")
ok "the driver has no bind or unbind file" sh -c "test -n '$dev' && test ! -e $P/unbind && test ! -e $P/bind"
/t/pmu_edge unbind-sibling l3c0 0x3 0 0 xgene_pmu "$dev" >/tmp/unbind.out 2>&1
ktap_cases </tmp/unbind.out
ok "unbind $dev refused with no event open" sh -c "! echo $dev >$P/unbind 2>/dev/null && test -d $D/l3c0"
ok "rmmod with no event open" rmmod xgene_pmu
ok "PMUs gone after rmmod" test ! -e $D/l3c0

# A software event outliving its group's l3c0 leader keeps the module loaded
# (perf schedules it through the PMU; patches/0003).
insmod $M/xgene_pmu.ko
/t/pmu_edge sw-sibling l3c0 xgene_pmu 0x3 0 0 >/tmp/swsib.out 2>&1
ktap_cases </tmp/swsib.out
grep -q "^xgene_pmu " /proc/modules && rmmod xgene_pmu

# The multiplexing timer of a PMU armed with no event (writing its
# perf_event_mux_interval_ms arms it on every CPU), then the module
# removed: perf must not leave it pending in the freed PMU context
# (patches/0005; DEBUG_OBJECTS reports the freed active hrtimer without it).
insmod $M/xgene_pmu.ko
ok "mux timer: l3c0's interval set to 1000 ms with no event" sh -c "echo 1000 >$D/l3c0/perf_event_mux_interval_ms"
ok "mux timer: rmmod within the interval" rmmod xgene_pmu
sleep 2

# No event may join a group whose leader CPU hotplug removed from its
# context: perf core, software events alone (patches/0004; KASAN reports
# the use-after-free without it).
/t/pmu_edge ghost-leader 1 >/tmp/ghost.out 2>&1
ktap_cases </tmp/ghost.out

# 10 load/count/unload cycles must leak nothing.
cycle() {
	insmod $M/xgene_pmu.ko && perf stat -a -e l3c0/read-miss/,mc0/act-cmd-sent/ -- true >/dev/null 2>&1 &&
		rmmod xgene_pmu
}
leak_cycles 10 "insmod/perf stat/rmmod"
