# An AUX area outliving its event keeps the PMU's module loaded until the
# area goes (pmu_edge aux-orphan: rmmod refused while it is mapped, accepted
# after). VPA_DTL_KO names the module file (default vpa_dtl.ko); the series
# check runs it on the in-tree vpa_dtl_rust.ko, whose module reference the
# kernel crate takes and drops.
. /t/lib.sh
. /t/dtl_lib.sh
ko=${VPA_DTL_KO:-vpa_dtl.ko}
mod=${ko%.ko}
ok "insmod $ko" insmod $M/$ko
/t/pmu_edge aux-orphan vpa_dtl "$mod" 0x1 0 >/tmp/orphan.out 2>&1
ktap_cases </tmp/orphan.out
! grep -q "^$mod " /proc/modules || rmmod "$mod"
ok "$mod: PMU gone after rmmod" test ! -e $D
