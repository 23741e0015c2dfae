#!/usr/bin/env bash
# Host tests of the harness's own bookkeeping, the parts whose figures
# Documentation/testing.rst quotes: the soak ledger (scripts/soak.sh: which jobs are left, the
# per-PMU and per-arch totals, the closing "N passed, M failed") and the
# kernel-report pattern (tools/testing/report.py), and the guest's suite
# runner (tools/testing/guest/init, lib.sh).
#
# soak.sh runs on a copy of scripts/ in a scratch tree whose ledger is made
# here, with sizes that give 19 jobs: the copy has no setup-host.sh,
# kernel.sh or run-guest.sh, so a case that reached for the tools, a kernel
# or a guest fails.
#
#   tools/testing/harness_test.sh [COUNTS]   prints ok/FAILED lines; writes
#                                            "passed failed" to COUNTS
# (KSRC: the kernel source; by default the ppc64le test kernel's.)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/scripts/lib.sh"
passed=0 failed=0
# The kernel source, for its ktap_helpers.sh (make check passes it).
ksrc=${KSRC:-$(readlink -f "$("$top/scripts/kernel.sh" ppc64le)/source")}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The scratch tree and its soak sizes: 2 fuzzer chunks per PMU, 2 trinity
# chunks per arch.
mkdir -p "$tmp/scripts"
cp "$top/scripts/soak.sh" "$top/scripts/lib.sh" "$tmp/scripts/"
seed=1000
export SOAK_SEED=$seed SOAK_FUZZ_OPS=2 SOAK_CHUNK=1 SOAK_TRINITY_OPS=2 SOAK_TRINITY_CHUNK=1
export RPMU_CACHE=$tmp/cache
led=$tmp/tools/testing/soak/$seed
mkdir -p "$led"
soak() { timeout 60 "$tmp/scripts/soak.sh" "$@" 2>"$tmp/err"; }

# entry NAME PASSED FAILED [FIGURE...]: one ledger entry as record() writes it.
entry() {
	local name=$1 p=$2 f=$3
	shift 3
	{
		echo "counts $p $f"
		echo "commit 0000000"
		echo "date 2026-01-01T00:00Z"
		echo "seconds 1"
		printf '%s\n' "$@"
	} >"$led/$name"
}
entry soak-vpa_dtl 22 0 "SOAK vpa_dtl loads=1000 seconds=5"
entry soak-xgene 12 0 "SOAK xgene loads=1000 seconds=6"
for k in 1 2; do
	entry "fuzz-vpa_dtl-$k" 10 0 "FUZZ pmu=vpa_dtl ops=3 asked=1 seed=$((seed + k)) seconds=$((10 * k)) status=0"
	for p in l3c0 iob0 mcb0 mc0; do
		entry "fuzz-$p-$k" 10 0 "FUZZ pmu=$p ops=7 asked=1 seed=$((seed + k)) seconds=$((100 + k)) status=0"
	done
done
# One chunk that failed its oracle: counted per PMU.
entry fuzz-mc0-2 9 1 "FUZZ pmu=mc0 ops=4 asked=1 seed=1002 seconds=50 status=1"
entry trinity-ppc64le-1 5 0 "TRINITY ops=100 seed=1001 seconds=40 status=0"
entry trinity-ppc64le-2 5 0 "TRINITY ops=100 seed=1002 seconds=60 status=0 pieces=10 livelocks=0"
entry trinity-arm64-1 5 0 "TRINITY ops=100 seed=1001 seconds=30 status=0 pieces=10 livelocks=0"

# A ledger with jobs left.
out=$(soak --status) || true
result "$([ "$(head -n 1 <<<"$out")" = "soak seed $seed: 15 of 19 jobs done; left: trinity-arm64-2 compat bisect-ppc64le bisect-arm64 " ]; echo $?)" \
	"soak --status: what is done and what is left"
result "$(grep -qxF "SOAK total: fuzz vpa_dtl 6 operations in 2 chunks, 30 s (10-20 s a chunk; 0 chunks failed)" <<<"$out"; echo $?)" \
	"soak --status: a PMU's operations, chunks, seconds and range of a chunk's seconds"
result "$(grep -qxF "SOAK total: fuzz mc0 11 operations in 2 chunks, 151 s (50-101 s a chunk; 1 chunks failed)" <<<"$out"; echo $?)" \
	"soak --status: a chunk that failed counts against its PMU only"
result "$(grep -qxF "SOAK total: fuzz l3c0 14 operations in 2 chunks, 203 s (101-102 s a chunk; 0 chunks failed)" <<<"$out"; echo $?)" \
	"soak --status: another PMU's totals are its own"
result "$(grep -qxF "SOAK total: trinity ppc64le 200 syscalls in 2 runs, 100 s (0 failed)" <<<"$out" &&
	grep -qxF "SOAK total: trinity arm64 100 syscalls in 1 runs, 30 s (0 failed)" <<<"$out"; echo $?)" \
	"soak --status: trinity totals per arch, from the job's name"
result "$([ ! -e "$tmp/tools/testing/soak/current" ]; echo $?)" \
	"soak --status records no seed"

