#!/usr/bin/env bash
# `make lint`: rustfmt (the kernel's .rustfmt.toml), the generated X-Gene
# event lists in Documentation/ up to date, and clippy through the kernel's
# CLIPPY=1 over every module. With KDIR (ppc64le) / KDIR_ARM64 unset, uses
# the cached test kernels. Writes build/lint.counts for `make check`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build
kdir=${KDIR:-$("$RPMU_TOP/scripts/kernel.sh" ppc64le)}
passed=0 failed=0
result() { # ok? name
	if [ "$1" = 0 ]; then echo "  ok     $2"; passed=$((passed + 1)); else echo "  FAILED $2"; failed=$((failed + 1)); fi
}

set +e
rustfmt "+$RUST_TOOLCHAIN" --edition 2021 --check $(git ls-files '*.rs') >build/rustfmt.log 2>&1
result $? "rustfmt --check"
# The X-Gene event lists in the documentation are generated from the JSON.
python3 scripts/xgene_events.py rst | cmp -s - Documentation/xgene-pmu-events.rst
result $? "Documentation/xgene-pmu-events.rst up to date (scripts/xgene_events.py rst)"
# Clippy builds in a scratch copy, so the test build stays as it is: the
# pseries modules against the ppc64le kernel, the X-Gene ones against arm64.
clippy() { # name kdir arch
	local out=$RPMU_TOP/build/clippy-$1 rc n
	rm -rf "$out" && mkdir -p "$out"
	rsync -a --exclude /build --exclude /target --exclude .git "$RPMU_TOP/" "$out/"
	RUSTUP_TOOLCHAIN=$RUST_TOOLCHAIN PATH=$RPMU_CACHE/bindgen-$BINDGEN_VERSION/bin:$PATH \
		make -C "$2" M="$out" ARCH="$3" LLVM="$LLVM_SUFFIX" CLIPPY=1 -j"$(nproc)" modules \
		>"build/clippy-$1.log" 2>&1
	rc=$?
	# Warnings other than rustc's notes about the kernel's target features.
	n=$(grep -E '^(warning|error)' "build/clippy-$1.log" | grep -cv 'unstable feature specified\|warnings emitted')
	[ "$rc" = 0 ] && [ "$n" = 0 ]
	result $? "clippy (CLIPPY=1) clean over the $1 modules"
	[ "$n" = 0 ] || grep -E '^(warning|error)' -A 6 "build/clippy-$1.log" | grep -v 'unstable feature' | head -n 40
}
clippy ppc64le "$kdir" powerpc
clippy arm64 "${KDIR_ARM64:-$("$RPMU_TOP/scripts/kernel.sh" arm64)}" arm64
set -e
echo "$passed $failed" >build/lint.counts
