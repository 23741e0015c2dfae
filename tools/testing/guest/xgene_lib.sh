# Helpers for the X-Gene guest scripts: perf stat runs on the simulated
# silicon (xgene_sim.ko) and the model's tally of what it added.
M=/lib/modules/rpmu
D=/sys/bus/event_source/devices
X=/sys/kernel/debug/xgene_sim
PERF_T=60
# The model module and its arguments: on an ACPI boot the harness names the
# RAM it set aside for the register windows (XGENE_ACPI_RAM=start,size).
XGSIM="$M/xgene_sim.ko${XGENE_ACPI_RAM:+ acpi_ram_start=${XGENE_ACPI_RAM%,*} acpi_ram_size=${XGENE_ACPI_RAM#*,}}"
# The firmware that described the PMU.
XG_FW=dt
[ -n "${XGENE_ACPI_RAM:-}" ] && XG_FW=acpi

# xg_events: after the model is loaded, events of each sub-block type for
# this version (X-Gene 3 renamed most of them).
xg_events() {
	if [ "$(xg_stat version)" = 3 ]; then
		EV_MCB=req-receive EV_MC_RD=rd-sent EV_MC_WR=wr-sent EV_IOB=ba-all-req EV_IOB2=pa-cp-rd-req
	else
		EV_MCB=csw-write-request EV_MC_RD=rd-cmd-sent EV_MC_WR=wr-cmd-sent EV_IOB=csw-read-block EV_IOB2=axi0-read
	fi
}

xg_skip() { _case ok "$1 # SKIP $2"; }
# xg_num STRING: a decimal number (perf prints "<not counted>" otherwise).
xg_num() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }

# How many times the PMU interrupt was handled, all CPUs (the columns of
# /proc/interrupts are the online CPUs, as its header says).
xg_irqs() {
	awk -v irq="$(xg_stat irq):" 'NR == 1 { n = NF } $1 == irq { s = 0; for (i = 2; i <= n + 1; i++) s += $i; print s }' /proc/interrupts
}
# xg_irqs_on CPU: the PMU interrupts taken on CPU (the header row names the
# column of each online CPU).
xg_irqs_on() {
	awk -v irq="$(xg_stat irq):" -v cpu="CPU$1" \
		'NR == 1 { for (i = 1; i <= NF; i++) if ($i == cpu) c = i + 1 } $1 == irq && c { print $c }' /proc/interrupts
}
xg_stat() { awk -v k="$1" '$1 == k { print $2 }' $X/stats; }

# xg_key PMU EVENT [CONFIG1]: the tally key the model should count an event
# under: "pmu 0xcode pmamr0 pmamr1", masks as the agents the PMU has (model's
# pmus file) left enabled by config1 (a set config1 bit excludes an agent).
xg_key() {
	v=$(sed -n 's/^config=\(0x[0-9a-fA-F]*\).*/\1/p' "$D/$1/events/$2")
	h=${3:-0x0}
	h=${h#0x}
	while [ ${#h} -lt 16 ]; do h=0$h; done
	hi=$((0x${h%????????})) lo=$((0x${h#????????}))
	# shellcheck disable=SC2046 # two fields
	set -- "$1" $(awk -v p="$1" '$1 == p { print $6, $7 }' $X/pmus) "$v"
	printf '%s 0x%x' "$1" "$(($4))"
	if [ "$2" -gt 0 ]; then printf ' 0x%x' $((~lo & ((1 << $2) - 1))); else printf ' -'; fi
	if [ "$3" -gt 0 ]; then printf ' 0x%x' $((~hi & ((1 << $3) - 1))); else printf ' -'; fi
	echo
}

# xg_tally KEY FIELD: count (5) / periods (6) / sessions (7) of a tally key.
xg_tally() { awk -v k="$1" -v f="$2" '$1 " " $2 " " $3 " " $4 == k { print $f }' $X/tally; }

# xg_stat_run NAME SEP SECONDS "SPEC..." : perf stat -a on the events (each
# SPEC is pmu/event[,config1=X]/), raw counts; results in /tmp/NAME.csv.
xg_stat_run() {
	name=$1 sep=$2 secs=$3 specs=$4
	evs=$(echo $specs | tr ' ' ',')
	timeout $PERF_T perf stat -a -x"$sep" --no-scale -o /tmp/$name.csv -e "$evs" sleep "$secs" \
		>/tmp/$name.out 2>&1
}

# xg_check NAME SEP "SPEC..." [rate]: one case per event: perf's count is the
# model's tally of its key exactly, and > 0; with "rate", one more: the
# counter advanced for as long as perf says the event ran (periods the model
# counted it vs run time).
xg_check() {
	name=$1 sep=$2 specs=$3 rate=${4:-}
	grep -v '^#' /tmp/$name.csv | grep -v '^$' >/tmp/$name.lines
	sed 's/^/      | /' /tmp/$name.lines
	i=0
	for spec in $specs; do
		i=$((i + 1))
		pmu=${spec%%/*}
		ev=${spec#*/}
		ev=${ev%/}
		c1=
		case $ev in *,config1=*) c1=${ev#*,config1=} ev=${ev%%,*} ;; esac
		key=$(xg_key "$pmu" "$ev" "$c1")
		line=$(sed -n "${i}p" /tmp/$name.lines)
		count=$(echo "$line" | cut -d"$sep" -f1)
		run=$(echo "$line" | cut -d"$sep" -f4)
		pct=$(echo "$line" | cut -d"$sep" -f5)
		tally=$(xg_tally "$key" 5)
		periods=$(xg_tally "$key" 6)
		echo "      | $spec: perf $count (ran ${pct}%, $run ns), tally [$key] count $tally periods $periods sessions $(xg_tally "$key" 7)"
		if xg_num "$count" && [ "$count" = "$tally" ] && [ "$count" != 0 ]; then
			_case ok "$name: $spec count $count = model tally"
		elif [ "${XGENE_REFERENCE:-0}" = 1 ]; then
			echo "DIFF $name: $spec count '$count' differs from the model's tally '$tally' ($(xg_model))"
		else
			_case "not ok" "$name: $spec count '$count' = model tally '$tally'"
		fi
		[ "$rate" = rate ] || continue
		ratio=$(awk -v p="${periods:-0}" -v r="${run:-0}" -v ns="$(xg_stat period_ns)" \
			'BEGIN { if (r > 0) printf "%.3f", p * ns / r; else print 0 }')
		if awk -v x="$ratio" 'BEGIN { exit !(x >= 0.9 && x <= 1.1) }'; then
			_case ok "$name: $spec counted for the time it ran (periods*period/run = $ratio)"
		elif [ "${XGENE_REFERENCE:-0}" = 1 ]; then
			echo "DIFF $name: $spec counted for $ratio of the time perf says it ran (periods $periods, run $run ns; $(xg_model))"
		else
			_case "not ok" "$name: $spec counted for the time it ran (periods*period/run = $ratio)"
		fi
	done
}

xg_reset() { echo 0 >$X/tally; }

# xg_model: the model's readings of what the documentation does not settle,
# for DIFF lines (the difference depends on them).
xg_model() {
	echo "model: readback $(cat $X/readback), step $(cat $X/step), pmamr $(cat $X/pmamr)"
}

