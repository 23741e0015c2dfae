#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes synthetic `perf script --ns` output of a vpa_dtl capture, in
perf's exact two-line format (tools/perf/builtin-script.c), for trying
dtl-report without a POWER machine:

    scripts/synthetic.py [SEED] > synthetic.script

Two CPUs, 1 s at about 3 entries/ms/CPU. CPU 0 is mostly idle (H_CEDE,
short waits); CPU 1 is busier (more time_slice preempts, a long tail of
enqueue-to-dispatch latencies). Not what any real machine logged."""
import random
import sys

TB_FREQ = 512_000_000
DISPATCH = ["external_interrupt", "H_PROD", "decrementer_interrupt",
            "time_slice", "priv_doorbell"]
PREEMPT = ["H_CEDE", "time_slice", "H_CONFER"]

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
boot_tb = 1_024_000_000
entries = []
for cpu in (0, 1):
    t = 0.0
    seq = 0
    while True:
        t += rng.expovariate(3000.0)
        if t >= 1.0:
            break
        if cpu == 0:
            dispatch = rng.choices(DISPATCH, [2, 6, 10, 1, 3])[0]
            preempt = rng.choices(PREEMPT, [18, 1, 1])[0]
            # Mostly 1-4 us.
            enqueue = int(rng.lognormvariate(7.3, 0.5))
        else:
            dispatch = rng.choices(DISPATCH, [3, 4, 6, 8, 1])[0]
            preempt = rng.choices(PREEMPT, [6, 10, 2])[0]
            # Slower, and one entry in fifty waits 20-200 us.
            enqueue = int(rng.lognormvariate(8.0, 0.7))
            if rng.random() < 0.02:
                enqueue = rng.randint(10_000, 100_000)
        tb = boot_tb + int(t * TB_FREQ)
        ready = int(rng.lognormvariate(6.5, 0.6))
        entries.append((tb, cpu, dispatch, preempt, enqueue, ready, seq))
        seq += 1
entries.sort()
out = sys.stdout
for tb, cpu, dispatch, preempt, enqueue, ready, seq in entries:
    ns = tb * 1_000_000_000 // TB_FREQ
    ip = 0xC000000000000000 | (rng.randrange(0x10000, 0xFFFFFF) & ~3)
    out.write(f"         swapper       0 [{cpu:03}] {ns // 10**9:5}.{ns % 10**9:09}:"
              f"           vpa-dtl: timebase: {tb} dispatch_reason:{dispatch},"
              f" preempt_reason:{preempt},\n")
    out.write(f"enqueue_to_dispatch_time:{enqueue}, ready_to_enqueue_time:{ready},"
              f"waiting_to_ready_time:{seq}, processor_id: {cpu} {ip:x}"
              f" snooze_loop+0x{ip & 0xfc:x} ([kernel.kallsyms])\n")
