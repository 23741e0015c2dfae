#!/usr/bin/env bash
# `make demo-xgene`: boot QEMU virt (arm64) with simulated X-Gene PMU
# silicon, load our xgene_pmu.ko, run stock perf stat and compare every count
# with the model's tally.
#   make demo-xgene            X-Gene 2 described by a device tree; ends with
#                              "xgene demo: events=E matched=M"
#   make demo-xgene XGENE=N    X-Gene N (1, 2 or 3) described by ACPI, booted
#                              through UEFI; ends with
#                              "xgene demo: firmware=acpi version=N events=E matched=M"
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build
xgene=${XGENE:-}
case $xgene in
'') export RPMU_DTSI=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi ;;
1 | 2 | 3) export RPMU_ACPI=$xgene ;;
*) die "XGENE=$xgene: 1, 2 or 3" ;;
esac
log="build/demo-xgene${xgene:+-acpi$xgene}.log"
"$RPMU_TOP/tools/testing/run-guest.sh" arm64 xgene_demo "$log"
sed -n '/^### suite xgene_demo/,/=== RPMU KTAP BEGIN ===/p' "$log" |
	grep -av '=== RPMU KTAP BEGIN ===\|^\[ *[0-9.]*\] \|^### suite\|^\(not \)\?ok [0-9]* \|^# ' | tr -d '\r'
grep -aq '^xgene demo: .*events=' "$log" || die "the demo did not complete; see $log"
