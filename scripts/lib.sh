# shellcheck shell=bash
# Common settings for the project's scripts. Sourced, never executed.
#
# Everything downloaded or built is cached outside the clone, under $RPMU_CACHE,
# keyed by version and by the hash of the inputs that affect it.

RPMU_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RPMU_CACHE=${RPMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rust-pmu}
mkdir -p "$RPMU_CACHE"

# Kernel source: Debian's linux-source package. The pin comes first; the rest are
# fallbacks (any Rust-capable 7.x), tried in order with a warning.
KERNEL_PKG_PIN=${KERNEL_PKG_PIN:-linux-source-7.3=7.3.4-1~bpo13+1}
KERNEL_PKG_FALLBACKS=(linux-source-7.3 linux-source-7.2)

RUST_TOOLCHAIN=${RUST_TOOLCHAIN:-1.95.0}
BINDGEN_VERSION=${BINDGEN_VERSION:-0.73.2}
LLVM_SUFFIX=-19

# The guest architectures, in one table. A guest is an architecture, with
# a suffix for another kernel configuration of it (ppc64le-acct,
# arm64-bench). Sets karch (the kernel's ARCH), kimage (the image the
# kernel build makes), cross (the C cross-compiler prefix), debarch (the
# Debian architecture) and rtarget (the Rust target).
guest_arch() {
	case $1 in
	ppc64le*)
		karch=powerpc kimage=vmlinux cross=powerpc64le-linux-gnu- debarch=ppc64el
		rtarget=powerpc64le-unknown-linux-gnu
		;;
	arm64*)
		karch=arm64 kimage=arch/arm64/boot/Image cross=aarch64-linux-gnu- debarch=arm64
		rtarget=aarch64-unknown-linux-gnu
		;;
	*) die "unknown guest $1" ;;
	esac
}

# The tools the kernels and modules are built with: the pinned rustc, and
# the bindgen built into the cache.
use_toolchain() {
	export RUSTUP_TOOLCHAIN=$RUST_TOOLCHAIN
	export PATH=$RPMU_CACHE/bindgen-$BINDGEN_VERSION/bin:$PATH
}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }

# retry N CMD...: run CMD up to N times, 10 s apart.
retry() {
	local n=$1 i
	shift
	for ((i = 1; i <= n; i++)); do
		"$@" && return 0
		[ "$i" -lt "$n" ] && { warn "attempt $i/$n failed: $*"; sleep 10; }
	done
	return 1
}

# Short content hash of files (or literal strings passed with -s).
content_hash() {
	{
		for f in "$@"; do
			if [ -f "$f" ]; then cat "$f"; else printf '%s\n' "$f"; fi
		done
	} | sha256sum | cut -c1-12
}

# A private apt configuration: extra suites and foreign architectures without
# touching the host's sources or dpkg's architecture list.
APT_PRIV=$RPMU_CACHE/apt
apt_priv() {
	apt-get -o Dir::Etc::SourceList="$APT_PRIV/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences="$APT_PRIV/preferences" \
		-o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State::Lists="$APT_PRIV/lists" \
		-o Dir::Cache="$APT_PRIV/cache" \
		-o APT::Architectures::=amd64 -o APT::Architectures::=ppc64el \
		-o APT::Architectures::=arm64 \
		-o APT::Sandbox::User=root -o Acquire::Retries=3 "$@"
}

apt_priv_update() {
	mkdir -p "$APT_PRIV/lists/partial" "$APT_PRIV/cache/archives/partial"
	local k=signed-by=/usr/share/keyrings/debian-archive-keyring.gpg
	cat >"$APT_PRIV/sources.list" <<SRC
deb [$k arch=amd64,ppc64el,arm64] http://deb.debian.org/debian bookworm main
deb [$k arch=amd64] http://deb.debian.org/debian bookworm-updates main
deb [$k arch=amd64] http://deb.debian.org/debian-security bookworm-security main
deb [$k arch=amd64] http://deb.debian.org/debian bookworm-backports main
deb [$k arch=amd64] http://deb.debian.org/debian trixie-backports main
deb [$k arch=amd64] http://deb.debian.org/debian sid main
SRC
	# Newer suites are for `apt-get download` of named versions only: pinned
	# to 1 so that no host install ever resolves a dependency from them.
	cat >"$APT_PRIV/preferences" <<PREF
Package: *
Pin: release n=trixie-backports
Pin-Priority: 1

Package: *
Pin: release n=sid
Pin-Priority: 1
PREF
	# An index refused mid-sync is retried; a suite that stays broken only
	# costs its fallbacks.
	retry 3 apt_priv update -q >/dev/null 2>"$APT_PRIV/update.err" ||
		warn "private apt update reported errors: $(tail -n 3 "$APT_PRIV/update.err")"
}

