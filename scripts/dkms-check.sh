#!/usr/bin/env bash
# Debian's dkms builds the shipped drivers from dkms.conf as on a user's
# machine: `dkms add` of a copy of the tree, then `dkms build` and `dkms
# install` against each test kernel build tree (vpa_dtl on ppc64le, xgene_pmu
# on arm64; cross builds from this host, `-a` naming the target, as `uname
# -m` would there), modinfo of the result, `dkms remove`. Private dkms, source
# and install trees (--dkmstree, --sourcetree, --installtree, --no-depmod):
# the host's /var/lib/dkms, /usr/src and /lib/modules stay as they were, and
# that is checked too. KDIR (ppc64le) / KDIR_ARM64 as in lint.sh. Writes
# build/dkms.counts for `make check`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build
rm -f build/dkms.counts
passed=0 failed=0
command -v dkms >/dev/null || die "dkms is not installed (scripts/setup-host.sh)"

kdir_ppc=${KDIR:-$(timeout 3600 "$RPMU_TOP/scripts/kernel.sh" ppc64le)}
kdir_arm=${KDIR_ARM64:-$(timeout 3600 "$RPMU_TOP/scripts/kernel.sh" arm64)}
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
t=$RPMU_TOP/build/dkms
rm -rf "$t"
mkdir -p "$t/clone" "$t/src" "$t/var" "$t/modules"
trap 'rm -rf "$t"' EXIT
# The tools the test kernels were built with (as in scripts/modules.sh); a
# user's machine has them as its rustc and bindgen.
use_toolchain
# dkms strips the module with `strip -g`; the host's binutils strip reads
# x86 objects only, so llvm-strip takes its place, as a native strip would.
mkdir -p "$t/bin"
ln -s "$(command -v llvm-strip$LLVM_SUFFIX)" "$t/bin/strip"
PATH=$t/bin:$PATH
dk() { # bounded: a build takes 10-60 s here
	timeout 1200 nice -n 19 dkms --dkmstree "$t/var" --sourcetree "$t/src" --installtree "$t/modules" "$@"
}
host_state() { { timeout 120 find /var/lib/dkms /usr/src /lib/modules -maxdepth 3 2>/dev/null || true; } | sort | sha256sum; }
before=$(host_state)
failed_log() { [ "$1" = 0 ] || tail -n 15 "$2" | sed 's/^/    /'; }

set +e
# What a user's clone holds: tracked and untracked files, no build output.
git ls-files -z -co --exclude-standard |
	timeout 120 tar -c --null -T - --ignore-failed-read -f - | timeout 120 tar -x -C "$t/clone"
dk add "$t/clone" >build/dkms-add.log 2>&1
rc=$?
result $rc "dkms add: rust-pmu/$version from a copy of the tree"
failed_log $rc build/dkms-add.log

# The BUILD_EXCLUSIVE directives, against the ppc64le tree: dkms refuses
# (exit 77, which autoinstall skips quietly) an architecture without a
# driver, a kernel before 7.0, a tree without the driver's config.
excluded() { # kernelver arch why
	dk build -m rust-pmu -v "$version" -k "$1" -a "$2" --kernelsourcedir "$kdir_ppc" >build/dkms-exclusive.log 2>&1
	rc=$?
	[ "$rc" = 77 ]
	result $? "dkms build -k $1 -a $2 refused by BUILD_EXCLUSIVE: $3 (exit $rc)"
}
excluded 7.3.4 x86_64 "no driver for x86_64"
excluded 6.12.0 ppc64le "kernel before 7.0"
excluded 7.3.4 aarch64 "no CONFIG_ARM64 in the ppc64le tree"

check_tree() { # guest dkms-arch module license kdir
	local g=$1 a=$2 m=$3 lic=$4 kdir=$5 kver log ko built name license vermagic rc
	kver=$(cat "$kdir/include/config/kernel.release")
	log=build/dkms-$g.log
	dk build -m rust-pmu -v "$version" -k "$kver" -a "$a" --kernelsourcedir "$kdir" -j 1 >"$log" 2>&1
	rc=$?
	result $rc "dkms build -k $kver -a $a against the $g tree"
	# make.log: kept with the module, or in the build directory on failure.
	cat "$t/var/rust-pmu/$version/$kver/$a/log/make.log" "$t/var/rust-pmu/$version/build/make.log" >>"$log" 2>/dev/null
	if [ "$rc" != 0 ]; then
		grep -E '^(error|ERROR|make.*Error)' -A 4 "$log" | head -n 12 | sed 's/^/    /'
		return
	fi
	ko=$t/var/rust-pmu/$version/$kver/$a/module/$m.ko
	# Only the driver: the build log names no test module.
	built=$(grep -ho '[^ ]*\.ko$' "$t/var/rust-pmu/$version/$kver/$a/log/make.log" 2>/dev/null | sort -u | xargs -n1 basename 2>/dev/null | paste -sd ' ')
	[ -f "$ko" ] && [ "$built" = "$m.ko" ]
	result $? "$a: $m.ko built, and no other module (built: ${built:-none})"
	name=$(timeout 60 modinfo -F name "$ko") license=$(timeout 60 modinfo -F license "$ko")
	vermagic=$(timeout 60 modinfo -F vermagic "$ko")
	[ "$name" = "$m" ] && [ "$license" = "$lic" ] && [ "${vermagic%% *}" = "$kver" ]
	result $? "$a: modinfo: name=$name license=\"$license\" vermagic=\"$vermagic\" (tree release $kver)"
	mkdir -p "$t/modules/$kver"
	dk install -m rust-pmu -v "$version" -k "$kver" -a "$a" --kernelsourcedir "$kdir" --no-depmod >>"$log" 2>&1
	rc=$?
	ko=$(timeout 60 find "$t/modules/$kver" -name "$m.ko*" -printf '%P')
	[ "$rc" = 0 ] && [ -n "$ko" ]
	result $? "$a: dkms install --no-depmod puts it in <install tree>/$kver/${ko:-(nothing)}"
	failed_log $rc "$log"
}
check_tree ppc64le ppc64le vpa_dtl GPL "$kdir_ppc"
check_tree arm64 aarch64 xgene_pmu "GPL v2" "$kdir_arm"

dk remove -m rust-pmu -v "$version" --all --no-depmod >build/dkms-remove.log 2>&1
rc=$?
left=$(timeout 60 find "$t/var" "$t/modules" -mindepth 1 -not -type d | wc -l)
[ "$rc" = 0 ] && [ "$left" = 0 ]
result $? "dkms remove --all: nothing left in the dkms and install trees ($left files)"
failed_log $rc build/dkms-remove.log
[ "$(host_state)" = "$before" ]
result $? "the host's /var/lib/dkms, /usr/src and /lib/modules untouched"
set -e
echo "$passed $failed" >build/dkms.counts
