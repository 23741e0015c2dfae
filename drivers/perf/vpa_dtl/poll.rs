// SPDX-License-Identifier: GPL-2.0

//! Polling: reading what the hypervisor logged since the last poll and
//! writing it to the AUX area, with every loss counted and flagged.
//!
//! [`Reader::poll`] reads one CPU's DTL into one event's AUX area and
//! returns what it found, wrote and lost ([`Outcome`]); the driver records
//! that. The reader knows the DTL and the AUX output, not the driver.

use crate::{
    logic::{
        aux_plan, entries,
        pacer::{self, Pacer},
        record, ring,
    },
    rpmu::{
        perf::{AuxFlags, AuxOutput, Event, PmuDriver},
        pseries::dtl::{Displacement, DtlBuffer, Mode, Start},
    },
    take::{take_direct, take_general, Cursor, Seen},
};
use kernel::{pr_warn_once, prelude::*, time::Delta};

/// The DTL reader's state, touched by the PMU callbacks and the timer on the
/// event's CPU (under the event's raw spinlock).
pub(crate) struct Reader {
    /// Absolute index of the next entry to read.
    next: u64,
    /// The published index last seen, while another DTL user has the log.
    foreign_head: u64,
    /// A loss not yet flagged in an AUX record.
    flag_partial: bool,
    /// What the checks of taken entries carry from poll to poll.
    cursor: Cursor,
    /// The polling period.
    pacer: Pacer,
    /// Polls that wrote into the AUX transaction held open
    /// ([`aux_plan::keep_open`]).
    held_polls: u32,
    /// Where entries are copied and checked when the AUX area cannot take
    /// them all directly: as large as the ring.
    scratch: KVVec<u8>,
}

impl Reader {
    /// A reader with a scratch buffer of `bytes` (the ring's, see
    /// `DtlBuffer::capacity_bytes`); reading starts at `reset`.
    pub(crate) fn new(bytes: usize) -> Result<Self> {
        let scratch = KVVec::from_elem(0u8, bytes, GFP_KERNEL)?;
        Ok(Self {
            next: 0,
            foreign_head: 0,
            flag_partial: false,
            cursor: Cursor {
                floor: 0,
                last_entry: [0; entries::WORDS],
                concurrent: false,
            },
            pacer: Pacer::new(1_000_000, pacer::Mode::Fixed, ring::RING_ENTRIES),
            held_polls: 0,
            scratch,
        })
    }

    /// Reading starts at `start` (see `DtlBuffer::register`).
    pub(crate) fn reset(&mut self, start: Start, pacer: Pacer) {
        self.next = start.index;
        self.cursor.floor = start.timebase;
        self.flag_partial = false;
        self.held_polls = 0;
        self.cursor.last_entry = [0; entries::WORDS];
        self.set_pacer(pacer);
    }

    /// The polling from `start` on (a session starts again from its shortest
    /// period); returns the first period.
    pub(crate) fn set_pacer(&mut self, pacer: Pacer) -> Delta {
        self.pacer = pacer;
        ns_delta(pacer.current_ns())
    }

    /// The period after a poll that found `found` entries (its
    /// [`Outcome::found`]).
    pub(crate) fn pace(&mut self, found: u64) -> Delta {
        ns_delta(self.pacer.next(found))
    }

    /// Whether the period [`Reader::pace`] returned may be waited lazily
    /// (`Some`, with the wait's deadline, if any), as [`Pacer::lazy`] and
    /// [`Pacer::lazy_deadline_ns`] say.
    pub(crate) fn lazy(&self) -> Option<Option<Delta>> {
        self.pacer
            .lazy()
            .then(|| self.pacer.lazy_deadline_ns().map(ns_delta))
    }
}

/// The record that opens every AUX transaction: the boot timebase and the
/// timebase frequency, which perf's decoder needs for timestamps.
pub(crate) struct Header {
    words: [u64; entries::WORDS],
    bytes: [u8; ring::ENTRY_SIZE],
}

