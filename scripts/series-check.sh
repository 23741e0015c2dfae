#!/usr/bin/env bash
# The upstream series in a kernel tree (part of make check):
#   scripts/series-check.sh ppc64le|arm64 COUNTS
# - make series, then the series applied with git am to the pinned release;
# - scripts/checkpatch.pl --strict on every patch: no ERROR, and every
#   WARNING or CHECK type named in the cover letter's list;
# - the tree built in-tree with the Rust drivers as modules, with CLIPPY=1,
#   no warning in the series' files; make rustfmtcheck and make rustdoc.
# Writes "passed failed" to COUNTS.
#
# The tree is a copy of the test kernel's source (scripts/kernel.sh), reset
# to the release, with a copy of its build directory beside it: Kbuild
# rebuilds only what the series changes, about 5 minutes an architecture.
# Both stay in $RPMU_CACHE/series/<arch>/ between runs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"

# One function, so that bash has read all of it before it runs.
main() {
	guest=${1:?usage: series-check.sh ppc64le|arm64 COUNTS}
	counts=${2:?usage: series-check.sh ppc64le|arm64 COUNTS}
	guest_arch "$guest"
	pass=0 fail=0
	ok() { echo "  ok     $*"; pass=$((pass + 1)); }
	bad() { echo "  FAILED $*"; fail=$((fail + 1)); }
	# A run that stops on an error counts one failure more.
	finish() {
		local rc=$?
		[ "$rc" = 0 ] || bad "$guest: series-check stopped (exit $rc)"
		echo "$pass $fail" >"$counts"
	}
	trap finish EXIT

	# The series as make series writes it; make check makes it once, before
	# both architectures' runs.
	series=$RPMU_TOP/build/series
	[ -d "$series" ] || scripts/series.sh >&2

	kdir=$(scripts/kernel.sh "$guest")
	ksrc=$(readlink -f "$kdir/..")
	clean=$(clean_source)
	use_toolchain
	# RPMU_SERIES_TREES: where the trees live (a second set lets a bisect run
	# beside make check).
	top=${RPMU_SERIES_TREES:-$RPMU_CACHE/series}/$guest
	tree=$top/linux
	out=$tree/$(basename "$kdir")

	# --- the tree: the release, as a git repository ----------------------------
	if [ ! -f "$top/.ready" ] || [ "$(cat "$top/.ready")" != "$kdir" ]; then
		log "series: copying the $guest test kernel's source and build"
		rm -rf "$top"
		mkdir -p "$tree"
		tar -C "$ksrc" --exclude='./build-*' -cf - . | tar -C "$tree" -xf -
		# The test kernel carries patches/*.patch: back to the release.
		for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' patches/*.patch | sort -u); do
			cp "$clean/$f" "$tree/$f"
		done
		git -C "$tree" init -q -b release
		git -C "$tree" config gc.auto 0
		echo '/build-*/' >>"$tree/.git/info/exclude"
		# (add -f: Debian's source ships a .gitignore that ignores "/*".)
		git -C "$tree" add -A -f
		git -C "$tree" -c user.name=release -c user.email=release@localhost commit -q -m "Linux 7.3.4 (Debian linux-source)"
		git -C "$tree" tag base
		cp -a "$kdir" "$out"
		echo "$kdir" >"$top/.ready"
	fi
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" reset -q --hard base
	git -C "$tree" clean -fdq
	patches=$(ls "$series"/0*.patch | grep -v '/0000-')
	# shellcheck disable=SC2086 # one word a patch
	if timeout 300 git -C "$tree" -c user.name="$(git log -1 --format=%an)" -c user.email="$(git log -1 --format=%ae)" \
		am -q $patches >"$top/am.log" 2>&1 &&
		[ "$(git -C "$tree" rev-list --count base..HEAD)" = "$(echo "$patches" | wc -l)" ]; then
		ok "$guest: the series applies with git am to the release ($(git -C "$tree" rev-list --count base..HEAD) patches)"
	else
		bad "$guest: git am of the series (see $top/am.log)"
		exit 0
	fi

	# A file the series leaves as the test kernel has it (patches/*.patch are
	# the series' first patches) keeps the test kernel's file time, so Kbuild
	# does not rebuild what includes it.
	git -C "$tree" diff --name-only base HEAD | while read -r f; do
		if [ -f "$ksrc/$f" ] && cmp -s "$ksrc/$f" "$tree/$f"; then touch -r "$ksrc/$f" "$tree/$f"; fi
	done

	# --- checkpatch (once: the patches are the same for both architectures) --
	if [ "$guest" = ppc64le ]; then
		listed=$(sed -n 's/^  \([A-Z_]*\): .*/\1/p' scripts/series/cover-letter.txt | sort -u)
		for p in $patches; do
			r=$(cd "$tree" && timeout 120 ./scripts/checkpatch.pl --strict --show-types "$p" 2>&1 || true)
			errors=$(grep -c '^ERROR:' <<<"$r" || true)
			types=$(grep -oE '^(WARNING|CHECK):[A-Z_]+' <<<"$r" | cut -d: -f2 | sort -u || true)
			unlisted=$(comm -23 <(echo "$types" | sed '/^$/d') <(echo "$listed"))
			if [ "$errors" = 0 ] && [ -z "$unlisted" ]; then
				ok "checkpatch --strict $(basename "$p"): no error${types:+, listed: $(echo $types)}"
			else
				bad "checkpatch --strict $(basename "$p"): $errors errors, not listed in the cover letter: $(echo $unlisted)"
				grep -E '^(ERROR|WARNING|CHECK):' <<<"$r" | head -n 5 | sed 's/^/         /'
			fi
		done
	fi

	# --- the in-tree build ----------------------------------------------------
	kmake() { make -C "$tree" O="$out" ARCH="$karch" LLVM="$LLVM_SUFFIX" "$@"; }
	"$tree"/scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
		"tools/testing/configs/series-$guest.config" >/dev/null
	kmake -s olddefconfig >&2
	missing=$(config_lost "$out/.config" "tools/testing/configs/series-$guest.config")
	[ -z "$missing" ] || { bad "$guest: config lines lost: $missing"; exit 0; }
	changed=$(git -C "$tree" diff --name-only base HEAD)
	log "series: building $guest in-tree (CLIPPY=1)"
	if timeout 2400 make -C "$tree" O="$out" ARCH="$karch" LLVM="$LLVM_SUFFIX" CLIPPY=1 -j"$(nproc)" \
		"${kimage##*/}" modules >"$top/build.log" 2>&1; then
		# The files rustc (`--> file:line`) and clang (`file:line:col:
		# warning:`) name in a diagnostic, against the series' files.
		warn_lines=$(comm -12 <(grep -oE -- '--> [^:]+|^[^: ]+:[0-9]+:[0-9]+: (warning|error)' "$top/build.log" |
			sed -E 's/^--> //; s/:[0-9]+:[0-9]+: .*//; s|^(\.\./)+||' | sort -u) <(echo "$changed" | sort -u) || true)
		if [ -z "$warn_lines" ]; then
			ok "$guest: in-tree build with CLIPPY=1, no warning in the series' files"
		else
			bad "$guest: warnings in the series' files (see $top/build.log)"
			echo "$warn_lines" | head -n 10 | sed 's/^/         /'
		fi
	else
		bad "$guest: in-tree build failed (see $top/build.log)"
		grep -E '^(error|warning)|error:' "$top/build.log" | head -n 10 | sed 's/^/         /'
		exit 0
	fi
	for m in $(sed -n 's/^CONFIG_\([A-Z_]*RUST\(_KUNIT\)\?\)\(_TEST\)\?=m$/\1/p' "tools/testing/configs/series-$guest.config"); do
		name=$(echo "$m" | tr 'A-Z' 'a-z')
		if ko=$(find "$out" -name "$name.ko" | head -n1) && [ -n "$ko" ]; then
			ok "$guest: $name.ko built in-tree"
		else
			bad "$guest: no $name.ko"
			continue
		fi
		# The driver itself carries no test code: its suite is the
		# *_kunit module's (cfg kunit_suite for that object only).
		case $name in
		*_kunit) ;;
		*) if shipped_clean "$ko"; then ok "$guest: $name.ko carries no test code"; else bad "$guest: $name.ko carries test code"; fi ;;
		esac
	done
	if timeout 600 make -C "$tree" O="$out" ARCH="$karch" LLVM="$LLVM_SUFFIX" CLIPPY=1 rustfmtcheck >"$top/rustfmt.log" 2>&1; then
		ok "$guest: make rustfmtcheck"
	else
		bad "$guest: make rustfmtcheck (see $top/rustfmt.log)"
	fi
	if timeout 1200 make -C "$tree" O="$out" ARCH="$karch" LLVM="$LLVM_SUFFIX" CLIPPY=1 -j"$(nproc)" rustdoc >"$top/rustdoc.log" 2>&1 &&
		! grep -E '^(warning|error)' "$top/rustdoc.log" | grep -qv 'target-feature\|warnings emitted'; then
		ok "$guest: make rustdoc, no warning"
	else
		bad "$guest: make rustdoc (see $top/rustdoc.log)"
		grep -E '^(warning|error)' -A3 "$top/rustdoc.log" | grep -v target-feature | head -n 10 | sed 's/^/         /'
	fi

	# --- the in-tree driver in a guest of the series' kernel --------------
	# The demo of the architecture, with the in-tree module in place of the
	# out-of-tree one: the simulator's entries or counts checked against
	# what perf shows (report.py counts its cases).
	local plan ko args extra envs=()
	case $guest in
	ppc64le)
		plan=kunit_modules,vpa_dtl_orphan,vpa_dtl_demo ko=vpa_dtl_rust
		# At boot, of the built-in doctests only the series' (the kernel's
		# own hrtimer examples put timers on the stack unannotated, which
		# DEBUG_OBJECTS reports).
		args="kunit.filter_glob=rust_doctests_kernel.rust_doctest_kernel_perf* KUNIT_DOCTESTS=perf"
		args+=" KUNIT_MODS=vpa_dtl_rust_kunit:vpa_dtl VPA_DTL_KO=vpa_dtl_rust.ko"
		;;
	arm64)
		plan=kunit_modules,xgene_demo ko=xgene_pmu_rust
		args="KUNIT_MODS=xgene_pmu_rust_kunit:xgene_pmu XGENE_KO=xgene_pmu_rust.ko"
		envs=(RPMU_DTSI="$RPMU_TOP/tools/testing/xgene/xgene-v2.dtsi")
		;;
	esac
	boot=$RPMU_TOP/build/series-$guest-boot
	extra="$(find "$out" -name "$ko.ko") $(find "$out" -name "${ko}_kunit.ko")"
	if env "${envs[@]}" RPMU_KDIR="$out" RPMU_PERF_SRC="$ksrc" RPMU_EXTRA_KO="$extra" \
		RPMU_GUEST_TIMEOUT=900 tools/testing/run-guest.sh "$guest" "$plan" "$boot.log" "$args" >"$top/boot.out" 2>&1; then
		python3 tools/testing/report.py "$ksrc" "$boot.log" "$boot"
	else
		bad "$guest: boot of the series' kernel with $ko (see $boot.log)"
	fi
}
main "$@"; exit