# The ledger finished: make soak runs nothing (there is nothing here to
# run it with) and prints the closing line.
entry trinity-arm64-2 5 0 "TRINITY ops=100 seed=1002 seconds=20 status=0 pieces=10 livelocks=0"
entry compat 76 0 "SOAK compat: 76 passed, 0 failed"
entry bisect-ppc64le 19 0
entry bisect-arm64 19 0
rc=0
out=$(soak) || rc=$?
result "$([ "$rc" = 1 ] && [ "$(tail -n 1 <<<"$out")" = "267 passed, 1 failed" ]; echo $?)" \
	"soak with every job done: no setup, no guest, the counts of all jobs, and it fails on a failed job"
# The failed chunk run again, on a new machine (the ledger only, no
# build/soak of its own).
entry fuzz-mc0-2 10 0 "FUZZ pmu=mc0 ops=7 asked=1 seed=1002 seconds=102 status=0"
rm -rf "$tmp/build/soak"
rc=0
out=$(soak) || rc=$?
result "$([ "$rc" = 0 ] && [ "$(tail -n 1 <<<"$out")" = "268 passed, 0 failed" ] &&
	grep -qxF "SOAK total: trinity arm64 200 syscalls in 2 runs, 50 s (0 failed)" <<<"$out"; echo $?)" \
	"soak with every job passed: exit 0, the totals and the closing line"
result "$([ "$(cat "$tmp/tools/testing/soak/current")" = "$seed" ]; echo $?)" \
	"soak records its seed for the next run"

# The kernel-report pattern: the detectors' reports match, a user task's
# own fault does not.
py() { (cd "$top/tools/testing" && python3 -c "import sys, report; sys.exit(0 if report.BAD.search(sys.argv[1]) else 1)" "$1"); }
bad_ok=0
for l in "WARNING: kernel/events/core.c:1234 at perf_event_open+0x10/0x20, CPU#0: pmu_fuzz/86" \
	"BUG: KASAN: slab-use-after-free in perf_mmap_close+0x3c/0x2a0" \
	"UBSAN: shift-out-of-bounds in drivers/perf/xgene.c:10:3" \
	"kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" \
	"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" \
	"rcu: INFO: rcu_preempt self-detected stall on CPU" \
	"rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: {" \
	"\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message." \
	"WARNING: possible circular locking dependency detected"; do
	py "$l" || { echo "  pattern misses: $l"; bad_ok=1; }
done
result "$bad_ok" "report.py: BUG, WARNING, KASAN, UBSAN, kmemleak, RCU stall, hung task and lockdep reports match"
result "$(! py "trinity-c1[4778]: User access of kernel address (101010101001d) - exploit attempt? (uid: 0)"; echo $?)" \
	"report.py: powerpc's note of a user task touching a kernel address (a SIGSEGV) is not a kernel report"

# The guest harness: init's run_suite runs two scripts through lib.sh and
# the kernel tree's ktap_helpers.sh (dash here, busybox sh in the guest).
# One reports from a subshell too, skips one case and fails one; the other
# outlives its timeout.
g=$tmp/guest
mkdir -p "$g"
cp "$top/tools/testing/guest/lib.sh" "$ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh" "$g/"
printf '%s\n' '. "$RPMU_T/lib.sh"' 'ok "one passes" true' 'ok "one fails" false' \
	'_case ok "one skipped # SKIP why"' 'printf "ok 7 a\nnot ok 8 b\n" | ktap_cases' \
	'printf "ok 1 c\n" >/tmp/c.$$; ktap_cases </tmp/c.$$' >"$g/s1.sh"
printf '%s\n' '. "$RPMU_T/lib.sh"' 'ok "before" true' 'sleep 10' 'ok "after" true' >"$g/s2.sh"
sed -n '/^run_suite() {/,/^}/p' "$top/tools/testing/guest/init" >"$g/run.sh"
(
	set +e # as in the guest's init
	cd "$g" && export RPMU_T=$g RES=$g/res RPMU_SUITE_TIMEOUT=2 && mkdir -p "$RES" && . ./run.sh &&
		run_suite 1 s1 && run_suite 2 s2
) >"$g/console" 2>&1
exp1=$'    1..6\n    ok 1 one passes\n    not ok 2 one fails\n    # SKIP: why\n    ok 3 one skipped # SKIP\n    ok 4 a\n    not ok 5 b\n    ok 6 c'
result "$([ "$(sed -n 3,10p "$g/res/e01.ktap")" = "$exp1" ] && grep -q "# Totals: pass:3 fail:2 xfail:0 xpass:0 skip:1" "$g/res/e01.ktap" &&
	[ "$(tail -n 1 "$g/res/e01.ktap")" = "not ok 1 s1" ]; echo $?)" \
	"guest harness: cases numbered in order (subshells included), skips and failures kept, the suite failed"
result "$(grep -qx "    not ok 2 s2.sh ran to its end (timeout 2 s, or killed)" "$g/res/e02.ktap" &&
	! grep -q after "$g/res/e02.ktap"; echo $?)" \
	"guest harness: a script past its timeout is stopped and fails a case"

[ -n "${1:-}" ] && echo "$passed $failed" >"$1"
echo "harness: $passed passed, $failed failed"
[ "$failed" = 0 ]
