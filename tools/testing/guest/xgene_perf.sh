# The X-Gene PMUs through perf's own event tables: each PMU's `identifier`
# (apm_xgene<generation>_<type>) selects the system event tables and metrics
# of drivers/perf/xgene/events/*.json, built into the guest's perf
# (scripts/guest-perf.sh). `perf list` must describe every event of every
# PMU with the JSON's description, and `perf stat -M` must compute each
# metric from counts that equal the simulated silicon's tallies.
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

# 2. perf list (JSON output): every event of every PMU type present carries
#    the description of the event tables. perf lists an event once per PMU
#    type (Unit).
timeout $PERF_T perf list -j >/tmp/list.json 2>/tmp/list.err
units=$(for p in $pmus; do echo "$p" | sed 's/[0-9]*$//'; done | sort -u | tr '\n' ' ')
# "<pmu> <event>\t<description>" per listed event (the Unit and the
# description as perf prints them, the event name without its PMU prefix).
awk -F'"' '
	/^[[:space:]]*{/ { unit = ""; name = ""; desc = "" }
	$2 == "Unit" { unit = $4 }
	$2 == "EventName" { name = $4 }
	$2 == "BriefDescription" { desc = $4 }
	/^[[:space:]]*}/ { if (name != "") { sub(/.*\//, "", name); sub(/\/$/, "", name); print unit " " name "\t" desc } }
' /tmp/list.json >/tmp/list.tsv
n=0 missing=0 wrong=0
while read -r unit name desc; do
	case " $units " in *" $unit "*) ;; *) continue ;; esac
	n=$((n + 1))
	# perf ends a description with a full stop, and may name the unit.
	got=$(awk -F'\t' -v u="$unit" -v e="$name" '{ split($1, k, " ") } k[2] == e && (k[1] == u || index(k[1], u) == 1) { print $2; exit }' /tmp/list.tsv)
	if [ -z "$got" ]; then
		missing=$((missing + 1))
		[ $missing -le 5 ] && echo "      | not listed: $unit/$name"
	else
		case $got in
		"$desc"*) ;;
		*)
			wrong=$((wrong + 1))
			[ $wrong -le 5 ] && echo "      | $unit/$name: perf says '$got', the table '$desc'"
			;;
		esac
	fi
done <<EOF
$(for u in $units; do awk -v u="$u" '$1 == u' /t/xgene-desc-$vt.txt; done)
EOF
ok "perf list describes all $n events of $units with the table's descriptions ($missing missing, $wrong different)" \
	test "$n" -gt 0 -a "$missing" = 0 -a "$wrong" = 0
grep -a -m 3 'read-miss' /tmp/list.json | sed 's/^/      | /'

# 3. perf stat -M: every metric, from counts equal to the model's tallies.
# metric_run METRIC SECS: perf stat -a -M; /tmp/METRIC.csv, -x';'.
metric_run() {
	xg_reset
	timeout $PERF_T perf stat -a -x';' --no-scale -M "$1" -o /tmp/$1.csv sleep "$2" >/tmp/$1.out 2>&1
	grep -v '^#' /tmp/$1.csv | grep -v '^$' | sed 's/^/      | /'
}
# count EVENT CSV: perf's count of EVENT (summed over PMUs if listed apart).
count() { awk -F';' -v e="$1" '$3 ~ "(^|/)" e "/?$" { s += $1; n++ } END { if (n) printf "%d", s }' "$2"; }
# metric_value CSV: the metric column of the line that has one.
metric_value() { awk -F';' '$7 != "" && $8 != "" { print $7; exit }' "$1"; }
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
ok "xgene_l3c_read_miss_ratio: perf's ${val:-?} = 100 * miss / (hit + miss) of the tallies" \
	awk -v v="${val:-x}" -v h="$th" -v m="$tm" 'BEGIN { w = 100 * m / (h + m); exit !(v + 0 == v && v - w < 0.01 && w - v < 0.01) }'

for dir in read write; do
	ev=$rd
	[ $dir = write ] && ev=$wr
	metric_run xgene_mc_${dir}_rate 2
	c=$(count "$ev" /tmp/xgene_mc_${dir}_rate.csv)
	val=$(metric_value /tmp/xgene_mc_${dir}_rate.csv)
	t=$(tally_sum mc "$ev")
	secs=$(awk '/seconds time elapsed/ { print $1 }' /tmp/xgene_mc_${dir}_rate.csv /tmp/xgene_mc_${dir}_rate.out | head -n 1)
	ok "xgene_mc_${dir}_rate: $ev $c = tally $t" test -n "$c" -a "$c" = "${t:-x}" -a "${t:-0}" -gt 0
	# The rate in M/s against the tally over the elapsed time perf printed
	# (perf divides by its own duration_time, within 1% of it).
	ok "xgene_mc_${dir}_rate: perf's ${val:-?} M/s = tally / ${secs:-?} s" \
		awk -v v="${val:-x}" -v t="$t" -v s="${secs:-0}" 'BEGIN { if (s <= 0) exit 1; w = t / s / 1e6; exit !(v + 0 == v && v > 0.99 * w && v < 1.01 * w) }'
done

if [ "$XDRV" != builtin ]; then
	ok "rmmod ${XDRV##*/}" timeout 30 rmmod "$(basename "$XDRV" .ko)"
fi
ok "rmmod xgene_sim" timeout 30 rmmod xgene_sim
