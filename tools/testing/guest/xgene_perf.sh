# The X-Gene PMUs through perf's own event tables: each PMU's `identifier`
# (apm_xgene<generation>_<type>) selects the system event tables and metrics
# of drivers/perf/xgene/events/*.json, built into the guest's perf
# (scripts/guest-perf.sh). `perf list` must describe every event of every
# PMU with the JSON's description, and `perf stat -M` must compute each
# metric from counts that equal the simulated silicon's tallies.
. /t/lib.sh
. /t/xgene_lib.sh
XDRV=${XGENE_DRIVER:-$M/xgene_pmu.ko}

ok "insmod xgene_sim.ko" timeout 30 insmod $XGSIM log_sessions=0
if [ "$XDRV" != builtin ]; then
	ok "insmod ${XDRV##*/}" timeout 30 insmod "$XDRV"
fi
ver=$(xg_stat version)
vt=v1v2
[ "$ver" = 3 ] && vt=v3
pmus=$(awk '!/^#/ { print $1 }' $X/pmus)

# 1. identifier: the generation and the type.
bad=
for p in $pmus; do
	want=apm_xgene${ver}_$(echo "$p" | sed 's/[0-9]*$//')
	got=$(cat $D/$p/identifier 2>/dev/null || echo "(none)")
	[ "$got" = "$want" ] || bad="$bad $p:$got"
done
ok "identifier of every PMU is apm_xgene${ver}_<type>${bad:+ (wrong:$bad)}" test -z "$bad"

# 2. perf list: every event of every PMU type present carries the
#    description of the event tables. perf lists a system event once per
#    Unit: "  <event>" then "       [<description>. Unit: uncore_<unit>]".
# (COLUMNS: perf wraps descriptions at the terminal width.)
COLUMNS=4000 timeout $PERF_T perf list >/tmp/list.txt 2>/tmp/list.err
units=$(for p in $pmus; do echo "$p" | sed 's/[0-9]*$//'; done | sort -u | tr '\n' ' ')
# "<unit> <event>\t<description>" per described event.
awk '/^  [^ ]/ { name = $1; next }
	/^ +\[.*\. Unit: [^ ]+\]$/ && name != "" {
		d = $0; sub(/^ +\[/, "", d); u = d
		sub(/\. Unit: [^ ]+\]$/, "", d); sub(/.*\. Unit: /, "", u); sub(/\]$/, "", u); sub(/^uncore_/, "", u)
		print u " " tolower(name) "\t" d; name = "" }' /tmp/list.txt >/tmp/list.tsv
n=0 missing=0 wrong=0
while read -r unit name desc; do
	n=$((n + 1))
	# (perf lists event names in lower case.)
	got=$(awk -F'\t' -v k="$unit $name" 'BEGIN { k = tolower(k) } $1 == k { print $2; exit }' /tmp/list.tsv)
	if [ -z "$got" ]; then
		missing=$((missing + 1))
		[ $missing -le 5 ] && echo "      | not described: $unit/$name"
	# (perf's jevents.py stores ", " as ",".)
	elif [ "$got" != "$(echo "$desc" | sed 's/, /,/g')" ]; then
		wrong=$((wrong + 1))
		[ $wrong -le 5 ] && echo "      | $unit/$name: perf says '$got', the table '$desc'"
	fi
done <<EOF
$(for u in $units; do awk -v u="$u" '$1 == u' /t/xgene-desc-$vt.txt; done)
EOF
ok "perf list describes all $n events of $units with the table's descriptions ($missing missing, $wrong different)" \
	test "$n" -gt 0 -a "$missing" = 0 -a "$wrong" = 0
grep -B1 -A1 'read-miss' /tmp/list.txt | head -n 4 | sed 's/^/      | /'

