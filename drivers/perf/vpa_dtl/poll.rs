// SPDX-License-Identifier: GPL-2.0

//! Polling: reading what the hypervisor logged since the last poll and
//! writing it to the AUX area, with every loss counted and flagged.

use crate::{
    logic::{aux_plan, entries, pacer::Pacer, record, ring},
    pmu::VpaDtl,
    rpmu::{
        perf::{AuxFlags, Event},
        pseries::dtl::{Displacement, Mode, Start},
    },
};
use kernel::{pr_notice_once, pr_warn_once, prelude::*, time::Delta};

/// The DTL reader's state, touched by the PMU callbacks and the timer on the
/// event's CPU (under the event's raw spinlock).
pub(crate) struct Reader {
    /// Absolute index of the next entry to read.
    next: u64,
    /// Timebase no later than the next entry's: the last one taken, or when
    /// reading started.
    floor: u64,
    /// The published index last seen, while another DTL user has the log.
    foreign_head: u64,
    /// A loss not yet flagged in an AUX record.
    flag_partial: bool,
    /// The last entry taken: a slot no longer written repeats it.
    last_entry: [u8; ring::ENTRY_SIZE],
    /// The log was seen written while this CPU ran a poll without being
    /// preempted: a writer concurrent with the reader, which PAPR's
    /// dispatch-time logging rules out. From then on the oldest slot, which
    /// the next write may be half way through, is not taken.
    concurrent: bool,
    /// The polling period.
    pacer: Pacer,
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
            floor: 0,
            foreign_head: 0,
            flag_partial: false,
            last_entry: [0; ring::ENTRY_SIZE],
            concurrent: false,
            pacer: Pacer::new(1_000_000, false),
            scratch,
        })
    }

    /// Reading starts at `start` (see `DtlBuffer::register`).
    pub(crate) fn reset(&mut self, start: Start, pacer: Pacer) {
        self.next = start.index;
        self.floor = start.timebase;
        self.flag_partial = false;
        self.last_entry = [0; ring::ENTRY_SIZE];
        self.set_pacer(pacer);
    }

    /// The polling from `start` on (a session starts again from its shortest
    /// period); returns the first period.
    pub(crate) fn set_pacer(&mut self, pacer: Pacer) -> Delta {
        self.pacer = pacer;
        ns_delta(pacer.current_ns())
    }
}

fn ns_delta(ns: u64) -> Delta {
    Delta::from_nanos(i64::try_from(ns).unwrap_or(i64::MAX))
}

/// Per-AUX-area state: none (every transaction starts with the header).
pub(crate) struct DtlAux;

impl VpaDtl {
    /// Reads what the hypervisor published since the last poll and writes it
    /// to the AUX area. Runs on the event's CPU with interrupts disabled.
    /// `live` is false for the last poll at `stop` and `del`, after logging
    /// was turned off (the enable mask is not checked then).
    pub(crate) fn poll(&self, ev: &Event<Self>, live: bool) {
        let mut r = ev.data().reader.lock();
        self.poll_locked(ev, &mut r, live);
    }

    /// The timer's poll: reads, and returns the next period, under one
    /// hold of the reader's lock.
    pub(crate) fn poll_and_pace(&self, ev: &Event<Self>) -> Delta {
        let mut r = ev.data().reader.lock();
        let found = self.poll_locked(ev, &mut r, true);
        ns_delta(r.pacer.next(found))
    }

