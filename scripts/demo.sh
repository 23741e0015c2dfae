#!/usr/bin/env bash
# `make demo`: boot QEMU pseries with our vpa_dtl.ko and the simulated
# hypervisor, record with stock perf, decode, and print
# "vpa_dtl demo: injected=N captured=C lost=L"; then summarise the capture
# with dtl-report (tools/dtl_report) on the host: the guest prints its whole
# `perf script` output between "=== DTL SCRIPT BEGIN/END ===" lines, cut out
# here into build/demo.script; the picture goes to build/dtl-report.svg.
# `make demo-kvm` (scripts/demo.sh kvm): the same with the guest under Linux
# KVM-HV (nested), which writes the DTL; it ends with
# "vpa_dtl kvm demo: written=N captured=M lost=L".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build
plan=vpa_dtl_demo done_line='^vpa_dtl demo: injected='
if [ "${1:-}" = kvm ]; then
	plan=vpa_dtl_demo_kvm done_line='^vpa_dtl kvm demo: written='
	export RPMU_NESTED=1
fi
"$RPMU_TOP/tools/testing/run-guest.sh" ppc64le $plan build/demo.log
# Show the guest's demo output (between the suite header and the results),
# less the perf script output it sends for dtl-report.
tr -d '\r' <build/demo.log |
	sed -n "/^### suite $plan\$/,/=== RPMU KTAP BEGIN ===/p" |
	sed '/^=== DTL SCRIPT BEGIN ===$/,/^=== DTL SCRIPT END ===$/d' |
	grep -av '=== RPMU KTAP BEGIN ===\|^\[ *[0-9.]*\] \|^### suite\|^\(not \)\?ok [0-9]* \|^# ' || true
grep -aq "$done_line" build/demo.log || die "the demo did not complete; see build/demo.log"
# The perf script output, less any kernel message that reached the console
# in between (perf script lines never start with "[").
tr -d '\r' <build/demo.log | awk '
	/^=== DTL SCRIPT END ===$/ { if (in_block) done = 1; in_block = 0; next }
	in_block && !/^\[ *[0-9.]+\] / { print }
	/^=== DTL SCRIPT BEGIN ===$/ { in_block = 1 }
	END { exit !done }' >build/demo.script ||
	die "no complete perf script output between the DTL SCRIPT markers in build/demo.log"
echo
echo "== dtl-report build/demo.script (on the host: per-CPU entries, reasons, enqueue-to-dispatch latency)"
cargo "+$RUST_TOOLCHAIN" run --quiet --release -p dtl-report -- --svg build/dtl-report.svg build/demo.script ||
	die "dtl-report failed on build/demo.script"
echo "DTL report picture: build/dtl-report.svg"