impl Header {
    /// The header for `boot_tb` and `tb_freq`.
    pub(crate) fn new(boot_tb: u64, tb_freq: u64) -> Self {
        Self {
            words: record::header_words(boot_tb, tb_freq),
            bytes: record::header(boot_tb, tb_freq),
        }
    }
}

/// What one poll found, wrote and lost: the driver adds it to the event's
/// and the PMU's counts.
#[derive(Default)]
pub(crate) struct Outcome {
    /// Entries logged since the last poll (taken, and overrun): what the
    /// pacer adapts to.
    pub(crate) found: u64,
    /// Entries written to the AUX area.
    pub(crate) captured: u64,
    /// Entries the hypervisor overwrote before they were read, torn ones
    /// included.
    pub(crate) lost_overrun: u64,
    /// Of `lost_overrun`: entries overwritten while the poll copied them.
    pub(crate) torn: u64,
    /// Entries that did not fit in the AUX area.
    pub(crate) lost_aux_full: u64,
    /// Entries logged for another DTL user while it held the CPU's log.
    pub(crate) lost_foreign: u64,
    /// Entries of kinds only the kernel's own reader asked for.
    pub(crate) filtered: u64,
    /// Whether this poll found the log taken by another DTL user.
    pub(crate) displaced: bool,
}

fn ns_delta(ns: u64) -> Delta {
    Delta::from_nanos(i64::try_from(ns).unwrap_or(i64::MAX))
}

