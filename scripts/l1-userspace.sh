#!/usr/bin/env bash
# The userspace of the nested KVM-HV setup's L1 (run-guest.sh
# RPMU_NESTED=1): Debian bookworm's ppc64el QEMU with its libraries and a
# static busybox, unpacked without running anything (mmdebstrap
# --variant=extract) and trimmed, cached by suite and package list. Prints
# the root directory.
#   scripts/l1-userspace.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
suite=bookworm
pkgs=qemu-system-ppc,busybox-static,libc6
out=$RPMU_CACHE/l1/$suite-$(content_hash -s "$suite $pkgs")
if [ ! -f "$out/.rpmu-ready" ]; then
	log "L1 userspace: $pkgs from $suite (ppc64el), unpacked"
	rm -rf "$out" && mkdir -p "$out/root"
	timeout 900 mmdebstrap --variant=extract --mode=unshare --architectures=ppc64el \
		--include="$pkgs" --skip=check/qemu "$suite" "$out/root.tar" \
		"deb http://deb.debian.org/debian $suite main" >&2
	tar -xf "$out/root.tar" -C "$out/root"
	rm "$out/root.tar"
	# Not needed to run qemu-system-ppc64 -M pseries -nographic: documents,
	# locales, the other machines' firmware and keymaps.
	rm -rf "$out/root"/usr/share/{doc,man,locale,info,lintian} "$out/root/usr/share/qemu/keymaps"
	find "$out/root/usr/share/qemu" -maxdepth 1 -type f ! -name 'slof.bin' ! -name 'spapr-rtas.bin' \
		! -name 'vof*.bin' -delete
	touch "$out/.rpmu-ready"
fi
echo "$out/root"
