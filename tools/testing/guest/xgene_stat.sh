# End-to-end: stock `perf stat` on the X-Gene uncore PMUs, driven by the
# simulated silicon (xgene_sim.ko), every count checked against the model's
# exact tally of what it added.
#
# The driver under test comes from the environment (kernel command line):
#   XGENE_DRIVER=builtin   already bound at boot (the upstream C reference)
#   XGENE_DRIVER=<path.ko> insmod'ed here (default /lib/modules/rpmu/xgene_pmu.ko;
#                          the cases are skipped if it does not exist)
#   XGENE_REFERENCE=1      a reference run: where the driver disagrees with the
#                          model (a count that is not the tally, a counter that
#                          did not advance for as long as perf says the event
#                          ran, a group whose members differ) it is reported as a
#                          DIFF line naming the model's readings in force, not
#                          asserted.
# Nothing here depends on which driver it is.
. /t/lib.sh
. /t/xgene_lib.sh
XDRV=${XGENE_DRIVER:-$M/xgene_pmu.ko}

# --- the simulated silicon and the driver ----------------------------------
ok "insmod xgene_sim.ko" timeout 30 insmod $XGSIM
kunit_save xgene_sim_model
dmesg | grep "xgene_sim:" | sed 's/^/      | /'
ok "model found the simulated PMU and its children" sh -c "test -r $X/tally && test \$(grep -vc '^#' $X/pmus) -gt 0"
cat $X/pmus | sed 's/^/      | /'

drv=
case $XDRV in
builtin) drv=builtin ;;
*)
	if [ -e "$XDRV" ]; then
		ok "insmod ${XDRV##*/}" timeout 30 insmod "$XDRV" && drv=module
	else
		xg_skip "driver under test" "$XDRV absent"
	fi
	;;
esac
echo "# driver under test: $XDRV"

