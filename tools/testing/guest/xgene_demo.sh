# `make demo-xgene`: our xgene_pmu.ko on simulated X-Gene silicon, stock
# perf stat, every count against the model's tally. Ends with
# "xgene demo: events=E matched=M" (X-Gene 2, device tree), or on an ACPI
# boot (`make demo-xgene XGENE=3`) "xgene demo: firmware=acpi version=V
# events=E matched=M".
# XGENE_KO names the driver's module file (default xgene_pmu.ko; the
# series check boots the in-tree xgene_pmu_rust.ko).
. /t/lib.sh
. /t/xgene_lib.sh
ko=${XGENE_KO:-xgene_pmu.ko}

ok "insmod xgene_sim.ko (simulated silicon)" timeout 30 insmod $XGSIM
ok "insmod $ko" timeout 30 insmod $M/$ko
echo
echo "== PMUs registered by $ko =="
dmesg | grep 'xgene_pmu' | grep -v 'loading out-of-tree\|command line\|initcall' | sed 's/^\[[ 0-9.]*\] /  /'
echo
echo "== /sys/bus/event_source/devices/l3c0 =="
(cd $D/l3c0 && for f in cpumask format/*; do echo "  $f: $(cat $f)"; done)
echo "  events: $(ls $D/l3c0/events | tr '\n' ' ')"
echo
echo "== perf list: L3C events, described by the event tables (drivers/perf/xgene/events) =="
COLUMNS=200 perf list 2>/dev/null | grep -A1 -E '^  (read-hit|read-miss)$' | grep -v '^--' | head -n 4
echo
echo "== perf stat -a -M xgene_l3c_read_miss_ratio sleep 1 (a metric of those tables) =="
timeout $PERF_T perf stat -a -M xgene_l3c_read_miss_ratio sleep 1 2>&1 | grep -E 'read-(hit|miss)|miss_ratio'
echo

events=0 matched=0
# demo_stat "SPEC..." SECONDS: perf stat, then each count against the tally.
demo_stat() {
	specs=$1
	xg_reset
	echo "== perf stat -a -e $(echo $specs | tr ' ' ',') sleep $2 =="
	xg_stat_run demo ';' "$2" "$specs"
	grep -v '^#' /tmp/demo.csv | grep -v '^$' >/tmp/demo.lines
	printf '  %-48s %14s %14s\n' event "perf count" "model tally"
	i=0
	for spec in $specs; do
		i=$((i + 1))
		pmu=${spec%%/*} ev=${spec#*/}
		ev=${ev%/} c1=
		case $ev in *,config1=*) c1=${ev#*,config1=} ev=${ev%%,*} ;; esac
		count=$(sed -n "${i}p" /tmp/demo.lines | cut -d';' -f1)
		tally=$(xg_tally "$(xg_key "$pmu" "$ev" "$c1")" 5)
		events=$((events + 1))
		mark=differs
		if xg_num "$count" && [ "$count" = "$tally" ] && [ "$count" != 0 ]; then
			matched=$((matched + 1)) mark=equal
		fi
		printf '  %-48s %14s %14s  %s\n' "$spec" "$count" "${tally:--}" "$mark"
	done
	echo
}
xg_events
ver=$(xg_stat version)
# The highest-numbered MCB and MC of this topology.
mcb=$(awk '$1 ~ /^mcb/ { p = $1 } END { print p }' $X/pmus)
mc=$(awk '$1 ~ /^mc[0-9]/ { p = $1 } END { print p }' $X/pmus)
if [ "$ver" = 3 ]; then
	demo_stat "l3c0/read-miss/ l3c3/read-hit/ $mcb/$EV_MCB/ iob0/$EV_IOB/ iob_slow0/pa-axi0-rd-req/ $mc/$EV_MC_RD/" 1
else
	demo_stat "l3c0/read-miss/ l3c0/read-hit/ $mcb/$EV_MCB/ iob0/axi0-read/ $mc/$EV_MC_RD/" 1
	demo_stat "l3c0/read-miss,config1=0xfffffffffffffffe/ iob0/axi0-read,config1=0xfffffeffffffffff/" 1
fi
ok "every perf count equals the model's tally" test "$events" = "$matched" -a "$events" -gt 0
if [ "$XG_FW" = acpi ]; then
	echo "xgene demo: firmware=acpi version=$ver events=$events matched=$matched"
else
	echo "xgene demo: events=$events matched=$matched"
fi
