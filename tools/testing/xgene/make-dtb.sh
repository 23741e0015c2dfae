#!/usr/bin/env bash
# Build the device tree of QEMU virt extended with a simulated X-Gene PMU:
#   make-dtb.sh <fragment.dtsi> <out.dtb> <qemu machine args...>
# QEMU dumps the tree it generates for exactly these machine args; the
# fragment is added to its root node and the result compiled back.
set -euo pipefail
frag=${1:?fragment}
out=${2:?output dtb}
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
qemu-system-aarch64 "$@" -machine "dumpdtb=$tmp/virt.dtb" -nographic >/dev/null 2>&1
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
# Insert the fragment before the root node's closing brace (the last line).
{ sed '$d' "$tmp/virt.dts"; cat "$frag"; echo "};"; } >"$tmp/xgene.dts"
dtc -q -I dts -O dtb -o "$out" "$tmp/xgene.dts"
