// SPDX-License-Identifier: GPL-2.0

//! Polling: reading what the hypervisor logged since the last poll and
//! writing it to the AUX area, with every loss counted and flagged.

use crate::{
    logic::{aux_plan, record, ring, validate},
    pmu::VpaDtl,
    rpmu::perf::{AuxFlags, Event},
    TimerMode,
};
use kernel::{
    pr_warn_once,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    time::Delta,
};

/// The DTL reader's state, touched by the PMU callbacks and the timer on the
/// event's CPU (under the event's raw spinlock).
pub(crate) struct Reader {
    /// Absolute index of the next entry to read.
    next: u64,
    /// The event's sample period.
    base: Delta,
    /// The current polling period (equal to `base` in fixed mode).
    current: Delta,
    /// Entries copied out of the ring before they are checked and written.
    scratch: KBox<[u8; ring::BUFFER_BYTES]>,
}

impl Reader {
    pub(crate) fn new() -> Result<Self> {
        let scratch = KBox::init::<core::convert::Infallible>(
            pin_init::zeroed::<[u8; ring::BUFFER_BYTES]>(),
            GFP_KERNEL,
        )?;
        Ok(Self {
            next: 0,
            base: Delta::from_millis(1),
            current: Delta::from_millis(1),
            scratch,
        })
    }

    /// A freshly registered buffer: its index starts at zero.
    pub(crate) fn reset(&mut self, period: Delta) {
        self.next = 0;
        self.set_base_period(period);
    }

    /// The event's period, set at `start`.
    pub(crate) fn set_base_period(&mut self, period: Delta) {
        self.base = period;
        self.current = period;
    }
}

/// Per-AUX-area state.
pub(crate) struct DtlAux {
    header_written: Atomic<bool>,
}

impl DtlAux {
    pub(crate) fn new() -> Self {
        Self {
            header_written: Atomic::new(false),
        }
    }
}

impl VpaDtl {
    /// Reads what the hypervisor published since the last poll and writes it
    /// to the AUX area; returns the entries found. Runs on the event's CPU
    /// with interrupts disabled.
    pub(crate) fn poll(&self, ev: &Event<Self>) -> u64 {
        let d = ev.data();
        let mut r = d.reader.lock();
        let head = d.buf.published_index();
        let Some(span) = ring::plan(r.next, head) else {
            pr_warn_once!(
                "cpu {}: DTL index went back from {} to {}; resynchronising\n",
                u32::from(d.buf.cpu()),
                r.next,
                head
            );
            r.next = head;
            return 0;
        };
        if span.count == 0 && span.lost == 0 {
            return 0;
        }
        let mut off = 0;
        let mut copied = true;
        for (slot, len) in ring::runs(span.first, span.count) {
            let dst = r.scratch.get_mut(off..).unwrap_or(&mut []);
            copied &= d.buf.copy_slots(slot, len, dst).is_ok();
            off += len * ring::ENTRY_SIZE;
        }
        // Entries the hypervisor reached while we copied may be torn.
        let torn = if copied {
            ring::torn(&span, d.buf.published_index())
        } else {
            span.count
        };
        r.next = head;
        let lost_overrun = span.lost + torn;
        let pending = span.count - torn;
        let first = torn as usize * ring::ENTRY_SIZE;
        let entries = r
            .scratch
            .get(first..span.count as usize * ring::ENTRY_SIZE)
            .unwrap_or(&[]);

        let (written, lost_aux) = match ev.aux_output_begin() {
            // No AUX area mapped, or perf found it full and disabled the event.
            None => (0, pending),
            Some(mut out) => {
                let need_header = !out.data().header_written.load(Relaxed);
                let plan = aux_plan::plan(out.space(), need_header, pending);
                let mut ok = true;
                if plan.header {
                    ok = out
                        .write(&record::header(self.boot_tb, self.tb_freq))
                        .is_ok();
                    out.data().header_written.store(ok, Relaxed);
                }
                let n = plan.entries as usize * ring::ENTRY_SIZE;
                let body = entries.get(..n).unwrap_or(&[]);
                let (written, lost) = if ok && out.write(body).is_ok() {
                    (plan.entries, plan.dropped)
                } else {
                    (0, pending)
                };
                if lost > 0 {
                    out.set_flags(AuxFlags::TRUNCATED);
                }
                if lost_overrun > 0 {
                    out.set_flags(AuxFlags::PARTIAL);
                }
                out.commit();
                (written, lost)
            }
        };
        d.stats.add(written, lost_overrun, lost_aux);
        self.totals.add(written, lost_overrun, lost_aux);
        span.count
    }

    /// The next polling period after a poll that found `found` entries.
    pub(crate) fn next_period(&self, ev: &Event<Self>, found: u64) -> Delta {
        let d = ev.data();
        let mut r = d.reader.lock();
        if self.mode == TimerMode::Fixed {
            return r.base;
        }
        let base = r.base.as_nanos();
        let min = (base / 8).max(validate::MIN_PERIOD_NS as i64);
        let max = base.saturating_mul(4);
        let cur = r.current.as_nanos();
        let next = if found >= ring::READABLE / 2 {
            (cur / 2).max(min)
        } else if found == 0 {
            cur.saturating_mul(2).min(max)
        } else {
            cur
        };
        r.current = Delta::from_nanos(next);
        r.current
    }
}
