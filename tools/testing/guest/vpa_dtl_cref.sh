# Differential: the same simulated hypervisor and stock perf against the
# upstream C vpa-dtl (built into the test kernel; this boot does not
# blacklist it). Only paths that do not crash the C driver are run: no
# disable/enable toggles, no per-task events (see ../shared/FACTS.md).
. /t/lib.sh
. /t/dtl_lib.sh
ok "C reference: vpa_dtl PMU present" test -d $D
ok "C reference: no stats directory (it keeps no counters)" test ! -e $D/stats

capture cref_normal "seed=11 rate=3" -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 1
# Asserted: what the reference decodes is right. Its accounting (it counts
# nothing) is reported as a difference, not asserted.
grep -E "injected entries|field by field|in order" /tmp/cref_normal.check >/tmp/cref_normal.asserted
ktap_cases </tmp/cref_normal.asserted
echo "DIFF normal (C reference): $(tail -n 1 /tmp/cref_normal.check)"
sed -n 's/^not ok [0-9]* /DIFF normal (C reference) fails: /p' /tmp/cref_normal.check

# Overload: shown, not asserted -- the reference drops entries silently.
capture cref_overload "seed=13 rate=20 burst_every=5 burst_len=120" -e vpa_dtl/dtl_cede/ -c 1000000 -m 8,1 -- sleep 1
echo "DIFF overload (C reference): $(tail -n 1 /tmp/cref_overload.check)"
sed -n 's/^not ok [0-9]* /DIFF overload (C reference) fails: /p' /tmp/cref_overload.check

# Entries kept per 120-entry burst (ours keeps the whole ring, 85): shown.
capture cref_burst85 "seed=18 rate=0 burst_every=20 burst_len=120" -e vpa_dtl/dtl_cede/ -c 1000000 -- sleep 1
set -- $(sed -n 's/.*injected=\([0-9]*\) captured=\([0-9]*\).*/\1 \2/p' /tmp/cref_burst85.check)
echo "DIFF burst85 (C reference): injected ${1:-?} decoded ${2:-?}: kept per 120-entry burst $((${1:-0} > 0 ? ${2:-0} * 120 / ${1:-1} : 0))"