    /// [`Self::poll`] with the reader's lock held; returns the entries logged
    /// since the last poll (taken, and overrun).
    fn poll_locked(&self, ev: &Event<Self>, r: &mut Reader, live: bool) -> u64 {
        let d = ev.data();
        let buf = &d.buf;
        let cpu = u32::from(buf.cpu());
        if buf.is_displaced() {
            self.count_foreign(ev, r);
            return 0;
        }
        if live && !buf.logging_intact(d.mask) {
            if buf.mode() == Mode::Own {
                // Another user is taking the log. What is in our ring up to
                // the published index is still ours: read it this once.
                pr_warn_once!(
                    "cpu {}: another DTL user changed the enable mask; vpa_dtl stops reading this CPU's log\n",
                    cpu
                );
                buf.mark_displaced(Displacement::MaskChanged);
                self.totals.add_displaced();
            } else {
                // Another reader of the kernel's ring reset the mask; ours
                // is back, but entries may have gone unlogged meanwhile.
                pr_warn_once!(
                    "cpu {}: the DTL enable mask was reset by another reader; restored\n",
                    cpu
                );
            }
            r.flag_partial = true;
        }
        let readable = if r.concurrent {
            ring::READABLE_CONCURRENT
        } else {
            ring::READABLE
        };
        let dispatches = buf.dispatch_count();
        let head = buf.published_index();
        let Some(span) = ring::plan(r.next, head, readable) else {
            if buf.mode() == Mode::Own {
                // What our ring held since the last poll is gone with the
                // old index: flagged, but its size is unknown.
                self.reregistered(ev, &mut r.foreign_head, head);
            } else {
                // The kernel registered its ring anew: what was logged
                // since our last poll is unknown.
                pr_warn_once!(
                    "cpu {}: the kernel's DTL was registered anew; resynchronising\n",
                    cpu
                );
                r.next = head;
            }
            self.flag_loss(ev);
            return 0;
        };
        if span.count == 0 && span.lost == 0 && !r.flag_partial {
            return 0;
        }
        let mut off = 0;
        let mut copied = true;
        for (slot, len) in ring::runs(span.first, span.count) {
            let dst = r.scratch.get_mut(off..).unwrap_or(&mut []);
            copied &= buf.copy_slots(slot, len, dst).is_ok();
            off += len * ring::ENTRY_SIZE;
        }
        // Entries the hypervisor reached while we copied are torn. The
        // oldest slot of a full ring is the next one written, and is torn
        // too if it holds an entry newer than the next slot's (the next
        // entry, written there but not yet published) or if it changed after
        // we copied it: a writer racing the copy, which PHYP's dispatch-time
        // logging rules out on this CPU.
        let head_after = buf.published_index();
        let mut torn = if copied {
            ring::torn(&span, head_after, readable)
        } else {
            span.count
        };
        if torn < span.count && span.first + torn + ring::RING_ENTRIES == head_after {
            let at = torn as usize * ring::ENTRY_SIZE;
            let lapped = r
                .scratch
                .get(at..span.count as usize * ring::ENTRY_SIZE)
                .is_some_and(entries::oldest_lapped);
            // Copied again only if it was not already found torn.
            let changed = !lapped && {
                let mut again = [0u8; ring::ENTRY_SIZE];
                let slot = ((span.first + torn) % ring::RING_ENTRIES) as usize;
                !(buf.copy_slots(slot, 1, &mut again).is_ok()
                    && r.scratch.get(at..at + ring::ENTRY_SIZE) == Some(&again[..]))
            };
            if lapped || changed || buf.published_index() != head_after {
                torn += 1;
            }
        }
        // A write seen during the poll (the index moved, or the oldest slot
        // was torn) while this CPU was not dispatched anew can only come
        // from a writer concurrent with the reader.
        let written = head_after != head || torn > 0;
        if written && copied && buf.dispatch_count() == dispatches && !r.concurrent {
            pr_notice_once!(
                "cpu {}: the DTL was written while this CPU read it, unpreempted; taking 84 entries per poll from now on\n",
                cpu
            );
            r.concurrent = true;
        }
        r.next = head;
        let mut lost_overrun = span.lost + torn;
        let kept = (span.count - torn) as usize;
        let first = torn as usize * ring::ENTRY_SIZE;
        let floor = r.floor;
        let batch = r
            .scratch
            .get_mut(first..span.count as usize * ring::ENTRY_SIZE)
            .unwrap_or(&mut []);
        // Never emit a slot the hypervisor did not write for us.
        let (fresh, last_tb) = entries::fresh_prefix(batch, floor, &r.last_entry);
        let stale = kept - fresh;
        if fresh > 0 {
            let at = (fresh - 1) * ring::ENTRY_SIZE;
            if let Some(e) = batch.get(at..at + ring::ENTRY_SIZE) {
                r.last_entry.copy_from_slice(e);
            }
        }
        // Entries of kinds the event did not ask for, in the kernel's ring,
        // are the kernel's (or another reader's), whatever the mask is now.
        let drop_kinds = match buf.mode() {
            Mode::Shared => record::DTL_ALL & !d.mask,
            Mode::Own => 0,
        };
        let pending = entries::filter_kinds(batch, fresh, drop_kinds);
        let filtered = (fresh - pending) as u64;
        let pending = pending as u64;
        r.floor = last_tb;
        if stale > 0 {
            if buf.mode() == Mode::Own {
                // The ring is no longer written.
                self.reregistered(ev, &mut r.foreign_head, head);
            } else {
                lost_overrun += stale as u64;
            }
        }
        if buf.is_displaced() && r.foreign_head < head {
            // From here on, what the hypervisor logs is the other user's.
            r.foreign_head = head;
        }
        let partial = lost_overrun > 0 || r.flag_partial || buf.is_displaced();

        let (written, lost_aux) = match ev.aux_output_begin() {
            // No AUX area mapped, or perf found it full and disabled the event.
            None => (0, pending),
            Some(mut out) => {
                let plan = aux_plan::plan(out.space(), pending);
                let body = batch
                    .get(..plan.entries as usize * ring::ENTRY_SIZE)
                    .unwrap_or(&[]);
                let ok = !plan.header
                    || (out
                        .write(&record::header(self.boot_tb, self.tb_freq))
                        .is_ok()
                        && out.write(body).is_ok());
                let (written, lost) = if ok {
                    (plan.entries, plan.dropped)
                } else {
                    (0, pending)
                };
                if lost > 0 {
                    out.set_flags(AuxFlags::TRUNCATED);
                }
                if partial {
                    out.set_flags(AuxFlags::PARTIAL);
                    r.flag_partial = false;
                }
                out.commit();
                (written, lost)
            }
        };
        d.stats.add(written, lost_overrun, lost_aux);
        d.stats.add_filtered(filtered);
        d.stats.add_torn(torn);
        self.totals.add(written, lost_overrun, lost_aux);
        self.totals.add_filtered(filtered);
        self.totals.add_torn(torn);
        span.count + span.lost
    }

