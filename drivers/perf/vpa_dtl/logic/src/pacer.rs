// SPDX-License-Identifier: GPL-2.0

//! The polling period: the event's period (fixed), or longer while polls
//! find the ring nearly empty and shorter while they find it half full
//! (adaptive).
//!
//! A poll of an idle vCPU is a dispatch, and a wakeup the C driver pays a
//! thousand times a second; a poll that comes after the ring has wrapped
//! loses entries. After each poll the period:
//!
//! - doubles, up to [`MAX_FACTOR`] event periods, if the poll found at most
//!   [`Pacer::light`] entries (a quarter of the ring): at the same rate the
//!   next poll finds at most half, so the rate can double, or the timer run
//!   late by one period, before an entry is lost;
//! - halves, down to [`Pacer::min_ns`], if it found at least
//!   [`Pacer::busy`] (half the ring);
//! - stays as it is otherwise.
//!
//! So a steady rate settles where a poll finds between a quarter and half
//! of the ring (or at a bound): as few polls as the ring allows with that
//! margin, each poll's cost spread over as many entries (at 10 entries a
//! millisecond in a 4 KiB ring, a poll every 4 ms).
//!
//! The fixed period is the same rule with both bounds at the event's
//! period. The adaptive period never goes below 1 ms ([`MIN_NS`], as the event period itself), so a
//! busy vCPU costs no more polls than at its period. A session starts at the
//! shortest period, as nothing is known of the rate yet, and lengthens from
//! there: traffic already flowing when the event starts is not overrun by a
//! first long period.
//!
//! Lazy: a poll that leaves the adaptive period at its longest, having
//! found at most [`Pacer::quiet`] entries, asks for a lazy wait
//! ([`Pacer::lazy`]): the next poll runs at the CPU's first timer interrupt
//! after the period, and the CPU is not woken for it. Under PAPR a ceded
//! vCPU's log grows only when the vCPU is dispatched again, that is when it
//! wakes, and a CPU that runs takes timer interrupts (its tick at least);
//! so an idle vCPU is left asleep, and a vCPU that turns busy is polled
//! within a tick of the period. The wait has no deadline after a poll that
//! found at most one entry (the one dispatch a wakeup of the vCPU logs), and
//! otherwise [`LAZY_DEADLINE`] periods ([`Pacer::lazy_deadline_ns`]): a vCPU
//! whose log grows while it takes no timer interrupt (woken by device
//! interrupts only, under `NO_HZ`) is still polled before its ring can
//! fill. A writer with bursts ([`Pacer::bursts_up_to`]) gets no lazy wait,
//! nor, for [`LAZY_HOLD`] polls, an event whose poll found the ring full.
//!
//! Its limit: after a quiet stretch the period is up to [`MAX_FACTOR`]
//! event periods, and a vCPU that turns busy at once can write more than a
//! ring in that time. Under PAPR the hypervisor writes a vCPU's log when it
//! dispatches that vCPU, and an idle vCPU is dispatched only to run
//! something, so the rate rises with the vCPU's activity.

/// The longest period, in event periods: a vCPU without DTL traffic is woken
/// this many times less often.
pub const MAX_FACTOR: u64 = 16;
/// Polls after one that found the ring full during which no wait is lazy.
pub const LAZY_HOLD: u32 = 64;
/// The deadline of a lazy wait after a poll that found more than one entry,
/// in periods: at the rate that poll found (at most an eighth of the ring a
/// period), the ring is at most half full by then, even if the CPU took no
/// timer interrupt meanwhile.
pub const LAZY_DEADLINE: u64 = 4;
/// The shortest period, as a fraction of the event's.
pub const MIN_DIVISOR: u64 = 16;
/// The shortest period at all, in ns: the event period's own floor.
pub const MIN_NS: u64 = 1_000_000;

/// How the polling period follows the DTL's fill level (the module's
/// `adaptive` parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Poll at the event's sample period.
    Fixed,
    /// Poll less often while polls find the ring nearly empty, more often
    /// while they find it half full, within [period / 16, period * 16] and
    /// never below 1 ms. The default.
    Adaptive,
}

/// The polling period of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacer {
    base_ns: u64,
    cur_ns: u64,
    adaptive: bool,
    ring: u64,
    /// The longest adaptive period the writer's bursts allow (see
    /// [`Pacer::bursts_up_to`]).
    burst_cap_ns: u64,
    /// Whether quiet waits may be lazy ([`Pacer::lazy_waits`]).
    lazy_ok: bool,
    /// Polls left before a wait may be lazy again.
    hold: u32,
    /// Whether the wait [`Pacer::next`] returned last may be lazy.
    lazy: bool,
    /// Entries the last poll found.
    last_found: u64,
}

