# vpa_dtl: loading, sysfs, perf list, event validation, module lifetime.
. /t/lib.sh
M=/lib/modules/rpmu
D=/sys/bus/event_source/devices/vpa_dtl

insmod_driver $M/vpa_dtl.ko

ok "sysfs: PMU directory" test -d $D
ok "sysfs: format/event = config:0-7" test "$(cat $D/format/event)" = config:0-7
for ev in dtl_cede=0x1 dtl_preempt=0x2 dtl_fault=0x4 dtl_all=0x7; do
	ok "sysfs: events/${ev%%=*} = event=${ev#*=}" test "$(cat $D/events/${ev%%=*})" = "event=${ev#*=}"
done
ok "sysfs: no cpumask (events are per CPU)" test ! -e $D/cpumask
perf list 2>/dev/null | grep vpa_dtl >/tmp/perf-list.txt
cat /tmp/perf-list.txt
ok "perf list shows the four events" test "$(grep -c 'vpa_dtl/dtl_\(cede\|preempt\|fault\|all\)/' /tmp/perf-list.txt)" = 4

/t/pmu_open errno-table vpa_dtl >/tmp/errno.out 2>&1
ktap_cases </tmp/errno.out

hold_start /tmp/hold.out hold vpa_dtl 0x1 0 30
ok "rmmod refused while an event is open" sh -c '! rmmod vpa_dtl && grep -q "^vpa_dtl " /proc/modules'
hold_stop
# Refusals are quiet: users can trigger them in loops.
/t/pmu_edge refuse-loop vpa_dtl 100000 >/tmp/refuse.out 2>&1
ktap_cases </tmp/refuse.out

# An AUX area outliving its event keeps the module (free_aux) loaded.
/t/pmu_edge aux-orphan vpa_dtl vpa_dtl 0x1 0 >/tmp/orphan.out 2>&1
ktap_cases </tmp/orphan.out
grep -q "^vpa_dtl " /proc/modules && rmmod vpa_dtl
ok "PMU gone after rmmod" test ! -e $D

# A software event outliving its group's vpa_dtl leader keeps the module
# loaded (perf schedules it through the PMU; patches/0003).
insmod $M/vpa_dtl.ko
/t/pmu_edge sw-sibling vpa_dtl vpa_dtl 0x1 1000000 0 >/tmp/swsib.out 2>&1
ktap_cases </tmp/swsib.out
grep -q "^vpa_dtl " /proc/modules && rmmod vpa_dtl

# 20 load/open/close/unload cycles must leak nothing.
cycle() {
	insmod $M/vpa_dtl.ko && /t/pmu_open hold vpa_dtl 0x7 0 0 >/dev/null && rmmod vpa_dtl
}
leak_cycles 20 insmod/open/close/rmmod

# The KUnit suites live in test modules, loaded here and removed again.
ok "insmod rpmu_kunit.ko (abstraction suites)" insmod $M/rpmu_kunit.ko
kunit_save rpmu_perf
kunit_save rpmu_hotplug
kunit_save rpmu_contexts
ok "rmmod rpmu_kunit" rmmod rpmu_kunit
# A second AUX PMU sharing vpa_dtl's ring: its transactions must not get
# vpa_dtl's AUX area (rust/rpmu/perf/aux.rs checks whose it is).
ok "insmod rpmu_kunit.ko aux_pmu=1 (a second AUX PMU)" insmod $M/rpmu_kunit.ko aux_pmu=1
insmod $M/vpa_dtl.ko
/t/pmu_edge aux-foreign vpa_dtl 0x7 rpmu_aux_test 0 >/tmp/auxforeign.out 2>&1
ktap_cases </tmp/auxforeign.out
rmmod vpa_dtl
ok "rmmod rpmu_kunit (aux_pmu=1)" rmmod rpmu_kunit
ok "insmod vpa_dtl_kunit.ko (driver suites)" insmod $M/vpa_dtl_kunit.ko
kunit_save vpa_dtl
ok "rmmod vpa_dtl_kunit" rmmod vpa_dtl_kunit
