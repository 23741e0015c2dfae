#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a guest console log into test results.

The KTAP document between the RPMU KTAP markers is parsed by the kernel
tree's own tools/testing/kunit/kunit.py (`parse --json`); this script only
cuts it out of the log, scans the kernel log the guest printed for reports
(BUG, WARNING, Oops, lockdep, KASAN, kmemleak, panics) after the tests began,
and adds up the cases.

    report.py KERNEL_SRC LOG NAME   -> prints cases, exits 0; writes
                                       NAME.counts ("passed failed")
"""
import json
import re
import subprocess
import sys

BAD = re.compile(
    r"BUG:|WARNING:|Oops|Kernel panic|general protection|Unable to handle|"
    r"possible circular locking|possible recursive locking|inconsistent lock state|"
    r"DEBUG_LOCKS_WARN_ON|Invalid wait context|suspicious RCU usage|KASAN|UBSAN|"
    r"kmemleak: .*new suspected|sleeping function called from invalid context|"
    r"hung_task|soft lockup|detected (expedited )?stall|Call Trace:"
)


# Kernel reports the tests provoke on purpose, in upstream code, because a
# legal syscall sequence reaches a known upstream defect. A guest program
# brackets the sequence with "rpmu: known upstream report begin: LABEL" and
# "rpmu: known upstream report end" in /dev/kmsg; reports inside are shown as
# notes, not counted, if the bracketed text matches LABEL's pattern (else
# they count as usual).
KNOWN = {
    # Linux 7.3.4 kernel/events/core.c perf_mmap_aux(): mapping the AUX area
    # through an event whose output is redirected (PERF_EVENT_IOC_SET_OUTPUT)
    # and which has no ring mapping of its own does refcount_inc() on its
    # mmap_count of 0 (perf_mmap_rb() refuses the same alias with -EBUSY).
    "perf_mmap_aux alias": re.compile(r"refcount_t: addition on 0.*perf_mmap\+", re.S),
    # Linux 7.3.4 arch/powerpc/platforms/pseries: /proc/powerpc/vcpudispatch_stats
    # takes dtl_access_lock (an rw_semaphore) in one write(2) and releases it
    # in another, and debugfs dtl holds it from open to release: lockdep
    # reports a lock held on return to user space, and switches itself off.
    "dtl_access_lock": re.compile(r"lock held when returning to user space.*dtl_access_lock", re.S),
}

# Known reports after which lockdep is off for the rest of the boot.
KNOWN_LOCKDEP_OFF = {"dtl_access_lock"}


def split_known(run):
    """Removes the bracketed known-report segments from `run`; returns the
    rest, the notes for the segments removed and the labels removed."""
    notes = []
    labels = set()
    pat = re.compile(r"rpmu: known upstream report begin: ([^\n]*)\n(.*?)rpmu: known upstream report end", re.S)

    def repl(m):
        label, seg = m.group(1).strip(), m.group(2)
        want = KNOWN.get(label)
        if want is None or not want.search(seg):
            return seg
        first = next((l.strip() for l in seg.splitlines() if BAD.search(l)), "none")
        notes.append(f"  note: known upstream report ({label}), not counted: {first}")
        labels.add(label)
        return ""

    return pat.sub(repl, run), notes, labels


def between(text, begin, end):
    m = re.search(re.escape(begin) + r"\n(.*?)\n" + re.escape(end), text, re.S)
    return m.group(1) if m else None


def walk(test, path, out):
    """Collect leaf cases as (name, status)."""
    subs = test.get("sub_groups") or []
    cases = test.get("test_cases") or []
    if not subs and not cases:
        out.append((path, test.get("status")))
    for t in subs + cases:
        walk(t, f"{path}.{t['name']}" if path else t["name"], out)


def main():
    ksrc, logf, name = sys.argv[1:4]
    # A run of the upstream reference driver: its kernel reports are its own
    # defects, shown but not counted against us.
    reference = "--reference" in sys.argv[4:]
    # A nested guest's console passes through two terminals: "\r\r\n".
    text = open(logf, errors="replace", newline="").read().replace("\r", "")
    results = []
    ktap = between(text, "=== RPMU KTAP BEGIN ===", "=== RPMU KTAP END ===")
    if ktap is None:
        results.append((f"{name}: guest finished and printed results", "FAIL"))
    else:
        p = subprocess.run(
            [sys.executable, f"{ksrc}/tools/testing/kunit/kunit.py", "parse", "--json"],
            input=ktap, capture_output=True, text=True,
        )
        human, _, js = p.stdout.partition("\n{")
        print(human)
        try:
            doc = json.loads("{" + js)
        except ValueError:
            print(p.stdout, p.stderr, file=sys.stderr)
            raise
        for t in (doc.get("sub_groups") or []) + (doc.get("test_cases") or []):
            walk(t, "", results)
        if reference:
            # The reference driver's own defects (lockdep reports switch
            # lockdep off) are shown, not counted against us.
            for i, (case, status) in enumerate(results):
                if case.endswith("lockdep still on at the end of the run (debug_locks = 1)") and status != "PASS":
                    print(f"  DIFF reference driver: {case}: {status} (its own lockdep reports, above)")
                    results[i] = (case, "SKIP")
    dmesg = between(text, "=== RPMU DMESG BEGIN ===", "=== RPMU DMESG END ===") or text
    # Reports from before the tests began (boot) cannot come from the tests,
    # but they matter as much: lockdep, for one, switches itself off after
    # its first report, and nothing after it would be checked. A case of
    # their own, in every run.
    start = dmesg.find("rpmu: tests begin")
    boot, run = (dmesg[:start], dmesg[start:]) if start >= 0 else ("", dmesg)
    boot_bad = [line.strip() for line in boot.splitlines() if BAD.search(line)]
    for line in boot_bad[:10]:
        print(f"  boot-time kernel report: {line}")
    results.append((f"{name}: no kernel reports at boot (detectors on)", "FAIL" if boot_bad else "PASS"))
    run, notes, labels = split_known(run)
    for n in notes:
        print(n)
    # A known upstream lockdep report switched lockdep off (the guest runs
    # such cases last): "lockdep still on" cannot hold.
    if labels & KNOWN_LOCKDEP_OFF:
        for i, (case, status) in enumerate(results):
            if case.endswith("lockdep still on at the end of the run (debug_locks = 1)") and status != "PASS":
                print(f"  note: {case}: skipped, lockdep was switched off by a known upstream report")
                results[i] = (case, "SKIP")
    bad = [line.strip() for line in run.splitlines() if BAD.search(line)]
    for line in bad[:20]:
        print(f"  kernel report{' (reference driver)' if reference else ''}: {line}")
    for line in text.splitlines():
        if line.startswith(("DIFF ", "FUZZ ", "TRINITY ", "SOAK ")):
            print(f"  {line}")
    if not reference:
        results.append((f"{name}: no kernel reports during the tests", "FAIL" if bad or start < 0 else "PASS"))

    passed = failed = 0
    for case, status in results:
        ok = status == "PASS"
        label = "ok    " if ok else "skip  " if status == "SKIP" else "FAILED"
        print(f"  {label} {case}")
        passed += ok
        failed += not ok and status != "SKIP"
    open(name + ".counts", "w").write(f"{passed} {failed}\n")


if __name__ == "__main__":
    main()
