#!/usr/bin/env bash
# Every patch of the series builds on its own (part of make soak):
#   scripts/series-bisect.sh ppc64le|arm64
# In the tree scripts/series-check.sh prepared (the series applied), each
# commit from the first patch on is checked out and built in-tree
# (CLIPPY=1, the Rust drivers as modules where the tree has them), one
# after the other, so each build is incremental. Prints one ok/FAILED line
# a patch and "N passed, M failed".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"

main() {
	local guest=${1:?usage: series-bisect.sh ppc64le|arm64} pass=0 fail=0 kdir top tree out c head n=0
	guest_arch "$guest"
	use_toolchain
	# The tree, with the whole series applied and built.
	scripts/series-check.sh "$guest" "build/series-bisect-$guest.check" >&2 || true
	kdir=$(scripts/kernel.sh "$guest")
	# RPMU_SERIES_TREES: where the trees live (a second set lets a bisect run
	# beside make check).
	top=${RPMU_SERIES_TREES:-$RPMU_CACHE/series}/$guest
	tree=$top/linux
	out=$tree/$(basename "$kdir")
	head=$(git -C "$tree" rev-parse HEAD)
	for c in $(git -C "$tree" rev-list --reverse base..HEAD); do
		n=$((n + 1))
		git -C "$tree" checkout -q "$c"
		# The drivers' symbols exist from their patch on: the fragment is
		# merged again at each step, so they are on once they exist.
		"$tree"/scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
			"tools/testing/configs/series-$guest.config" >/dev/null 2>&1
		if timeout 3600 make -C "$tree" O="$out" ARCH="$karch" LLVM="$LLVM_SUFFIX" CLIPPY=1 -j"$(nproc)" \
			olddefconfig "${kimage##*/}" modules >"$top/bisect-$n.log" 2>&1; then
			echo "  ok     $guest: patch $n builds on its own: $(git -C "$tree" log -1 --format=%s "$c")"
			pass=$((pass + 1))
		else
			echo "  FAILED $guest: patch $n does not build on its own: $(git -C "$tree" log -1 --format=%s "$c") (see $top/bisect-$n.log)"
			fail=$((fail + 1))
		fi
	done
	git -C "$tree" checkout -q "$head"
	echo "$pass passed, $fail failed"
}
main "$@"; exit
