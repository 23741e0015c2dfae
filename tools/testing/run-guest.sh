#!/usr/bin/env bash
# Boot the test kernel in QEMU with the project's modules and guest tests.
#   tools/testing/run-guest.sh ppc64le|ppc64le-acct|arm64 PLAN LOG [extra kernel args]
# (ppc64le-acct: the pseries kernel with native cputime accounting;
# RPMU_NESTED=1: a pseries guest run under Linux KVM-HV, see below).
# PLAN is a comma-separated list of tools/testing/guest/<name>.sh scripts.
# Builds whatever is missing (kernel, perf, modules), packs an initramfs,
# boots with a timeout and writes the console to LOG.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/scripts/lib.sh"

guest=${1:?usage: run-guest.sh ppc64le|ppc64le-acct|arm64 PLAN LOG [args]}
plan=${2:?plan}
logf=${3:?log file}
extra=${4:-}
timeout_s=${RPMU_GUEST_TIMEOUT:-600}

"$top/scripts/setup-host.sh"
kdir=${RPMU_KDIR:-$("$top/scripts/kernel.sh" "$guest")}
src=$(readlink -f "$kdir/source")
# RPMU_PERF_SRC: the source perf is built from, when the kernel's is a copy
# of it (scripts/series-check.sh boots the series' tree with the test
# kernel's perf).
perf=$("$top/scripts/guest-perf.sh" "${guest%-acct}" "${RPMU_PERF_SRC:-$src}")

guest_arch "$guest"
case $karch in
powerpc) qemu=(qemu-system-ppc64 -M pseries -cpu power9 -m 2G -smp 2) console=hvc0 ;;
arm64) qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1G -smp 2) console=ttyAMA0 ;;
esac
qemu+=(-kernel "$kdir/$kimage")

# Modules: rebuilt from clean whenever the kernel build changes.
moddir=$("$top/scripts/modules.sh" "$kdir" "$karch")

