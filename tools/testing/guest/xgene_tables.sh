# The event tables (drivers/perf/xgene/events/*.json) against the sysfs
# events of the upstream C xgene_pmu, probed on the simulated v2 silicon:
# same names, same codes, nothing missing or extra.
. /t/lib.sh
D=/sys/bus/event_source/devices
for pmu in l3c0 iob0 mcb0 mc0; do
	ok "C xgene_pmu registered $pmu on the simulated v2 PMU" test -d $D/$pmu/events
done
for pmu in l3c0 iob0 mcb0 mc0; do
	t=${pmu%0}
	for f in $D/$pmu/events/*; do
		v=$(sed -n 's/^config=\(0x[0-9a-fA-F]*\)$/\1/p' "$f")
		echo "$t ${f##*/} $((v))"
	done
done | sort >/tmp/sysfs-events.txt
sort /t/xgene-events-v1v2.txt >/tmp/json-events.txt
diff /tmp/json-events.txt /tmp/sysfs-events.txt >/tmp/events.diff
ok "JSON event tables = C driver's sysfs events ($(wc -l </tmp/json-events.txt) events)" test ! -s /tmp/events.diff
head -n 20 /tmp/events.diff
