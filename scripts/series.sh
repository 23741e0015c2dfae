#!/usr/bin/env bash
# make series: the upstream patch series in build/series/, generated from
# this repository against the pinned kernel source (scripts/series/series.py).
#   scripts/series.sh            -> build/series/*.patch
# The unpatched source is unpacked once into $RPMU_CACHE/src/<package>-clean.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

"$RPMU_TOP/scripts/setup-host.sh"
clean=$(clean_source)
use_toolchain
out=$RPMU_TOP/build/series
timeout 300 python3 "$RPMU_TOP/scripts/series/series.py" "$clean" "$out"