# One work directory per log, so runs for different logs can go in parallel.
work=$top/build/guest-$(basename "$logf" .log)
rm -rf "$work/root"
mkdir -p "$work/root"/{bin,t,lib/modules/rpmu}
bb=$(cached_deb busybox-static "$debarch")
dpkg-deb --fsys-tarfile "$bb" | tar -x -O ./bin/busybox >"$work/root/bin/busybox"
chmod +x "$work/root/bin/busybox"
ln -s busybox "$work/root/bin/sh"
cp "$perf" "$work/root/bin/perf"
install -m 0755 "$top/tools/testing/guest/init" "$work/root/init"
cp "$top"/tools/testing/guest/*.sh "$src/tools/testing/selftests/kselftest/ktap_helpers.sh" "$work/root/t/"
for prog in pmu_open pmu_edge; do
	"${cross}gcc" -static -O2 -Wall -Werror -o "$work/root/t/$prog" "$top/tools/testing/guest/$prog.c"
done
# Static Rust programs for the guest: the fuzzer, and (pseries) the DTL
# capture checker.
rprogs=(pmu-fuzz:pmu_fuzz)
[ "$karch" = powerpc ] && rprogs+=(dtl-check:dtl_check)
tvar=CARGO_TARGET_$(echo "$rtarget" | tr a-z- A-Z_)_LINKER
for p in "${rprogs[@]}"; do
	env "$tvar=${cross}gcc" RUSTFLAGS="-C target-feature=+crt-static" \
		cargo "+$RUST_TOOLCHAIN" build --quiet --release --target "$rtarget" \
		--manifest-path "$top/Cargo.toml" -p "${p%%:*}" --target-dir "$top/build/target" >&2
	cp "$top/build/target/$rtarget/release/${p#*:}" "$work/root/t/"
done
# Debian's trinity (a second, independent syscall fuzzer) and the C library
# it links against, for plans that run it.
case ,$plan, in
*,trinity,*)
	for pkg in trinity libc6 libgcc-s1; do
		deb=$(cached_deb "$pkg" "$debarch")
		dpkg-deb -x "$deb" "$work/root"
	done
	rm -rf "$work/root/usr/share"
	;;
esac
# perf's own shell tests (tools/perf/tests/shell of the same tree as the
# guest's perf) and Debian's static bash for them, for plans that run them.
case ,$plan, in
*,perf_shell,*)
	mkdir -p "$work/root/t/perf-tests/shell/lib"
	cp "$src"/tools/perf/tests/shell/{stat_all_pmu.sh,list.sh} "$work/root/t/perf-tests/shell/"
	cp "$src"/tools/perf/tests/shell/lib/setup_python.sh "$work/root/t/perf-tests/shell/lib/"
	deb=$(cached_deb bash-static "$debarch")
	dpkg-deb --fsys-tarfile "$deb" | tar -x -O ./bin/bash-static >"$work/root/bin/bash"
	chmod +x "$work/root/bin/bash"
	;;
*,xgene_bench,*)
	# perf as 7.3.4 ships it (with the X-Gene tables), beside the guest's
	# perf with patches/perf: its start-up with and without those fixes.
	cp "$(RPMU_STOCK_PERF=1 "$top/scripts/guest-perf.sh" "$guest" "$src")" "$work/root/t/perf-stock"
	;;
esac
# The X-Gene event tables, for the guest-side comparisons.
for v in v1v2 v3; do
	python3 "$top/scripts/xgene_events.py" text $v >"$work/root/t/xgene-events-$v.txt"
	python3 "$top/scripts/xgene_events.py" desc $v >"$work/root/t/xgene-desc-$v.txt"
done
find "$moddir" -name '*.ko' -exec cp {} "$work/root/lib/modules/rpmu/" \;
# RPMU_EXTRA_KO: more modules for the guest (the in-tree drivers of the
# series check), space-separated paths.
for ko in ${RPMU_EXTRA_KO:-}; do cp "$ko" "$work/root/lib/modules/rpmu/"; done
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

# arm64: optionally boot through UEFI with ACPI, the simulated X-Gene PMU
# (RPMU_ACPI=1|2|3: its version) described by an SSDT that the kernel
# installs from an uncompressed cpio in front of the initrd
# (CONFIG_ACPI_TABLE_UPGRADE); its register windows in RAM kept from the
# kernel with mem=1G, which the guest scripts pass to xgene_sim.
acpi_args=
if [ "$guest" = arm64 ] && [ -n "${RPMU_ACPI:-}" ]; then
	read -r regs ram_start ram_size < <(python3 "$top/tools/testing/xgene/make-acpi.py" "$RPMU_ACPI" "$work/acpi")
	cat "$work/acpi/acpi.cpio" "$work/initrd.gz" >"$work/initrd-acpi"
	mv "$work/initrd-acpi" "$work/initrd.gz"
	qemu=("${qemu[@]/#1G/2G}" -bios /usr/share/qemu-efi-aarch64/QEMU_EFI.fd
		-device "loader,file=$work/acpi/regs.bin,addr=$regs,force-raw=on")
	acpi_args="acpi=force mem=1G XGENE_ACPI_RAM=$ram_start,$ram_size"
fi

# The test kernels carry upstream C drivers as references (pseries: vpa-dtl;
# arm64: xgene_pmu, built in); keep them out of the way unless a run asks for
# them (RPMU_C_REFERENCE=1). A reference run tells the guest scripts so
# through init's environment (kernel command line words with '=' and no '.').
ref=
if [ "${RPMU_C_REFERENCE:-0}" != 1 ]; then
	[ "$karch" = powerpc ] && ref=initcall_blacklist=vpa_dtl_init
	[ "$guest" = arm64 ] && ref=initcall_blacklist=xgene_pmu_driver_init
elif [ "$guest" = arm64 ]; then
	ref="XGENE_DRIVER=builtin XGENE_REFERENCE=1"
fi
# arm64: optionally boot with QEMU virt's device tree extended by a fragment
# (RPMU_DTSI, e.g. tools/testing/xgene/xgene-v2.dtsi: simulated X-Gene PMU).
if [ "$guest" = arm64 ] && [ -n "${RPMU_DTSI:-}" ]; then
	"$top/tools/testing/xgene/make-dtb.sh" "$RPMU_DTSI" "$work/guest.dtb" "${qemu[@]:1}"
	qemu+=(-dtb "$work/guest.dtb")
	# The X-Gene discovery registers' reset values, in guest RAM before the
	# kernel starts (a built-in driver reads them at boot).
	if grep -q 'apm,xgene-pmu' "$RPMU_DTSI"; then
		regs=$(python3 "$top/tools/testing/xgene/make-regs.py" "$work/guest.dtb" "$work/xgene-regs.bin")
		qemu+=(-device "loader,file=$work/xgene-regs.bin,addr=$regs,force-raw=on")
	fi
fi

# RPMU_PREPARE_ONLY=1: build and fetch everything (kernel, perf, modules,
# busybox, tools), then stop before booting.
[ "${RPMU_PREPARE_ONLY:-0}" = 1 ] && exit 0

# The kernel log is kept whole (the simulators log a line per session, and a
# report that scrolled out of the ring would go unseen) and only warnings
# reach the slow emulated console; the guest prints the log at the end.
cmdline="console=$console rpmu.plan=$plan panic=-1 log_buf_len=${RPMU_LOG_BUF:-64M} loglevel=5 $ref $acpi_args $extra"
# RPMU_NESTED=1 (pseries): the guest runs as L2 under Linux KVM-HV, which
# writes its DTL. L0 is QEMU pseries (TCG, cap-nested-hv); L1 the KVM-HV host
# kernel (kernel.sh ppc64le-kvmhost) with Debian's ppc64el QEMU
# (l1-userspace.sh) and tools/testing/guest/l1-init; L2 this guest, with its
# kernel, initramfs and command line, and its console passed through L1's.
# RPMU_L1_HOG=0,1: L1 CPUs kept busy beside L2's vCPUs (stolen time).
initrd=$work/initrd.gz
if [ "${RPMU_NESTED:-0}" = 1 ]; then
	[ "$karch" = powerpc ] || die "RPMU_NESTED needs a pseries guest"
	l1k=$("$top/scripts/kernel.sh" ppc64le-kvmhost)
	l1root=$("$top/scripts/l1-userspace.sh")
	rm -rf "$work/l1" && mkdir -p "$work/l1"
	cp -a "$l1root/." "$work/l1/"
	mkdir -p "$work/l1/l2"
	install -m 0755 "$top/tools/testing/guest/l1-init" "$work/l1/init"
	cp "$kdir/vmlinux" "$work/l1/l2/vmlinux"
	cp "$work/initrd.gz" "$work/l1/l2/initrd.gz"
	echo "$cmdline" >"$work/l1/l2/cmdline"
	echo "${RPMU_L2_MEM:-1536M}" >"$work/l1/l2/mem"
	echo "${RPMU_L1_HOG:-}" >"$work/l1/l2/hog"
	(cd "$work/l1" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/l1-initrd.gz"
	initrd=$work/l1-initrd.gz
	qemu=(qemu-system-ppc64 -M pseries,cap-nested-hv=on -cpu power9 -m 4G -smp 2 -kernel "$l1k/vmlinux")
	cmdline="console=hvc0 panic=-1 loglevel=5"
	guest="$guest (L2 under KVM-HV)"
fi
log "booting $guest: plan $plan (timeout ${timeout_s}s)"
set +e
# RPMU_QEMU_ARGS: more QEMU options (make bench: -icount).
# shellcheck disable=SC2086 # word-split options
timeout --foreground "$timeout_s" "${qemu[@]}" ${RPMU_QEMU_ARGS:-} -nographic -no-reboot \
	-initrd "$initrd" -append "$cmdline" </dev/null >"$logf" 2>&1
rc=$?
set -e
[ $rc = 124 ] && warn "guest timed out after ${timeout_s}s"
exit 0
