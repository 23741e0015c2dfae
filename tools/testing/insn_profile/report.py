#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Names the addresses of an insn_profile output (tools/testing/insn_profile):
per phase (the guest's runs, from its PROFILE_PHASE lines) and hrtimer
callback, the calls and instructions per call, and the functions those
instructions were spent in, from the kernel's System.map and the guest's
module symbols (its KALLSYMS lines).

    report.py PROFILE SYSTEM_MAP GUEST_LOG [--callback SUBSTRING] [--top N]
              [--summary [--drv DRV]]

--summary prints one line per phase: PROFILE vpa_dtl drv=DRV run=NAME
calls=N insns=N, for scripts/bench.py.
"""
import argparse
import bisect
import collections


def symbols(system_map, guest_log):
    syms, phases = [], []
    with open(system_map) as f:
        for line in f:
            a, t, name = line.split()[:3]
            if t in "tTwW":
                syms.append((int(a, 16), name))
    with open(guest_log, errors="replace") as f:
        for line in f:
            p = line.split()
            if line.startswith("KALLSYMS ") and len(p) >= 5 and p[2] in "tT":
                syms.append((int(p[1], 16), p[3]))
            elif line.startswith("PROFILE_PHASE ") and len(p) >= 3:
                phases.append(p[2])
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms], phases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("system_map")
    ap.add_argument("guest_log")
    ap.add_argument("--callback", default="")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--drv", default="ours")
    a = ap.parse_args()
    addrs, names, marks = symbols(a.system_map, a.guest_log)

    def name(x):
        i = bisect.bisect_right(addrs, x) - 1
        return names[i] if i >= 0 else hex(x)

    calls = {}
    funcs = collections.defaultdict(collections.Counter)
    with open(a.profile) as f:
        for line in f:
            p = line.split()
            if p[0] == "C":
                calls[(int(p[1]), int(p[2], 16))] = (int(p[3]), int(p[4]))
            elif p[0] == "T":
                funcs[(int(p[1]), int(p[2], 16))][name(int(p[3], 16))] += int(p[5])
    # The guest's marks are the last phases the profile counted (the boot
    # may set the host name before them).
    last = max((ph for ph, _ in calls), default=0)
    first = last - len(marks) + 1

    def phase_name(ph):
        i = ph - first
        return marks[i] if 0 <= i < len(marks) else f"phase{ph}"

    for (ph, e), (n, insns) in sorted(calls.items()):
        cb = name(e)
        if n == 0 or a.callback not in cb:
            continue
        if a.summary:
            print(f"PROFILE vpa_dtl drv={a.drv} run={phase_name(ph)} calls={n} insns={insns}")
            continue
        print(f"{phase_name(ph)}: {cb}: {n} calls, {insns / n:.1f} instructions a call")
        for fn, i in funcs[(ph, e)].most_common(a.top):
            print(f"  {i / n:9.1f}  {fn}")


if __name__ == "__main__":
    main()
