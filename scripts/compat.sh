#!/usr/bin/env bash
# `make compat`: another kernel. The modules are built against the newest
# other Rust-enabled 7.x linux-source in Debian (COMPAT_PKG, default
# linux-source-7.2=7.2.13-1 from sid), with the project's patches, and the
# quick guest cases run there: the X-Gene counting cases and demo (arm64,
# X-Gene 2 described by a device tree) and, where that source has Rust on
# 64-bit powerpc (7.3 on), the vpa_dtl demo capture (ppc64le). Its kernels
# and perfs are cached next to the main ones, keyed by their source package.
# Prints "N passed, M failed". Run by make soak, not make check.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
start=$(date +%s)
mkdir -p build/compat
rm -f build/compat/*.counts
export KERNEL_PKG_PIN=${COMPAT_PKG:-linux-source-7.2=7.2.13-1}
log "make compat: $KERNEL_PKG_PIN"
"$RPMU_TOP/scripts/setup-host.sh"
# The source, unpacked and patched by kernel.sh's first step (the arm64
# build); it falls back to another package if the pin cannot be downloaded,
# which would test the usual kernel again.
kdir=$("$RPMU_TOP/scripts/kernel.sh" arm64)
ksrc=$(readlink -f "$kdir/source")
want=${KERNEL_PKG_PIN#*=}
case $(basename "$ksrc") in
*"${want%%-*}"*) ;;
*) die "the kernel source is $(basename "$ksrc"), not $KERNEL_PKG_PIN" ;;
esac

RPMU_DTSI=$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi \
	"$RPMU_TOP/tools/testing/run-guest.sh" arm64 xgene_stat,xgene_demo build/compat/arm64.log
python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" build/compat/arm64.log build/compat/arm64
grep -a -h '^xgene demo:' build/compat/arm64.log | tr -d '\r' || true

# Rust on 64-bit powerpc came with 7.3 (arch/powerpc/Kconfig: HAVE_RUST if
# PPC64 && CPU_LITTLE_ENDIAN); an older source has no Rust-enabled pseries
# kernel to build against, which is said, not counted.
if grep -q 'select HAVE_RUST.*PPC64' "$ksrc/arch/powerpc/Kconfig"; then
	"$RPMU_TOP/scripts/kernel.sh" ppc64le >/dev/null
	"$RPMU_TOP/tools/testing/run-guest.sh" ppc64le vpa_dtl_demo build/compat/ppc64le.log
	python3 "$RPMU_TOP/tools/testing/report.py" "$ksrc" build/compat/ppc64le.log build/compat/ppc64le
	grep -a -h '^vpa_dtl demo:' build/compat/ppc64le.log | tr -d '\r' || true
else
	have=$(grep -m1 'select HAVE_RUST' "$ksrc/arch/powerpc/Kconfig" | xargs || true)
	echo "  skip   ppc64le: $(basename "$ksrc") has no Rust on 64-bit powerpc (arch/powerpc/Kconfig: ${have:-no HAVE_RUST})"
fi

sum_counts build/compat
log "make compat took $(($(date +%s) - start)) s ($(basename "$ksrc"))"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
