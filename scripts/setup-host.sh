#!/usr/bin/env bash
# Install what the build and the tests need on a Debian 12 host: LLVM 19,
# cross compilers, QEMU 10 from bookworm-backports, UEFI firmware and iasl
# (the ACPI boots), dkms (scripts/dkms-check.sh), Sphinx (the documentation
# check of lint.sh), the pinned Rust toolchain with rust-src, and bindgen.
# Idempotent: a second run only checks.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

host_pkgs=(clang-19 lld-19 llvm-19 libclang-19-dev bc bison flex libelf-dev libssl-dev
	cpio xz-utils gzip make gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross device-tree-compiler rsync kmod mmdebstrap
	python3 file acpica-tools qemu-efi-aarch64)
# Without their recommends: dkms would bring the host's own kernel headers
# (linux-headers-amd64), which no check uses.
norec_pkgs=(dkms python3-sphinx)
not_installed() { # package... -> those not installed
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
	done
}
mapfile -t missing < <(not_installed "${host_pkgs[@]}")
mapfile -t missing_norec < <(not_installed "${norec_pkgs[@]}")
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_norec[@]} -gt 0 ]; then
	log "installing ${missing[*]} ${missing_norec[*]}"
	retry 3 $SUDO apt-get update -q >/dev/null
	[ ${#missing[@]} = 0 ] || retry 3 $SUDO apt-get install -y -q "${missing[@]}" >/dev/null
	[ ${#missing_norec[@]} = 0 ] ||
		retry 3 $SUDO apt-get install -y -q --no-install-recommends "${missing_norec[@]}" >/dev/null
fi

# QEMU: bookworm's 7.2 conflicts with the host's qemu-utils 10 from
# bookworm-backports, so take qemu-system from there (private apt config).
if ! command -v qemu-system-ppc64 >/dev/null || ! command -v qemu-system-aarch64 >/dev/null; then
	log "installing qemu-system-ppc and qemu-system-arm from bookworm-backports"
	apt_priv_update
	retry 3 $SUDO env DEBIAN_FRONTEND=noninteractive \
		apt-get -o Dir::Etc::SourceList="$APT_PRIV/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences="$APT_PRIV/preferences" -o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State::Lists="$APT_PRIV/lists" -o Dir::Cache="$APT_PRIV/cache" \
		-o APT::Sandbox::User=root \
		install -y -q -t bookworm-backports qemu-system-ppc qemu-system-arm >/dev/null
fi

# Rust: the pinned toolchain (Linux 7.3 needs rustc >= 1.95 on powerpc) with
# the standard library sources the kernel build compiles core from.
command -v rustup >/dev/null || die "rustup is required (https://rustup.rs)"
if ! rustup run "$RUST_TOOLCHAIN" rustc --version >/dev/null 2>&1 ||
	! rustup component list --toolchain "$RUST_TOOLCHAIN" --installed | grep -q rust-src; then
	log "installing Rust $RUST_TOOLCHAIN with rust-src, rustfmt, clippy"
	retry 3 rustup toolchain install "$RUST_TOOLCHAIN" --profile minimal \
		-c rust-src,rustfmt,clippy >/dev/null
fi

# Standard libraries for the guest-side test programs written in Rust.
for t in powerpc64le-unknown-linux-gnu aarch64-unknown-linux-gnu; do
	rustup target list --toolchain "$RUST_TOOLCHAIN" --installed | grep -qx "$t" ||
		retry 3 rustup target add --toolchain "$RUST_TOOLCHAIN" "$t" >/dev/null
done

bindgen_root=$RPMU_CACHE/bindgen-$BINDGEN_VERSION
if [ ! -x "$bindgen_root/bin/bindgen" ]; then
	log "building bindgen-cli $BINDGEN_VERSION (about a minute)"
	retry 2 cargo "+$RUST_TOOLCHAIN" install --locked bindgen-cli --version "$BINDGEN_VERSION" \
		--root "$bindgen_root" >/dev/null 2>"$RPMU_CACHE/bindgen-install.log" ||
		die "bindgen install failed; see $RPMU_CACHE/bindgen-install.log"
fi
log "host ready"
