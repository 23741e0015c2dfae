#!/usr/bin/env bash
# `make lint`: rustfmt (the kernel's .rustfmt.toml), the generated X-Gene
# event lists in Documentation/ up to date, the ABI files, the documentation
# built with Sphinx (warnings as errors), and clippy through the kernel's
# CLIPPY=1 over every module, and the compile-fail cases of rust/rpmu
# (tools/testing/compile_fail). With KDIR (ppc64le) / KDIR_ARM64 unset, uses
# the cached test kernels. Writes build/lint.counts for `make check`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$RPMU_TOP"
mkdir -p build
kdir=${KDIR:-$("$RPMU_TOP/scripts/kernel.sh" ppc64le)}
passed=0 failed=0

set +e
rustfmt "+$RUST_TOOLCHAIN" --edition 2021 --check $(git ls-files '*.rs') >build/rustfmt.log 2>&1
result $? "rustfmt --check"
# The X-Gene event lists in the documentation are generated from the JSON.
python3 scripts/xgene_events.py rst | cmp -s - Documentation/xgene-pmu-events.rst
result $? "Documentation/xgene-pmu-events.rst up to date (scripts/xgene_events.py rst)"
# The shape the abstraction issue set: no `unsafe` in drivers, no blanket
# lint allowances, no `static mut`, no file over 500 lines in rust/ or
# drivers/ (one concern per file).
! git grep -nE '\bunsafe\b' -- 'drivers/*.rs' >build/unsafe.log
result $? "no unsafe in drivers/ ($(wc -l <build/unsafe.log) hits)"
kmods=(rust drivers tools/testing/dtl_sim tools/testing/xgene_sim tools/testing/rpmu_kunit)
! git grep -nE '#!?\[allow\([^]]*(dead_code|unreachable_pub)' -- "${kmods[@]}" >build/allow.log
result $? "no dead_code/unreachable_pub allowances in kernel code ($(wc -l <build/allow.log) hits)"
! git grep -nE '\bstatic mut\b' -- "${kmods[@]}" >build/staticmut.log
result $? "no static mut ($(wc -l <build/staticmut.log) hits)"
git ls-files rust drivers | grep -E '\.(rs|c|h)$' | xargs wc -l | awk '$2 != "total" && $1 > 500' >build/long.log
! test -s build/long.log
result $? "no source file in rust/ or drivers/ over 500 lines ($(wc -l <build/long.log) over)"
# No circle between the files of a driver (shared state lives below its
# users), and the DTL library knows nothing of perf (the driver connects
# the two).
python3 scripts/modgraph.py drivers/perf/*/ >build/modgraph.log
result $? "no circle between the files of a driver (scripts/modgraph.py)"
! git grep -nE '\bperf::' -- 'rust/rpmu/pseries/*.rs' >build/dtl_perf.log
result $? "rust/rpmu/pseries does not use rpmu::perf ($(wc -l <build/dtl_perf.log) hits)"
for f in build/unsafe.log build/allow.log build/staticmut.log build/long.log build/dtl_perf.log; do
	head -n 5 "$f"
done
grep -h circle build/modgraph.log
# The sysfs ABI files, parsed by the kernel tree's own ABI tool (it reports
# malformed entries as warnings and still exits 0).
abi_src=$(readlink -f "$kdir/source")
python3 "$abi_src/tools/docs/get_abi.py" -D Documentation/ABI validate >build/abi.log 2>&1
rc=$?
grep -q "WARNING\|ERROR\|Traceback" build/abi.log && rc=1
result $rc "Documentation/ABI/testing files valid (kernel tools/docs/get_abi.py validate)"
head -n 5 build/abi.log

# The documentation builds with Sphinx, warnings as errors. Documentation/ is
# laid out for the kernel's tree, whose own conf.py and subsystem indexes take
# such files in, so it stays RST only: the stand-ins are generated here, a
# minimal conf.py and an index whose toctree takes every document
# (xgene-pmu-events.rst only as xgene-pmu.rst's include; the ABI files,
# validated above, are not RST and are not copied).
doc=build/sphinx
rm -rf "$doc" && mkdir -p "$doc/src"
cp Documentation/*.rst "$doc/src/"
printf '%s\n' 'project = "rust-pmu"' 'exclude_patterns = ["xgene-pmu-events.rst"]' >"$doc/src/conf.py"
printf '%s\n' rust-pmu ======== '' '.. toctree::' '   :glob:' '' '   *' >"$doc/src/index.rst"
timeout 300 sphinx-build -q -W --keep-going -b html "$doc/src" "$doc/html" 2>&1 |
	sed "s|$RPMU_TOP/$doc/src/|Documentation/|" >build/sphinx.log
result "${PIPESTATUS[0]}" "Documentation/*.rst build with Sphinx, warnings as errors ($(grep -c ': \(WARNING\|ERROR\)' build/sphinx.log) reported)"
grep ': \(WARNING\|ERROR\)' build/sphinx.log | head -n 10

# Clippy builds in a scratch copy, so the test build stays as it is: the
# pseries modules against the ppc64le kernel, the X-Gene ones against arm64.
clippy() { # name kdir arch
	local out=$RPMU_TOP/build/clippy-$1 rc n
	rm -rf "$out" && mkdir -p "$out"
	rsync -a --exclude /build --exclude /target --exclude .git "$RPMU_TOP/" "$out/"
	(use_toolchain && make -C "$2" M="$out" ARCH="$3" LLVM="$LLVM_SUFFIX" CLIPPY=1 -j"$(nproc)" modules) \
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

# Misuses of rust/rpmu that must not compile (tools/testing/compile_fail),
# each counted as a case.
timeout 1200 tools/testing/compile_fail/run.sh "$kdir" powerpc build/compile_fail.counts \
	>build/compile_fail.log 2>&1 || true
[ -s build/compile_fail.counts ] || echo "0 1" >build/compile_fail.counts
sed -n 's/^ok [0-9]* /  ok     compile-fail: /p; s/^not ok [0-9]* /  FAILED compile-fail: /p' build/compile_fail.log
grep '^#' build/compile_fail.log | grep -v '^# Totals' | head -n 10 || true
set -e
echo "$passed $failed" >build/lint.counts