# cached_deb PKG ARCH: the path of Debian's PKG for ARCH, downloaded once into
# $RPMU_CACHE/dl through the private apt configuration (its lists made anew
# if the download fails, as stale lists do). Guests prepared side by side
# (make soak) share it under a lock: two downloads of one file clobber each
# other, and so do two list updates.
cached_deb() {
	local pkg=$1 arch=$2
	mkdir -p "$RPMU_CACHE/dl"
	(
		flock 9
		find_deb() { ls "$RPMU_CACHE"/dl/"$pkg"_*_"$arch".deb 2>/dev/null | head -n1; }
		if [ -z "$(find_deb)" ]; then
			[ -f "$APT_PRIV/sources.list" ] || apt_priv_update
			(cd "$RPMU_CACHE/dl" && apt_priv download -q "$pkg:$arch" >&2) || {
				apt_priv_update
				(cd "$RPMU_CACHE/dl" && retry 3 apt_priv download -q "$pkg:$arch" >&2)
			} || die "cannot download $pkg:$arch"
		fi
		find_deb
	) 9>"$RPMU_CACHE/dl/.lock"
}

# result RC NAME: one check's line, "  ok     NAME" when RC is 0, else
# "  FAILED NAME"; counts it in $passed / $failed (the caller starts them at
# 0 and writes them to build/NAME.counts for sum_counts).
result() {
	if [ "$1" = 0 ]; then echo "  ok     $2"; passed=$((passed + 1)); else echo "  FAILED $2"; failed=$((failed + 1)); fi
}

# sum_counts DIR: adds up the "passed failed" pairs of DIR/*.counts (a
# missing file counts as a failure); sets $passed and $failed.
sum_counts() {
	local f p fl
	passed=0 failed=0
	for f in "$1"/*.counts; do
		[ -e "$f" ] || { failed=$((failed + 1)); continue; }
		read -r p fl <"$f"
		passed=$((passed + p)) failed=$((failed + fl))
	done
}

# The pinned linux-source package (or a fallback), downloaded once.
fetch_source() {
	local pkg deb
	mkdir -p "$RPMU_CACHE/dl"
	for pkg in "$KERNEL_PKG_PIN" "${KERNEL_PKG_FALLBACKS[@]}"; do
		deb=$(ls "$RPMU_CACHE"/dl/"${pkg%%=*}"_*.deb 2>/dev/null | head -n1 || true)
		if [ -z "$deb" ]; then
			[ -f "$APT_PRIV/sources.list" ] || apt_priv_update
			(cd "$RPMU_CACHE/dl" && retry 3 apt_priv download -q "$pkg" >&2) ||
				{ apt_priv_update; (cd "$RPMU_CACHE/dl" && apt_priv download -q "$pkg" >&2); } ||
				{ warn "could not download $pkg"; continue; }
			deb=$(ls "$RPMU_CACHE"/dl/"${pkg%%=*}"_*.deb | head -n1)
		fi
		[ "$pkg" = "$KERNEL_PKG_PIN" ] || warn "using fallback kernel source $(basename "$deb") instead of $KERNEL_PKG_PIN"
		echo "$deb"
		return 0
	done
	die "no linux-source 7.x package could be downloaded"
}


# unpack_source DIR: the kernel source of the package, unpatched, into DIR
# (the archive's file times kept).
unpack_source() {
	local deb=$1 dir=$2
	rm -rf "$dir" "$dir.deb"
	mkdir -p "$dir" "$dir.deb"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir.deb" --wildcards './usr/src/linux-source-*.tar.xz'
	tar -xJf "$dir.deb"/usr/src/linux-source-*.tar.xz -C "$dir" --strip-components=1
	rm -rf "$dir.deb"
}

# clean_source: prints the unpatched source of the pinned kernel, unpacked
# once into the cache.
clean_source() {
	local deb src
	deb=$(fetch_source)
	src=$RPMU_CACHE/src/$(basename "$deb" .deb)-clean
	if [ ! -f "$src/.rpmu-ready" ]; then
		log "unpacking $(basename "$deb")"
		unpack_source "$deb" "$src.tmp"
		mv "$src.tmp" "$src"
		touch "$src/.rpmu-ready"
	fi
	echo "$src"
}

# config_lost CONFIG FRAGMENT...: the fragments' lines (a later one
# overriding an earlier one) that did not survive Kconfig's dependencies in
# CONFIG, "is not set" ones included; nothing if all did.
config_lost() {
	local config=$1 line
	shift
	cat "$@" | awk '
		/^CONFIG_/ { split($0, kv, "="); want[kv[1]] = $0 }
		/^# CONFIG_[A-Z0-9_]* is not set$/ { want[$2] = $2 }
		END { for (k in want) print want[k] }' | while read -r line; do
		case $line in
		*=*) grep -qxF "$line" "$config" || echo "$line" ;;
		*) ! grep -q "^$line=" "$config" || echo "$line (is set)" ;;
		esac
	done
}

# shipped_clean KO: the module carries no test code (no KUnit, kprobe,
# hotplug-control or selftest symbol); prints what it found otherwise.
shipped_clean() {
	local bad
	bad=$(llvm-nm$LLVM_SUFFIX "$1" | grep -Ei 'kunit|kprobe|rpmu_regs_arg|rpmu_on_each_cpu|remove_cpu|add_cpu|create_kernel_counter|selftest' || true)
	[ -z "$bad" ] || { echo "$bad" | head -n 5; return 1; }
}
