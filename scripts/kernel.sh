#!/usr/bin/env bash
# Build (or find in the cache) the test kernel for one guest architecture.
#   scripts/kernel.sh ppc64le|arm64   -> prints the kernel build directory (KDIR)
# The source is Debian's linux-source package with patches/ applied; the build
# is keyed by kernel version, config fragment, patches and toolchain versions.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

#   scripts/kernel.sh ppc64le-acct    -> the pseries kernel with native cputime
#                                        accounting (the kernel's own DTL users)
#   scripts/kernel.sh ppc64le-kvmhost -> the L1 of the nested KVM-HV setup
#                                        (run-guest.sh RPMU_NESTED=1)
#   scripts/kernel.sh ppc64le-bench|arm64-bench
#                                     -> the test kernel without its detectors,
#                                        for make bench
guest=${1:?usage: kernel.sh ppc64le|ppc64le-acct|ppc64le-bench|ppc64le-kvmhost|arm64|arm64-bench}
cfg=$RPMU_TOP/tools/testing/configs
case $guest in
ppc64le) frags=("$cfg/ppc64le-pseries.config") ;;
ppc64le-acct) frags=("$cfg/ppc64le-pseries.config" "$cfg/ppc64le-acct.config") ;;
ppc64le-bench) frags=("$cfg/ppc64le-pseries.config" "$cfg/bench.config" "$cfg/ppc64le-bench.config") ;;
ppc64le-kvmhost)
	frags=("$cfg/ppc64le-pseries.config" "$cfg/bench.config" "$cfg/ppc64le-acct.config" "$cfg/ppc64le-kvmhost.config")
	;;
arm64) frags=("$cfg/arm64-virt.config") ;;
arm64-bench) frags=("$cfg/arm64-virt.config" "$cfg/bench.config" "$cfg/arm64-bench.config") ;;
*) die "unknown guest kernel $guest" ;;
esac
guest_arch "$guest"
image=$kimage targets="${kimage##*/} modules"

# --- source ---------------------------------------------------------------
deb=$(fetch_source)
patches=("$RPMU_TOP"/patches/*.patch)
src_key=$(basename "$deb" .deb)-p$(content_hash "${patches[@]}")
src=$RPMU_CACHE/src/$src_key
if [ ! -f "$src/.rpmu-ready" ]; then
	log "unpacking $(basename "$deb")"
	rm -rf "$src"
	unpack_source "$deb" "$src.tmp"
	for p in "${patches[@]}"; do
		log "applying $(basename "$p")"
		patch -d "$src.tmp" -p1 --forward --batch <"$p" >&2
	done
	mv "$src.tmp" "$src"
	touch "$src/.rpmu-ready"
fi

# --- build ----------------------------------------------------------------
use_toolchain
tools="$(rustc --version) $(bindgen --version) $(clang$LLVM_SUFFIX --version | head -n1)"
key=$guest-$src_key-$(content_hash "${frags[@]}" -s "$tools")
# The build directory is a child of the source, so Kbuild names the source
# `..` in every command it records: the pair can be copied and built on
# incrementally elsewhere (scripts/series-check.sh does).
out=$src/build-$key
kmake() { make -C "$src" O="$out" ARCH="$karch" LLVM="$LLVM_SUFFIX" "$@"; }

if [ ! -f "$out/.rpmu-built" ]; then
	log "building $guest kernel in $out (about 10-12 minutes cold)"
	mkdir -p "$out"
	kmake -s allnoconfig >&2
	"$src"/scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	kmake -s olddefconfig >&2
	# Every line of the fragments (a later one overriding an earlier one)
	# must have survived Kconfig's dependencies, "is not set" ones included.
	missing=$(config_lost "$out/.config" "${frags[@]}")
	[ -z "$missing" ] || die "config fragment lines lost in $out/.config: $missing"
	# shellcheck disable=SC2086 # two make targets
	kmake -j"$(nproc)" $targets >"$out/build.log" 2>&1 || {
		grep -E 'error|Error' "$out/build.log" | head -n 20 >&2
		die "kernel build failed; see $out/build.log"
	}
	kmake -s modules_prepare >&2
	[ -f "$out/$image" ] || die "no $image after the build"
	touch "$out/.rpmu-built"
fi
echo "$out"
