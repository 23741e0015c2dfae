#!/usr/bin/env bash
# `make demo-xgene`: boot QEMU virt (arm64) with simulated X-Gene 2 PMU
# silicon, load our xgene_pmu.ko, run stock perf stat and compare every count
# with the model's tally; ends with "xgene demo: events=E matched=M".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build
RPMU_DTSI=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi \
	"$RPMU_TOP/tools/testing/run-guest.sh" arm64 xgene_demo build/demo-xgene.log
sed -n '/^### suite xgene_demo/,/=== RPMU KTAP BEGIN ===/p' build/demo-xgene.log |
	grep -av '=== RPMU KTAP BEGIN ===\|^\[ *[0-9.]*\] \|^### suite\|^case ' | tr -d '\r'
grep -aq '^xgene demo: events=' build/demo-xgene.log || die "the demo did not complete; see build/demo-xgene.log"
