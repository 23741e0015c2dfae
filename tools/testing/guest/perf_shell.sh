# perf's own shell tests, from the same kernel tree as the guest's perf
# (tools/perf/tests/shell, copied by run-guest.sh with Debian's bash-static
# as /bin/bash), run with our PMUs registered and counting: on arm64 the
# X-Gene PMUs on the simulated silicon.
#   stat_all_pmu.sh  perf stat of every event of every PMU, ours included
#   list.sh          perf list -j validated with Python's json.tool; the
#                    guest has no Python, so perf's own script skips (exit 2)
. /t/lib.sh
. /t/xgene_lib.sh
T=/t/perf-tests/shell

ok "insmod xgene_sim.ko (sessions not logged)" timeout 30 insmod $XGSIM log_sessions=0
ok "insmod xgene_pmu.ko" timeout 30 insmod $M/xgene_pmu.ko

# perf_test NAME SECS WHY-IF-SKIPPED: one of perf's scripts; exit 0 passes,
# 2 is perf's "skip" (printed with its reason), anything else fails.
perf_test() {
	timeout "$2" bash $T/$1 >/tmp/$1.out 2>&1
	rc=$?
	echo "      | $1: exit $rc, $(wc -l </tmp/$1.out) lines; last: $(tail -n 1 /tmp/$1.out)"
	case $rc in
	0) _case ok "perf test $1" ;;
	2) xg_skip "perf test $1" "$3 ($(tail -n 1 /tmp/$1.out))" ;;
	*)
		_case "not ok" "perf test $1 (exit $rc)"
		grep -v -- '-- supported$\|-- not supported$' /tmp/$1.out | tail -n 20 | sed 's/^/      | /'
		;;
	esac
}
perf_test stat_all_pmu.sh 900 ""
# The X-Gene events among those it counted: perf lists them by name
# ("read-miss", lower case, once per type), or as "<pmu>/<event>/".
n=$(grep -c '^Testing .*-- supported$' /tmp/stat_all_pmu.sh.out)
x=$(awk 'NR == FNR { ours[tolower($2)] = 1; next }
	/^Testing .* -- supported$/ { e = tolower($2); sub(/^(l3c|iob|iob_slow|mcb|mc)[0-9]+\//, "", e); sub(/\/$/, "", e)
		if (e in ours) x++ } END { print x + 0 }' /t/xgene-desc-v1v2.txt /tmp/stat_all_pmu.sh.out)
echo "      | stat_all_pmu.sh: $n events supported, $x of them events of the X-Gene PMUs"
grep -m 3 'read-miss\|rd-cmd-sent' /tmp/stat_all_pmu.sh.out | sed 's/^/      | /'
ok "stat_all_pmu.sh counted events of the X-Gene PMUs ($x)" test "$x" -gt 0
perf_test list.sh 120 "no Python in the guest (a busybox initramfs): perf list -j is not validated here; xgene_perf checks perf list's descriptions instead"

ok "rmmod xgene_pmu" timeout 30 rmmod xgene_pmu
ok "rmmod xgene_sim" timeout 30 rmmod xgene_sim
