# Guest test helpers, sourced by each test script (/t/NAME.sh). A script is
# one suite of end-to-end cases, and runs alone (sh /t/NAME.sh) or as init's
# child with its own timeout. Its cases are KTAP test lines made by the
# kernel tree's ktap_helpers.sh (copied to /t), printed and, when init runs
# it, also appended to $KTAP_OUT; other output is for the console. KUnit
# suites of loaded modules are saved from debugfs while the module is
# loaded (kunit_save).

# RPMU_T: where the scripts are (/t in the guest; the host's harness test
# runs them elsewhere).
. "${RPMU_T:-/t}/ktap_helpers.sh"
RES=/tmp/results
mkdir -p $RES

# The suite's KTAP lines (init names the file; a script run alone keeps
# its own). The test number and the totals are counted from it, so a case
# reported from a subshell (a pipeline, a command substitution) counts too.
KTAP_OUT=${KTAP_OUT:-/tmp/ktap-$$.out}
touch "$KTAP_OUT"

# _emit FUNCTION ARGS...: a ktap_helpers.sh function, its line printed and
# appended to $KTAP_OUT. No globbing: ktap_helpers.sh echoes unquoted.
_emit() {
	KTAP_TESTNO=$(($(grep -cE '^(not )?ok [0-9]+ ' "$KTAP_OUT") + 1))
	set -f
	"$@" >/tmp/ktap-$$.line
	set +f
	cat /tmp/ktap-$$.line
	cat /tmp/ktap-$$.line >>"$KTAP_OUT"
}

# _case ok|"not ok" NAME: one case; a NAME ending "# SKIP why" is skipped.
_case() {
	case "$1:$2" in
	"ok:"*"# SKIP"*)
		_emit ktap_print_msg "SKIP: ${2#*# SKIP }"
		_emit ktap_test_skip "${2%% # SKIP*}"
		;;
	"ok:"*) _emit ktap_test_pass "$2" ;;
	*) _emit ktap_test_fail "$2" ;;
	esac
}

# ok NAME CMD...: one case, passing if CMD succeeds.
ok() {
	name=$1
	shift
	if "$@" >/tmp/case.out 2>&1; then
		_case ok "$name"
	else
		_case "not ok" "$name"
		sed 's/^/      | /' /tmp/case.out | tail -n 30
	fi
}

# ktap_cases: fold "ok N name" / "not ok N name" lines printed by a test
# program into this suite; other lines are shown as diagnostics.
ktap_cases() {
	while IFS= read -r line; do
		case $line in
		"ok "*) rest=${line#ok } && _case ok "${rest#* }" ;;
		"not ok "*) rest=${line#not ok } && _case "not ok" "${rest#* }" ;;
		*) echo "      | $line" ;;
		esac
	done
}

# The end of a script (EXIT trap): the totals line, which tells init that
# the script ran to its end.
_totals() {
	KTAP_CNT_SKIP=$(grep -cE '^ok [0-9]+ .*# SKIP' "$KTAP_OUT")
	KTAP_CNT_PASS=$(($(grep -cE '^ok [0-9]+ ' "$KTAP_OUT") - KTAP_CNT_SKIP))
	KTAP_CNT_FAIL=$(grep -cE '^not ok [0-9]+ ' "$KTAP_OUT")
	_emit ktap_print_totals
}
trap _totals EXIT

# kunit_save SUITE: keep the KUnit results of SUITE (run when its module was
# loaded), before the module goes away with its debugfs files.
kunit_save() {
	f=/sys/kernel/debug/kunit/$1/results
	if [ -r "$f" ]; then
		sed -e '1,2d' "$f" >"$RES/k-$1.ktap"
	else
		printf '    KTAP version 1\n    # Subtest: %s\n    1..1\n    not ok 1 results_missing\nnot ok 1 %s\n' \
			"$1" "$1" >"$RES/k-$1.ktap"
	fi
}

# meminfo_kb FIELD
meminfo_kb() { awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo; }