if [ -n "$drv" ]; then
	xg_events
	ver=$(xg_stat version)
	echo "# X-Gene $ver described by $XG_FW"
	pmus=$(awk '!/^#/ { print $1 }' $X/pmus | tr '\n' ' ')
	# The highest-numbered MCB and MC of this topology (mcb1/mc3 on the
	# default v2 silicon, mcb0/mc1 on the v1 one, mcb1/mc5 on the v3 one).
	mcb=$(awk '$1 ~ /^mcb/ { p = $1 } END { print p }' $X/pmus)
	mc=$(awk '$1 ~ /^mc[0-9]/ { p = $1 } END { print p }' $X/pmus)
	ok "every simulated PMU is registered ($pmus)" sh -c "for p in $pmus; do test -d $D/\$p/events || exit 1; done"
	# Discovery reads only the MCB that CSWCR names (the model watches reads
	# of the other one; a built-in driver probed before the model loaded).
	if [ "$drv" = module ]; then
		n=$(xg_stat unused_mcb_reads)
		ok "probe read no register of an MCB that CSWCR leaves unused (CSWCR $(xg_stat csw_cswcr), $n reads)" \
			test "$n" = 0
	fi

	# 1. Two PMUs at once.
	xg_reset
	specs="l3c0/read-miss/ $mcb/$EV_MCB/"
	xg_stat_run basic , 1 "$specs"
	xg_check basic , "$specs" rate
	base_key=$(xg_key l3c0 read-miss)
	base=$(awk -v c="$(xg_tally "$base_key" 5)" -v p="$(xg_tally "$base_key" 6)" -v s="$(xg_stat scale)" \
		'BEGIN { if (p > 0) printf "%d", c / p / s; else print 0 }')

	# 2. Agent filters: config1 bits exclude agents (X-Gene 3 has no agent
	#    mask registers; its IOB-slow block is counted instead).
	#    Under both readings of how many agents an L3C/MCB PMAMR0 selects
	#    (the agent field the drivers advertise, or all 32 bits), with one
	#    agent and with every agent.
	if [ "$ver" != 3 ]; then
		for pw in field full; do
			echo $pw >$X/pmamr
			xg_reset
			specs="l3c0/read-miss,config1=0xfffffffffffffffe/"
			xg_stat_run agent0_$pw ';' 1 "$specs"
			xg_check agent0_$pw ';' "$specs"
			xg_reset
			specs="l3c0/read-hit/ $mcb/$EV_MCB/"
			xg_stat_run all_agents_$pw ';' 1 "$specs"
			xg_check all_agents_$pw ';' "$specs"
		done
		echo field >$X/pmamr
		xg_reset
		specs="iob0/axi0-read,config1=0xfffffeffffffffff/"
		xg_stat_run iob_agent40 ';' 1 "$specs"
		xg_check iob_agent40 ';' "$specs"
	else
		xg_reset
		specs="iob0/$EV_IOB2/ iob_slow0/pa-axi0-rd-req/"
		xg_stat_run iob_slow ';' 1 "$specs"
		xg_check iob_slow ';' "$specs" rate
	fi

	# 3. Past the 32-bit wrap: scale so that ~1.5 * 2^32 are added in 3 s.
	#    X-Gene 1/2 counters wrap there and raise the overflow interrupt;
	#    X-Gene 3's are 64 bits wide: the count needs the high word read
	#    right, and no overflow happens. Under both readings of when the
	#    silicon's counters move: at the model's tick only, and continuously
	#    (every read of a counter or status register sees the count of that
	#    moment, so a wrap can fall between any two of a driver's reads).
	scale=$(awk -v b="$base" -v ns="$(xg_stat period_ns)" \
		'BEGIN { if (b > 0) printf "%d", 1.5 * 4294967296 / (3e9 / ns) / b + 1; else print 1 }')
	for st in tick continuous; do
		echo $st >$X/step
		xg_reset
		echo "$scale" >$X/scale
		i0=$(xg_irqs) o0=$(xg_stat overflows)
		specs="l3c0/read-miss/"
		xg_stat_run wrap_$st ';' 3 "$specs"
		echo 1 >$X/scale
		i1=$(xg_irqs) o1=$(xg_stat overflows)
		echo "      | scale $scale, step $st: model overflows $o0 -> $o1, PMU interrupts $i0 -> $i1"
		xg_check wrap_$st ';' "$specs" rate
		wrapped=$(cut -d';' -f1 /tmp/wrap_$st.lines | head -n 1)
		xg_num "$wrapped" || wrapped=0
		ok "wrap_$st: count $wrapped > 2^32" test $((wrapped > 4294967296)) = 1
		if [ "$ver" != 3 ]; then
			ok "wrap_$st: overflow interrupts taken ($((i1 - i0)) for $((o1 - o0)) model overflows)" \
				test $((i1 - i0)) -ge 1 -a $((o1 - o0)) -ge 1
		else
			ok "wrap_$st: 64-bit counters, no overflow ($((o1 - o0)) model overflows)" test $((o1 - o0)) = 0
		fi
	done
	echo tick >$X/step

	# 4. The owning CPU goes offline mid-run: events follow the cpumask, and
	#    so does the overflow interrupt (its affinity; and on X-Gene 1/2, at
	#    the wrap scale, about one overflow a second, so the 2 s after the
	#    move must take some).
	xg_reset
	own=$(cat $D/l3c0/cpumask)
	specs="l3c0/read-miss/ $mc/$EV_MC_RD/"
	if [ -w /sys/devices/system/cpu/cpu$own/online ]; then
		echo "$scale" >$X/scale
		xg_stat_run hotplug ';' 3 "$specs" &
		pid=$!
		sleep 1
		echo 0 >/sys/devices/system/cpu/cpu$own/online
		moved=$(cat $D/l3c0/cpumask)
		m0=$(xg_irqs_on "$moved")
		wait $pid
		m1=$(xg_irqs_on "$moved")
		aff=$(cat /proc/irq/$(xg_stat irq)/effective_affinity_list 2>/dev/null || echo '?')
		echo 1 >$X/scale
		echo 1 >/sys/devices/system/cpu/cpu$own/online
		ok "hotplug: cpumask moved off CPU$own (now '$moved')" test -n "$moved" -a "$moved" != "$own"
		ok "hotplug: the PMU interrupt follows to CPU$moved (effective affinity '$aff')" test "$aff" = "$moved"
		if [ "$ver" != 3 ]; then
			ok "hotplug: overflow interrupts taken on CPU$moved after the move (${m0:-?} -> ${m1:-?})" \
				test "${m1:-0}" -gt "${m0:-0}"
		fi
		xg_check hotplug ';' "$specs" rate
	else
		xg_skip "hotplug: offline CPU$own" "not hotpluggable"
	fi

	# 5. More events than counters on one PMU: perf multiplexes.
	xg_reset
	n=$(awk '$1 == "l3c0" { print $4 }' $X/pmus)
	specs=$(ls $D/l3c0/events | head -n $((n + 2)) | sed 's,.*,l3c0/&/,' | tr '\n' ' ')
	mux=$D/l3c0/perf_event_mux_interval_ms
	mux0=$(cat $mux)
	echo 50 >$mux # fewer sessions to log than at the default rate
	xg_stat_run mux ';' 2 "$specs"
	echo "$mux0" >$mux
	xg_check mux ';' "$specs" rate
	ok "mux: perf multiplexed ($((n + 2)) events, $n counters)" sh -c "cut -d';' -f5 /tmp/mux.lines | grep -qv '^100'"

	# 6. Two perf sessions on one PMU, the shorter ending first: the longer
	#    one must keep counting. Under both readings of what the enable
	#    SET/CLR registers read back (the documentation does not say): the
	#    enable mask, and zero. A driver that clears its counter's bit by
	#    read-modify-write stops the other counter too under the first.
	for rb in mask zero; do
		echo $rb >$X/readback
		xg_reset
		xg_stat_run long_$rb ';' 3 "l3c0/read-miss/" &
		pid=$!
		sleep 1
		xg_stat_run short_$rb ';' 1 "l3c0/read-hit/"
		wait $pid
		xg_check short_$rb ';' "l3c0/read-hit/" rate
		xg_check long_$rb ';' "l3c0/read-miss/" rate
	done
	echo mask >$X/readback

	# 7. A group of identical events counts identically in every 10 ms
	#    interval, while perf rotates it with one more event (every few ms,
	#    each time stopping and starting all four counters): the driver gates
	#    the sub-block around scheduling (pmu_disable/pmu_enable) and around
	#    group reads (a read transaction). X-Gene 2 and 3 (four counters).
	#    Without the gate a run saw every interval equal with the tick on
	#    the owner CPU, hence the tick elsewhere.
	if [ "$ver" != 1 ]; then
		# The model's tick on the CPU that does not own the PMUs, so that it
		# can land inside the scheduling of the group (which runs with
		# interrupts off on the owner).
		owner=$(cat $D/l3c0/cpumask)
		ok "reload xgene_sim with its tick on CPU $((1 - owner))" \
			sh -c "timeout 30 rmmod xgene_sim && timeout 30 insmod $XGSIM tick_cpu=$((1 - owner))"
		grp='{l3c0/read-miss/,l3c0/read-miss/,l3c0/read-miss/,l3c0/read-miss/}'
		# Under `step continuous` each read of a counter sees the count of
		# its moment: ungated, the four reads of a group read always differ.
		for st in tick continuous; do
			echo $st >$X/step
			timeout $PERF_T perf stat -a -x';' --no-scale -I 10 -o /tmp/group_$st.csv -e "$grp" -e l3c0/read-hit/ \
				sleep 2 >/tmp/group_$st.out 2>&1
			set -- $(awk -F';' '$4 ~ /read-miss/ { v[$1] = v[$1] " " $2; if ($6 + 0 < 100) part[$1] = 1 }
				END { for (k in v) { n++; split(v[k], a, " "); if (a[1] + 0 > 0 && length(part[k])) r++
					for (i = 2; i <= 4; i++) if (a[i] != a[1]) bad++ }
					printf "%d %d %d\n", n, r, bad }' /tmp/group_$st.csv)
			echo "      | group_$st: $1 intervals, $2 with the group counting part of the time, $3 member mismatches"
			# The first intervals whose members differ, as perf printed them.
			awk -F';' '$4 ~ /read-miss/ { v[$1] = v[$1] " " $2; l[$1] = l[$1] "\n      |   " $0 }
				END { for (k in v) { split(v[k], a, " "); for (i = 2; i <= 4; i++) if (a[i] != a[1]) { print l[k]; break } } }' \
				/tmp/group_$st.csv | head -30
			if [ "${XGENE_REFERENCE:-0}" = 1 ] && [ "${3:-1}" != 0 ]; then
				echo "DIFF group_$st: identical events of one group differ ($3 member mismatches over $1 10 ms intervals; $(xg_model))"
			else
				ok "group_$st: identical counts in all $1 intervals, $2 of them rotated" \
					test "${1:-0}" -ge 50 -a "${2:-0}" -ge 1 -a "${3:-1}" = 0
			fi
		done
		echo tick >$X/step
	fi

	echo "# model stats:"
	sed 's/^/      | /' $X/stats

	# 8. The model reloaded under a bound driver adopts the registers as they
	#    are; a module driver reloaded under the model maps them anew (other
	#    addresses, the model's translation cache must follow).
	ok "reload xgene_sim under the bound driver" sh -c "timeout 30 rmmod xgene_sim && timeout 30 insmod $XGSIM"
	specs="l3c0/read-miss/ $mc/$EV_MC_WR/"
	xg_stat_run model_reload ';' 1 "$specs"
	xg_check model_reload ';' "$specs"
	if [ "$drv" = module ]; then
		m=${XDRV##*/}
		ok "reload ${m%.ko} under the model" sh -c "timeout 30 rmmod ${m%.ko} && timeout 30 insmod $XDRV"
		xg_reset
		specs="iob0/$EV_IOB/ mcb0/$EV_MCB/"
		xg_stat_run driver_reload ';' 1 "$specs"
		xg_check driver_reload ';' "$specs"
		ok "rmmod ${m%.ko}" timeout 30 rmmod "${m%.ko}"
	fi
fi
ok "rmmod xgene_sim" timeout 30 rmmod xgene_sim