impl Reader {
    /// Reads what the hypervisor published in `buf` since the last poll and
    /// writes it to `ev`'s AUX area, each transaction opened by `header`.
    /// Runs on the event's CPU with interrupts disabled (`ev` is
    /// `Scheduled`). `mask` is the event's enable mask; `live` is false for
    /// the last poll at `stop` and `del`, after logging was turned off (the
    /// mask is not checked then).
    pub(crate) fn poll<T: PmuDriver>(
        &mut self,
        ev: &Event<T>,
        buf: &DtlBuffer,
        mask: u8,
        header: &Header,
        live: bool,
    ) -> Outcome {
        let mut o = Outcome::default();
        let cpu = u32::from(buf.cpu());
        if buf.is_displaced() {
            o.lost_foreign = self.count_foreign(buf);
            self.end_held(ev);
            return o;
        }
        if live && !buf.logging_intact(mask) {
            if buf.mode() == Mode::Own {
                // Another user is taking the log. What is in our ring up to
                // the published index is still ours: read it this once.
                pr_warn_once!(
                    "cpu {}: another DTL user changed the enable mask; vpa_dtl stops reading this CPU's log\n",
                    cpu
                );
                buf.mark_displaced(Displacement::MaskChanged);
                o.displaced = true;
            } else {
                // Another reader of the kernel's ring reset the mask; ours
                // is back, but entries may have gone unlogged meanwhile.
                pr_warn_once!(
                    "cpu {}: the DTL enable mask was reset by another reader; restored\n",
                    cpu
                );
            }
            self.flag_partial = true;
        }
        // The ring as registered; the scratch buffer holds its capacity.
        let ring_entries = buf.entries();
        let readable = ring::readable(ring_entries as u64, self.cursor.concurrent);
        let dispatches = buf.dispatch_count();
        let head = buf.index_before_reading();
        let Some(span) = ring::plan(self.next, head, readable) else {
            if buf.mode() == Mode::Own {
                // What our ring held since the last poll is gone with the
                // old index: flagged, but its size is unknown.
                self.reregistered(buf, head, &mut o);
            } else {
                // The kernel registered its ring anew: what was logged
                // since our last poll is unknown.
                pr_warn_once!(
                    "cpu {}: the kernel's DTL was registered anew; resynchronising\n",
                    cpu
                );
                self.next = head;
            }
            flag_loss(ev);
            self.held_polls = 0;
            return o;
        };
        if span.count == 0 && span.lost == 0 && !self.flag_partial {
            // Quiet: what a held transaction has waits no longer.
            self.end_held(ev);
            return o;
        }
        self.next = head;
        // Entries of kinds the event did not ask for, in the kernel's ring,
        // are the kernel's (or another reader's), whatever the mask is now.
        let drop_kinds = match buf.mode() {
            Mode::Shared => record::DTL_ALL & !mask,
            Mode::Own => 0,
        };
        let seen = Seen {
            span,
            head,
            readable,
            ring: ring_entries,
            dispatches,
            drop_kinds,
            // A ring of no entries (never) makes every slot out of bounds.
            start: span.first.checked_rem(ring_entries as u64).unwrap_or(0) as usize,
        };

        // The transaction held open since an earlier poll, or a new one. A
        // gap before this poll's entries ends a held transaction first, so
        // that the record flagged for it starts at the gap.
        let mut out = ev.aux_output_begin();
        if span.lost > 0 || self.flag_partial {
            out = restart(ev, out);
        }
        // Entries go straight into the AUX area (after the header record's
        // slot in a new transaction) when the space perf granted holds them
        // all (and keeps one byte free, see `aux_plan`) and `take_direct`
        // can check them in the ring; otherwise through the scratch buffer.
        let opened = out.as_ref().is_none_or(|o| o.written() == 0);
        let at = if opened { ring::ENTRY_SIZE } else { 0 };
        let space = out.as_ref().map_or(0, |o| o.space());
        // `count <= ring`: never saturates. A saturated size would
        // exceed any space and take the scratch buffer.
        let direct = (span.count as usize)
            .saturating_mul(ring::ENTRY_SIZE)
            .saturating_add(at);
        let mut done = None;
        if space > direct {
            if let Some(mut win) = out.as_mut().and_then(|o| o.reserve(direct)) {
                if let Some(t) = take_direct(buf, &mut self.cursor, &seen, &mut win, at) {
                    let plan = plan(opened, space, t.pending as u64);
                    if plan.header {
                        win.write_words(0, &header.words);
                    }
                    win.keep(plan.bytes());
                    done = Some((t, plan.entries, plan.dropped, opened));
                }
            }
        }
        // `new_tx`: the poll opened the transaction it wrote into.
        let (t, written, lost_aux, new_tx) = match done {
            Some(d) => d,
            None => {
                let batch = &mut self.scratch[..];
                let t = take_general(buf, &mut self.cursor, &seen, batch);
                if t.torn > 0 {
                    // Entries torn during the copy: a gap before the rest.
                    out = restart(ev, out);
                }
                let pending = t.pending as u64;
                let new_tx = out.as_ref().is_none_or(|o| o.written() == 0);
                let (written, lost) = match out.as_mut() {
                    // No AUX area mapped, or perf found it full and disabled
                    // the event.
                    None => (0, pending),
                    Some(o) => {
                        let plan = plan(new_tx, o.space(), pending);
                        // `entries <= pending`, which the batch holds: never
                        // saturates (a saturated length is past the batch).
                        let body = batch
                            .get(..(plan.entries as usize).saturating_mul(ring::ENTRY_SIZE))
                            .unwrap_or(&[]);
                        let ok = (!plan.header || o.write(&header.bytes).is_ok())
                            && o.write(body).is_ok();
                        if ok {
                            (plan.entries, plan.dropped)
                        } else {
                            (0, pending)
                        }
                    }
                };
                (t, written, lost, new_tx)
            }
        };

        // Loss counts: `lost + torn + stale <= lost + count = head - next`
        // (`ring::plan`), so they never saturate.
        let mut lost_overrun = span.lost.saturating_add(t.torn);
        if t.stale > 0 {
            if buf.mode() == Mode::Own {
                // The ring is no longer written.
                self.reregistered(buf, head, &mut o);
            } else {
                lost_overrun = lost_overrun.saturating_add(t.stale as u64);
            }
        }
        if buf.is_displaced() && self.foreign_head < head {
            // From here on, what the hypervisor logs is the other user's.
            self.foreign_head = head;
        }
        let partial = lost_overrun > 0 || self.flag_partial || buf.is_displaced();
        // `head - next` (`ring::plan`): never saturates.
        o.found = span.count.saturating_add(span.lost);
        if let Some(mut out) = out {
            if lost_aux > 0 {
                out.set_flags(AuxFlags::TRUNCATED);
            }
            if partial {
                out.set_flags(AuxFlags::PARTIAL);
                self.flag_partial = false;
            }
            // A new transaction counts from this poll.
            let polls = if new_tx {
                1
            } else {
                self.held_polls.saturating_add(1)
            };
            let hold = aux_plan::Hold {
                live,
                loss: partial || lost_aux > 0,
                found: o.found,
                quiet: self.pacer.quiet(),
                ring: ring_entries as u64,
                space: out.space(),
                past_wakeup: out.past_wakeup(),
                polls,
            };
            if aux_plan::keep_open(&hold) {
                self.held_polls = polls;
                out.hold();
            } else {
                self.held_polls = 0;
                out.commit();
            }
        }
        o.captured = written;
        o.lost_overrun = lost_overrun;
        o.torn = t.torn;
        o.lost_aux_full = lost_aux;
        o.filtered = t.filtered as u64;
        o
    }