    /// Another DTL user registered its buffer in place of ours (`Own`): its
    /// registration restarted the index, so the `head` entries it counts so
    /// far were logged for it, not for this event.
    fn reregistered(&self, ev: &Event<Self>, foreign_head: &mut u64, head: u64) {
        let d = ev.data();
        let buf = &d.buf;
        pr_warn_once!(
            "cpu {}: another DTL user registered its buffer; vpa_dtl stops reading this CPU's log\n",
            u32::from(buf.cpu())
        );
        if !buf.is_displaced() {
            self.totals.add_displaced();
        }
        buf.mark_displaced(Displacement::Reregistered);
        d.stats.add_foreign(head);
        self.totals.add_foreign(head);
        *foreign_head = head;
    }

    /// While displaced: entries the hypervisor logs for the other user are
    /// entries this event does not get.
    fn count_foreign(&self, ev: &Event<Self>, r: &mut Reader) {
        let d = ev.data();
        let head = d.buf.published_index();
        let lost = if head < r.foreign_head {
            // The other user registered its buffer: its index restarted.
            d.buf.mark_displaced(Displacement::Reregistered);
            head
        } else {
            head - r.foreign_head
        };
        r.foreign_head = head;
        if lost > 0 {
            d.stats.add_foreign(lost);
            self.totals.add_foreign(lost);
        }
    }

    /// Marks the AUX stream: an empty record flagged `PARTIAL`.
    fn flag_loss(&self, ev: &Event<Self>) {
        if let Some(mut out) = ev.aux_output_begin() {
            out.set_flags(AuxFlags::PARTIAL);
            out.commit();
        }
    }
}