impl Pacer {
    /// A pacer for an event polling every `base_ns`, in `mode`, a ring of
    /// `ring` entries; its first period is the shortest.
    pub fn new(base_ns: u64, mode: Mode, ring: u64) -> Self {
        let mut p = Self {
            base_ns: base_ns.max(1),
            cur_ns: 0,
            adaptive: mode == Mode::Adaptive,
            ring,
            burst_cap_ns: u64::MAX,
            lazy_ok: true,
            hold: 0,
            lazy: false,
            last_found: 0,
        };
        p.cur_ns = p.min_ns();
        p
    }

    /// The same pacer for a writer whose bursts reach `per_ms` entries a
    /// millisecond after a quiet stretch (KVM logs at every guest entry):
    /// the adaptive period stays short enough for such a burst to fit in
    /// the ring (`ring / per_ms` ms), though never below [`Pacer::min_ns`].
    /// PAPR's hypervisor logs at dispatches, a few a millisecond, and keeps
    /// the plain bounds.
    pub fn bursts_up_to(mut self, per_ms: u64) -> Self {
        self.burst_cap_ns = self
            .ring
            .saturating_mul(1_000_000)
            .checked_div(per_ms)
            .unwrap_or(u64::MAX);
        self.cur_ns = self.cur_ns.min(self.max_ns());
        self
    }

    /// The same pacer, with lazy waits or not (the module's `lazy`
    /// parameter; see [`Pacer::lazy`]).
    pub fn lazy_waits(mut self, on: bool) -> Self {
        self.lazy_ok = on;
        self
    }

    /// Whether the wait [`Pacer::next`] returned last may be lazy:
    /// adaptive, lazy waits on, no bursty writer, at the longest period
    /// after a quiet poll, and no full ring in the last [`LAZY_HOLD`]
    /// polls.
    pub fn lazy(&self) -> bool {
        self.lazy
    }

    /// The deadline of a lazy wait, in ns: none after a poll that found at
    /// most one entry, else [`LAZY_DEADLINE`] periods.
    pub fn lazy_deadline_ns(&self) -> Option<u64> {
        (self.last_found > 1).then(|| self.cur_ns.saturating_mul(LAZY_DEADLINE))
    }

    /// A poll that found at most this many entries (a quarter of the ring)
    /// doubles the period.
    pub fn light(&self) -> u64 {
        self.ring / 4
    }

    /// A poll that found at most this many entries (an eighth of the ring)
    /// is quiet: at the longest period, the next wait may be lazy
    /// ([`Pacer::lazy`]).
    pub fn quiet(&self) -> u64 {
        self.ring / 8
    }

    /// A poll that found at least this many (half the ring) halves it.
    pub fn busy(&self) -> u64 {
        self.ring / 2
    }

    /// The shortest period: adaptive, a sixteenth of the event's, not below
    /// [`MIN_NS`]; fixed, the event's.
    pub fn min_ns(&self) -> u64 {
        if self.adaptive {
            (self.base_ns / MIN_DIVISOR).max(MIN_NS)
        } else {
            self.base_ns
        }
    }

    /// The longest period: adaptive, [`MAX_FACTOR`] times the event's, or
    /// less for a bursty writer ([`Pacer::bursts_up_to`]); fixed, the
    /// event's.
    pub fn max_ns(&self) -> u64 {
        if self.adaptive {
            self.base_ns
                .saturating_mul(MAX_FACTOR)
                .min(self.burst_cap_ns)
                .max(self.min_ns())
        } else {
            self.base_ns
        }
    }

    /// The period now.
    pub fn current_ns(&self) -> u64 {
        self.cur_ns
    }

    /// After a poll that found `found` entries (taken or overrun): the next
    /// period.
    pub fn next(&mut self, found: u64) -> u64 {
        self.hold = if found >= self.ring {
            LAZY_HOLD
        } else {
            self.hold.saturating_sub(1)
        };
        self.cur_ns = if found <= self.light() {
            self.cur_ns.saturating_mul(2).min(self.max_ns())
        } else if found >= self.busy() {
            (self.cur_ns / 2).max(self.min_ns())
        } else {
            self.cur_ns
        };
        self.last_found = found;
        self.lazy = self.adaptive
            && self.lazy_ok
            && self.burst_cap_ns == u64::MAX
            && found <= self.quiet()
            && self.cur_ns == self.max_ns()
            && self.hold == 0;
        self.cur_ns
    }
}