# hold_start OUT ARGS...: run `pmu_open ARGS...` (a "hold" mode) in the
# background until it prints "holding" (at most 2 s); its pid is $holder.
hold_start() {
	out=$1
	shift
	/t/pmu_open "$@" >"$out" 2>&1 &
	holder=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q holding "$out" && break; sleep 0.2; done
}
hold_stop() {
	kill $holder
	wait $holder 2>/dev/null
}

# leak_cycles N WHAT: run the caller's `cycle` function once, clear
# kmemleak, run it N more times and check that a scan finds nothing.
# kmemleak does not report objects younger than 5 s, hence the wait; the
# second scan settles objects the first one only saw as candidates.
leak_cycles() {
	local n=$1 i K=/sys/kernel/debug/kmemleak
	ok "kmemleak available (CONFIG_DEBUG_KMEMLEAK)" test -w $K
	cycle
	echo clear >$K
	i=0
	while [ $i -lt "$n" ] && cycle; do i=$((i + 1)); done
	ok "$n $2 cycles" test $i = "$n"
	sleep 6
	echo scan >$K
	echo scan >$K
	cat $K >/tmp/leaks
	head -n 40 /tmp/leaks
	ok "kmemleak: nothing leaked by the cycles" test ! -s /tmp/leaks
}

# insmod_driver KO [ARGS...]: load a shipped driver and check that loading it
# changes nothing beyond registering its PMUs: no test runs (no KTAP in the
# log) and no taint other than O (out of tree) and E (unsigned).
insmod_driver() {
	ko=$1
	t0=$(cat /proc/sys/kernel/tainted) l0=$(dmesg | wc -l)
	ok "insmod ${ko##*/}" insmod "$@"
	t1=$(cat /proc/sys/kernel/tainted)
	dmesg | tail -n +$((l0 + 1)) >/tmp/insmod.dmesg
	ok "${ko##*/}: insmod printed no KTAP (no test in the driver)" \
		sh -c '! grep -q "KTAP\|# Subtest\|ok 1 " /tmp/insmod.dmesg'
	ok "${ko##*/}: insmod tainted nothing beyond O/E (was $t0, now $t1)" \
		test $(((t1 & ~t0) & ~(4096 | 8192))) = 0
}

# fuzz_run PMU KIND [ARGS...]: the stateful fuzzer (tools/testing/pmu_fuzz)
# on PMU for FUZZ_OPS operations from seed FUZZ_SEED (kernel command line;
# make check: 100000 and 1). Its coverage summary is shown; a failure shows
# the last operations and the replay command.
fuzz_run() {
	pmu=$1 kind=$2
	shift 2
	fops=${FUZZ_OPS:-100000} fseed=${FUZZ_SEED:-1}
	t0=$(date +%s)
	timeout "${FUZZ_TIMEOUT:-1800}" /t/pmu_fuzz --pmu "$pmu" --kind "$kind" --seed "$fseed" --ops "$fops" \
		--log /tmp/fuzz-$pmu.log "$@" >/tmp/fuzz-$pmu.out 2>&1
	rc=$?
	sed 's/^/      | /' /tmp/fuzz-$pmu.out
	# The operations made: all asked for, or up to the failing one.
	fdone=$(sed -n 's/^pmu_fuzz: ok .* ops=\([0-9]*\) in .*/\1/p; s/^pmu_fuzz: FAIL .* at op \([0-9]*\):.*/\1/p' \
		/tmp/fuzz-$pmu.out | tail -n 1)
	echo "FUZZ pmu=$pmu ops=${fdone:-0} asked=$fops seed=$fseed seconds=$(($(date +%s) - t0)) status=$rc"
	if [ $rc = 0 ]; then
		_case ok "fuzz $pmu: $fops operations from seed $fseed within the contract"
	else
		case $(uname -m) in ppc64le) g=ppc64le ;; *) g=arm64 ;; esac
		echo "FUZZ replay from the host: ${RPMU_DTSI_HINT:-}tools/testing/run-guest.sh $g $suite" \
			"build/replay.log 'FUZZ_OPS=$fops FUZZ_SEED=$fseed FUZZ_PMUS=$pmu'"
		_case "not ok" "fuzz $pmu: $fops operations from seed $fseed within the contract (status $rc)"
	fi
}
