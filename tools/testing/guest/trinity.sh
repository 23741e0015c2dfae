# Debian's trinity, a syscall fuzzer written independently of this project,
# on perf_event_open (its sanitiser builds events from every PMU's sysfs
# format and events files, ours included) and on the calls that use perf
# descriptors, with the driver loaded and its simulator producing data. Run
# as root (--dangerous) so that CPU-wide PMU events can open; sockets and
# the /dev, /proc and /sys files are left out of its descriptor pool so that
# nothing else of the guest is hit (with perf's as the only descriptor
# provider, trinity 1.9 waits forever at start-up). The oracle is the
# kernel's: no report of any detector (report.py) and the guest still alive.
# Size: TRINITY_OPS (make soak 1000000).
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
t0=$(date +%s)
timeout "${TRINITY_TIMEOUT:-1800}" /usr/bin/trinity --dangerous -l off --stats -C 2 -N "$tops" -s "$tseed" \
	--disable-fds=sockets,pseudo,drm \
	-c perf_event_open -c ioctl -c mmap -c munmap -c read -c close \
	>/tmp/trinity.out 2>&1 &
tpid=$!
# Every TRINITY_WATCH seconds, each trinity process on the console (pid,
# state, user and system CPU ticks, where it sleeps; for one that runs, its
# system call and kernel stack): a run that slows or stops shows
# whether its children spin, sleep in the kernel or are no longer respawned,
# and trinity's last progress line (one each 10,000 calls) and last line.
(
	while sleep "${TRINITY_WATCH:-300}"; do
		for d in /proc/[0-9]*; do
			case $(cat $d/comm 2>/dev/null) in trinity*) ;; *) continue ;; esac
			set -- $(cat $d/stat 2>/dev/null) && [ $# -ge 15 ] || continue
			echo "trinity watch: $(($(date +%s) - t0)) s $2 pid $1 state $3 utime ${14} stime ${15} wchan $(cat $d/wchan 2>/dev/null)"
			# A running one: its system call (or "running" in user
			# space) and its kernel stack.
			[ "$3" = R ] || continue
			echo "trinity watch: pid $1 syscall $(cat $d/syscall 2>/dev/null)"
			sed "s/^/trinity watch: pid $1 stack /" $d/stack 2>/dev/null
		done
		{ grep -a iterations /tmp/trinity.out | tail -n 1; tail -n 1 /tmp/trinity.out | cut -c 1-160; } |
			sed "s/^/trinity watch: $(($(date +%s) - t0)) s | /"
	done
) &
wpid=$!
wait $tpid
rc=$?
kill $wpid
cd /tmp
tail -n 40 /tmp/trinity.out | sed 's/^/      | /'
echo "TRINITY ops=$tops seed=$tseed seconds=$(($(date +%s) - t0)) status=$rc"
ok "trinity: $tops syscalls from seed $tseed ran to the end (status $rc)" test $rc = 0
ok "PMU modules still unload after trinity" sh -c \
	'for m in dtl_sim vpa_dtl xgene_pmu xgene_sim; do grep -q "^$m " /proc/modules && { timeout 30 rmmod $m || exit 1; }; done; true'