# 3. perf stat -M: every metric, from counts equal to the model's tallies.
# metric_run METRIC SECS: perf stat -a -M; /tmp/METRIC.csv, -x';'.
metric_run() {
	xg_reset
	timeout $PERF_T perf stat -a -x';' --no-scale -M "$1" -o /tmp/$1.csv sleep "$2" >/tmp/$1.out 2>&1
	grep -v '^#' /tmp/$1.csv | grep -v '^$' | sed 's/^/      | /'
	sed 's/^/      | out: /' /tmp/$1.out | head -n 12
}
# count EVENT CSV: perf's count of EVENT (summed over PMUs if listed apart).
count() { awk -F';' -v e="$1" '$3 ~ "(^|/)" e "/?$" { s += $1; n++ } END { if (n) printf "%d", s }' "$2"; }
# metric_value CSV: the metric column of the (first) line that has one
# (-x';': count;unit;event;run;enabled%;metric;metric unit and name).
metric_value() { awk -F';' '$6 != "" && $7 != "" { print $6; exit }' "$1"; }
# tally_sum UNIT EVENT: the model's count of EVENT over the PMUs of UNIT.
tally_sum() {
	for p in $pmus; do
		case $p in "$1"[0-9]*) xg_tally "$(xg_key "$p" "$2")" 5 ;; esac
	done | awk '{ s += $1 } END { printf "%d", s }'
}
if [ "$ver" = 3 ]; then rd=rd-rda-sent wr=wr-wra-sent; else rd=rd-rda-cmd-sent wr=wr-wra-cmd-sent; fi

metric_run xgene_l3c_read_miss_ratio 1
hit=$(count read-hit /tmp/xgene_l3c_read_miss_ratio.csv)
miss=$(count read-miss /tmp/xgene_l3c_read_miss_ratio.csv)
val=$(metric_value /tmp/xgene_l3c_read_miss_ratio.csv)
th=$(tally_sum l3c read-hit) tm=$(tally_sum l3c read-miss)
ok "xgene_l3c_read_miss_ratio: read-hit $hit = tally $th, read-miss $miss = tally $tm" \
	test -n "$hit" -a "$hit" = "$th" -a -n "$miss" -a "$miss" = "$tm" -a "${th:-0}" -gt 0
# perf prints the ratio on each L3C PMU's read-miss line, from that PMU's
# counts (one line per PMU, or unprefixed names with one L3C).
ok "xgene_l3c_read_miss_ratio: each L3C's ratio = 100 * miss / (hit + miss), to perf's 0.1 (first: ${val:-?})" \
	awk -F';' '{ p = $3; sub(/\/?read-(hit|miss)\/?$/, "", p) }
		$3 ~ /read-miss/ { m[p] = $1; v[p] = $6; n++ } $3 ~ /read-hit/ { h[p] = $1 }
		END { if (!n) exit 1
			for (p in m) { if (m[p] + h[p] == 0 || v[p] == "") exit 1; w = 100 * m[p] / (m[p] + h[p])
				if (v[p] - w > 0.05 || w - v[p] > 0.05) exit 1 } }' /tmp/xgene_l3c_read_miss_ratio.csv

# The rates: perf prints the metric on each MC PMU's line, from that PMU's
# count over duration_time.
for dir in read write; do
	ev=$rd
	[ $dir = write ] && ev=$wr
	csv=/tmp/xgene_mc_${dir}_rate.csv
	metric_run xgene_mc_${dir}_rate 2
	c=$(count "$ev" $csv)
	t=$(tally_sum mc "$ev")
	ok "xgene_mc_${dir}_rate: $ev $c = tally $t" test -n "$c" -a "$c" = "${t:-x}" -a "${t:-0}" -gt 0
	ok "xgene_mc_${dir}_rate: every MC's rate = its count / duration_time (cmd/s)" \
		awk -F';' '$3 == "duration_time" { ns = $1 } $6 != "" && $7 ~ /rate/ { c[++n] = $1; v[n] = $6 }
			END { if (!n || ns <= 0) exit 1
				for (i = 1; i <= n; i++) { w = c[i] / (ns / 1e9); if (v[i] < 0.999 * w - 0.1 || v[i] > 1.001 * w + 0.1) exit 1 }
			}' $csv
done

if [ "$XDRV" != builtin ]; then
	ok "rmmod ${XDRV##*/}" timeout 30 rmmod "$(basename "$XDRV" .ko)"
fi
ok "rmmod xgene_sim" timeout 30 rmmod xgene_sim
