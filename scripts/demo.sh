#!/usr/bin/env bash
# `make demo`: boot QEMU pseries with our vpa_dtl.ko and the simulated
# hypervisor, record with stock perf, decode, and print
# "vpa_dtl demo: injected=N captured=C lost=L".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build
"$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_demo build/demo.log
# Show the guest's demo output (between the suite header and the results).
sed -n '/^### suite vpa_dtl_demo/,/=== RPMU KTAP BEGIN ===/p' build/demo.log |
	grep -av '=== RPMU KTAP BEGIN ===\|^\[ *[0-9.]*\] \|^### suite\|^case ' | tr -d '\r'
grep -aq '^vpa_dtl demo: injected=' build/demo.log || die "the demo did not complete; see build/demo.log"
