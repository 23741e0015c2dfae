#!/usr/bin/env bash
# Build the project's modules against a kernel build tree, in
# build/modules-ARCH-KEY (a copy of the sources, so the clone stays clean; KEY
# names the kernel build, so two kernels of one architecture can be used side
# by side). Prints that directory.
#   scripts/modules.sh KDIR ARCH
set -euo pipefail
source "$(dirname "$0")/lib.sh"
kdir=${1:?KDIR}
karch=${2:?ARCH}
stamp=$(content_hash "$kdir/include/generated/utsrelease.h" "$kdir/.config" "$kdir/Module.symvers")
out=$RPMU_TOP/build/modules-$karch-$stamp
mkdir -p "$out"
# Build products are excluded, so --delete neither copies nor removes them.
rsync -a --delete --exclude /build --exclude /target --exclude .git \
	--exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' --exclude '*.mod' --exclude '*.mod.c' \
	--exclude '*_generated.rs' --exclude modules.order --exclude Module.symvers \
	--exclude /.kernel --exclude /build.log --exclude '.*.d' --exclude '*.rmeta' \
	"$RPMU_TOP/" "$out/"
echo "$stamp" >"$out/.kernel"
use_toolchain
make -C "$kdir" M="$out" ARCH="$karch" LLVM="$LLVM_SUFFIX" -j"$(nproc)" modules \
	>"$out/build.log" 2>&1 || { grep -E '^(error|ERROR)' -A 12 "$out/build.log" >&2; die "module build failed; see $out/build.log"; }
log "modules: $(cd "$out" && find . -name '*.ko' | sort | tr '\n' ' ')"
echo "$out"
