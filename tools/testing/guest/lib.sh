# Guest test helpers. Each test script is one KTAP suite of end-to-end cases;
# KUnit suites of loaded modules are saved from debugfs while the module is
# loaded. results_print emits everything as one KTAP document for the host.

RES=/tmp/results
mkdir -p $RES
nsuite=0

# Suites are stored as $RES/<n>.ktap with their suite line numbered 1; the
# number is fixed when printing.
suite_begin() {
	suite=$1 ncase=0 nsuite=$((nsuite + 1))
	: >"$RES/cases"
	echo "### suite $suite"
}

_case() { # status name
	ncase=$((ncase + 1))
	echo "    $1 $ncase $2" >>"$RES/cases"
	echo "case $1: $2"
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
# program into the current suite; other lines are shown as diagnostics.
ktap_cases() {
	while IFS= read -r line; do
		case $line in
		"ok "*) rest=${line#ok } && _case ok "${rest#* }" ;;
		"not ok "*) rest=${line#not ok } && _case "not ok" "${rest#* }" ;;
		*) echo "      | $line" ;;
		esac
	done
}

suite_end() {
	st=ok
	if grep -q "not ok" "$RES/cases" || [ "$ncase" = 0 ]; then st="not ok"; fi
	{
		echo "    KTAP version 1"
		echo "    # Subtest: $suite"
		echo "    1..$ncase"
		cat "$RES/cases"
		echo "$st 1 $suite"
	} >"$RES/e$nsuite.ktap"
}

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

results_print() {
	dmesg -n 1
	echo "=== RPMU KTAP BEGIN ==="
	echo "KTAP version 1"
	set -- "$RES"/k-*.ktap "$RES"/e*.ktap
	n=0
	for f; do [ -e "$f" ] && n=$((n + 1)); done
	echo "1..$n"
	i=0
	for f; do
		[ -e "$f" ] || continue
		i=$((i + 1))
		sed -E "\$s/^(not ok|ok) 1 /\1 $i /" "$f"
	done
	echo "=== RPMU KTAP END ==="
	echo "=== RPMU DMESG BEGIN ==="
	dmesg
	echo "=== RPMU DMESG END ==="
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
