#!/usr/bin/env bash
# Build (or find in the cache) a static perf for the guest, from the same
# kernel source the test kernel uses, with the project's perf fixes
# (patches/perf) and, on arm64, the X-Gene event tables.
#   scripts/guest-perf.sh ppc64le|arm64 <kernel source dir>  -> prints the binary
set -euo pipefail
source "$(dirname "$0")/lib.sh"

guest=${1:?usage: guest-perf.sh ppc64le|arm64 <kernel source>}
src=${2:?kernel source dir}
guest_arch "$guest"
# perf builds from a tree of symbolic links to that source (the source is
# not touched) with two additions:
# - patches/perf/*.patch, the project's fixes to perf itself (each patched
#   file is copied into the overlay first);
# - arm64: the X-Gene system event tables and metrics
#   (drivers/perf/xgene/events/*.json, perf's pmu-events schema) in its
#   pmu-events/arch/arm64/apm/xgene{,3}/sys, so `perf list` describes the
#   events and `perf stat -M` knows the metrics; perf's own jevents.py checks
#   them (a schema error fails the build).
# One build at a time per architecture: guests prepared side by side (make
# soak) once raced here, one removing the source overlay the other was
# building from.
mkdir -p "$RPMU_CACHE/perf"
exec 9>"$RPMU_CACHE/perf/.lock-$guest"
flock 9
# RPMU_STOCK_PERF=1: perf as 7.3.4 ships it, without patches/perf (boots
# that keep the stock tool covered).
fixes=()
[ "${RPMU_STOCK_PERF:-0}" = 1 ] || fixes=("$RPMU_TOP"/patches/perf/*.patch)
inputs=("${fixes[@]}") tag=$guest
if [ "$guest" = arm64 ]; then
	json=("$RPMU_TOP"/drivers/perf/xgene/events/*.json)
	inputs+=("$RPMU_TOP/scripts/xgene_events.py" "${json[@]}")
	[ ${#fixes[@]} -gt 0 ] || tag=xgene
fi
overlay=$RPMU_CACHE/perf/src-$(basename "$src")-$tag-$(content_hash "${inputs[@]}")
if [ ${#inputs[@]} = 0 ]; then
	overlay=$src
elif [ ! -f "$overlay/.rpmu-ready" ]; then
	rm -rf "$overlay"
	mkdir -p "$overlay"
	cp -as "$src/." "$overlay/"
	# The source's own marker is not the overlay's.
	rm -f "$overlay/.rpmu-ready"
	for p in "${fixes[@]}"; do
		for f in $(sed -n 's|^+++ b/||p' "$p"); do
			if [ -L "$overlay/$f" ]; then cp --remove-destination "$src/$f" "$overlay/$f"; fi
		done
		patch -d "$overlay" -p1 --forward --batch <"$p" >&2
	done
	if [ "$guest" = arm64 ]; then
		python3 "$RPMU_TOP/scripts/xgene_events.py" perf "$overlay/tools/perf/pmu-events/arch/arm64/apm"
	fi
	touch "$overlay/.rpmu-ready"
fi
src=$overlay
out=$RPMU_CACHE/perf/$guest-$(basename "$src")-$(content_hash -s "$("${cross}gcc" --version | head -n1)")
if [ ! -x "$out/perf" ]; then
	log "building a static perf for $guest (about 2-4 minutes)"
	mkdir -p "$out"
	no=(NO_RUST=1 NO_LIBELF=1 NO_LIBTRACEEVENT=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1
		NO_GTK2=1 NO_LIBBPF=1 NO_LIBDW=1 NO_LIBUNWIND=1 NO_LIBNUMA=1 NO_LIBZSTD=1
		NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1 NO_SDT=1 NO_JVMTI=1 NO_LZMA=1
		NO_ZLIB=1 NO_LIBLLVM=1 NO_CAPSTONE=1 NO_LIBDW_DWARF_UNWIND=1)
	make -C "$src/tools/perf" ARCH="$karch" CROSS_COMPILE="$cross" O="$out" \
		LDFLAGS=-static "${no[@]}" -j"$(nproc)" "$out/perf" >"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2; die "perf build failed; see $out/build.log"; }
fi
echo "$out/perf"