    /// Ends the AUX transaction an earlier poll held open, if any.
    fn end_held<T: PmuDriver>(&mut self, ev: &Event<T>) {
        self.held_polls = 0;
        if ev.aux_is_held() {
            if let Some(out) = ev.aux_output_begin() {
                out.commit();
            }
        }
    }

    /// Another DTL user registered its buffer in place of ours (`Own`): its
    /// registration restarted the index, so the `head` entries it counts so
    /// far were logged for it, not for this event.
    fn reregistered(&mut self, buf: &DtlBuffer, head: u64, o: &mut Outcome) {
        pr_warn_once!(
            "cpu {}: another DTL user registered its buffer; vpa_dtl stops reading this CPU's log\n",
            u32::from(buf.cpu())
        );
        if !buf.is_displaced() {
            o.displaced = true;
        }
        buf.mark_displaced(Displacement::Reregistered);
        o.lost_foreign = o.lost_foreign.saturating_add(head);
        self.foreign_head = head;
    }

    /// While displaced: entries the hypervisor logs for the other user are
    /// entries this event does not get; returns how many since the last
    /// poll.
    fn count_foreign(&mut self, buf: &DtlBuffer) -> u64 {
        let head = buf.published_index();
        let lost = match head.checked_sub(self.foreign_head) {
            Some(n) => n,
            None => {
                // The other user registered its buffer: its index restarted.
                buf.mark_displaced(Displacement::Reregistered);
                head
            }
        };
        self.foreign_head = head;
        lost
    }
}

/// Marks the AUX stream: an empty record flagged `PARTIAL` (after the
/// transaction held open, if any, ends unflagged).
fn flag_loss<T: PmuDriver>(ev: &Event<T>) {
    if let Some(mut out) = restart(ev, ev.aux_output_begin()) {
        out.set_flags(AuxFlags::PARTIAL);
        out.commit();
    }
}

/// `out`, or, if it holds entries of earlier polls, a new transaction after
/// it ends: a gap is flagged on the record that starts at it.
fn restart<'a, T: PmuDriver>(
    ev: &'a Event<T>,
    out: Option<AuxOutput<'a, T>>,
) -> Option<AuxOutput<'a, T>> {
    match out {
        Some(o) if o.written() > 0 => {
            o.commit();
            ev.aux_output_begin()
        }
        o => o,
    }
}

/// The plan for `pending` entries in `space` bytes: with the header record
/// first in a transaction just `opened`, entries only in one held open.
fn plan(opened: bool, space: usize, pending: u64) -> aux_plan::AuxPlan {
    if opened {
        aux_plan::plan(space, pending)
    } else {
        aux_plan::plan_continued(space, pending)
    }
}
