# Reproducers of Linux 7.3.4 perf core defects the fuzzer found, for
# reporting upstream; not part of make check (the second one corrupts the
# kernel it runs on). Run with:
#   tools/testing/run-guest.sh arm64 upstream_repro build/repro.log
# 1. patches/0003 (fixed in the test kernels): covered by pmu_edge
#    sw-sibling in vpa_dtl_basic and xgene_rust.
# 2. A group joined after CPU hotplug removed its leader (not fixed here;
#    pmu_fuzz stays clear of it unless --core-bugs).
/t/pmu_edge ghost-leader 1 >/tmp/ghost.out 2>&1
ktap_cases </tmp/ghost.out
