# Debian's trinity, a syscall fuzzer written independently of this project,
# on perf_event_open (its sanitiser builds events from every PMU's sysfs
# format and events files, ours included) and on the calls that use perf
# descriptors, with the driver loaded and its simulator producing data. Run
# as root (--dangerous) so that CPU-wide PMU events can open; sockets and
# the /dev, /proc and /sys files are left out of its descriptor pool so that
# nothing else of the guest is hit (with perf's as the only descriptor
# provider, trinity 1.9 waits forever at start-up). The oracle is the
# kernel's: no report of any detector (report.py) and the guest still alive.
# Size: TRINITY_OPS syscalls, in pieces of TRINITY_PIECE (10,000), each a
# new trinity process from its own seed, each bounded by
# TRINITY_PIECE_TIMEOUT (900 s), the whole by TRINITY_TIMEOUT.
#
# Why pieces: trinity 1.9 (Debian's 1.9+git20230109) can livelock in its
# own code. Runs of 100,000 syscalls on arm64 stopped after 50,000 and
# 80,000 with both children at 100% CPU in user space (utime growing,
# stime flat, /proc/PID/syscall "running") and trinity's main process not
# replacing them. A piece that runs out of time is looked at before it is
# stopped: if its processes spent their time in user space it counts as a
# trinity livelock and the next piece goes on (at most TRINITY_LIVELOCKS,
# 3); if not (asleep or spinning in the kernel), the case fails.
. /t/lib.sh
M=/lib/modules/rpmu
tops=${TRINITY_OPS:-5000} tseed=${FUZZ_SEED:-1}
# TRINITY_NO_MODULES=1: the same run with none of our modules loaded
# (to tell the kernel's own reports from ours).
case ${TRINITY_NO_MODULES:-0}-$(uname -m) in
1-*) ;;
*-ppc64le)
	insmod $M/vpa_dtl.ko
	insmod $M/dtl_sim.ko rate=3 seed=41
	;;
*-aarch64)
	timeout 30 insmod $M/xgene_sim.ko log_sessions=0
	timeout 30 insmod $M/xgene_pmu.ko
	;;
esac
mkdir -p /tmp/trinity && cd /tmp/trinity || exit 1
piece=${TRINITY_PIECE:-10000} ptimeout=${TRINITY_PIECE_TIMEOUT:-900}
maxlive=${TRINITY_LIVELOCKS:-3} deadline=$(($(date +%s) + ${TRINITY_TIMEOUT:-1800}))

# trinity_pids: the pids of every trinity process.
trinity_pids() {
	for d in /proc/[0-9]*; do
		case $(cat $d/comm 2>/dev/null) in trinity*) echo "${d#/proc/}" ;; esac
	done
}

