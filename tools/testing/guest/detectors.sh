# Run after every plan: the detectors must still be on at the end. Lockdep
# switches itself off after its first report (debug_locks = 0), after which
# nothing is checked; a run that ends that way fails here even if the report
# itself scrolled by.
. /t/lib.sh
if [ -n "${RPMU_BENCH:-}" ]; then
	_case ok "lockdep still on at the end of the run # SKIP make bench runs a kernel without detectors"
elif [ -r /proc/lockdep_stats ]; then
	ok "lockdep still on at the end of the run (debug_locks = 1)" \
		grep -q "debug_locks: *1$" /proc/lockdep_stats
else
	_case "not ok" "lockdep present (/proc/lockdep_stats)"
fi