# cpu_ticks: "USER SYSTEM", the ticks of every trinity process summed.
cpu_ticks() {
	cu=0 cs=0
	for p in $(trinity_pids); do
		set -- $(cat /proc/$p/stat 2>/dev/null) && [ $# -ge 15 ] || continue
		cu=$((cu + ${14})) cs=$((cs + ${15}))
	done
	echo "$cu $cs"
}

# Every TRINITY_WATCH seconds, each trinity process on the console (pid,
# state, user and system CPU ticks, where it sleeps; for one that runs, its
# system call and kernel stack), the piece running and the syscalls done
# before it, and trinity's last line: a run that slows or stops shows where.
t0=$(date +%s)
(
	while sleep "${TRINITY_WATCH:-300}"; do
		for p in $(trinity_pids); do
			d=/proc/$p
			set -- $(cat $d/stat 2>/dev/null) && [ $# -ge 15 ] || continue
			echo "trinity watch: $(($(date +%s) - t0)) s $2 pid $1 state $3 utime ${14} stime ${15} wchan $(cat $d/wchan 2>/dev/null)"
			[ "$3" = R ] || continue
			echo "trinity watch: pid $1 syscall $(cat $d/syscall 2>/dev/null)"
			sed "s/^/trinity watch: pid $1 stack /" $d/stack 2>/dev/null
		done
		{ cat /tmp/trinity.progress; tail -n 1 /tmp/trinity.out | cut -c 1-160; } |
			sed "s/^/trinity watch: $(($(date +%s) - t0)) s | /"
	done
) &
wpid=$!

ran=0 i=0 live=0 rc=0
while [ $ran -lt "$tops" ]; do
	if [ "$(date +%s)" -ge $deadline ]; then
		echo "trinity: out of time (TRINITY_TIMEOUT) after $ran syscalls"
		rc=124
		break
	fi
	n=$((tops - ran))
	[ $n -gt "$piece" ] && n=$piece
	# The piece's seed, and what replays it.
	s=$(((tseed * 1000 + i) % 4294967296))
	echo "piece $i (seed $s, -N $n) after $ran of $tops syscalls" >/tmp/trinity.progress
	/usr/bin/trinity --dangerous -l off --stats -C 2 -N "$n" -s "$s" \
		--disable-fds=sockets,pseudo,drm \
		-c perf_event_open -c ioctl -c mmap -c munmap -c read -c close \
		>/tmp/trinity.out 2>&1 &
	tpid=$!
	end=$(($(date +%s) + ptimeout))
	while kill -0 $tpid 2>/dev/null && [ "$(date +%s)" -lt $end ]; do sleep 2; done
	if kill -0 $tpid 2>/dev/null; then
		# Out of time: where did the last 10 s go?
		set -- $(cpu_ticks)
		u0=$1 s0=$2
		sleep 10
		set -- $(cpu_ticks)
		du=$(($1 - u0)) ds=$(($2 - s0))
		for p in $(trinity_pids); do kill -9 "$p" 2>/dev/null; done
		wait $tpid
		echo "trinity: piece $i (seed $s, -N $n) out of time after $ptimeout s;" \
			"its processes' last 10 s: $du ticks in user space, $ds in the kernel;" \
			"$(grep -a iterations /tmp/trinity.out | tail -n 1)"
		tail -n 20 /tmp/trinity.out | cut -c 1-200 | sed 's/^/      | /'
		if [ $du -gt 0 ] && [ $((ds * 10)) -le "$du" ]; then
			live=$((live + 1))
			echo "trinity: piece $i livelocked in trinity's own code ($live of at most $maxlive)"
			if [ $live -gt "$maxlive" ]; then
				rc=125
				break
			fi
		else
			echo "trinity: piece $i did not livelock in user space: a hang in the kernel, a sleep" \
				"nothing ends, or a piece too slow for TRINITY_PIECE_TIMEOUT"
			rc=124
			break
		fi
	else
		wait $tpid
		prc=$?
		if [ $prc != 0 ]; then
			echo "trinity: piece $i (seed $s, -N $n) ended with status $prc"
			rc=$prc
			break
		fi
		ran=$((ran + n))
	fi
	i=$((i + 1))
done
kill $wpid
cd /tmp
tail -n 40 /tmp/trinity.out | sed 's/^/      | /'
echo "TRINITY ops=$ran seed=$tseed seconds=$(($(date +%s) - t0)) status=$rc pieces=$i livelocks=$live"
echo "trinity: replay a piece with FUZZ_SEED=$tseed (piece k runs trinity -s \$(((FUZZ_SEED * 1000 + k) % 4294967296)))"
ok "trinity: $ran of $tops syscalls from seed $tseed in $i pieces, $live livelocks of trinity's own (status $rc)" \
	test $rc = 0 -a $ran -ge "$tops"
ok "PMU modules still unload after trinity" sh -c \
	'for m in dtl_sim vpa_dtl xgene_pmu xgene_sim; do grep -q "^$m " /proc/modules && { timeout 30 rmmod $m || exit 1; }; done; true'
