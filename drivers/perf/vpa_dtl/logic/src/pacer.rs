// SPDX-License-Identifier: GPL-2.0

//! The adaptive polling period: from the rate at which entries arrive, poll
//! when about half a ring has been written.
//!
//! A poll of an idle vCPU is a dispatch, and a wakeup the C driver pays a
//! thousand times a second; a poll that comes after the ring has wrapped
//! loses entries. The pacer keeps an estimate of the arrival rate that rises
//! at once with a busier poll and halves with each quieter one, and polls
//! after the time that rate needs to write [`TARGET_FILL`] entries, within
//! [`Pacer::min_ns`] and [`Pacer::max_ns`] of the event's period.
//!
//! A session starts at the shortest period, since nothing is known of the
//! rate yet, and lengthens from there: traffic that is already flowing when
//! the event starts is not overrun by a first long period.
//!
//! Its limit: after a quiet stretch the period is up to
//! [`MAX_FACTOR`] times the event's, and a vCPU that turns busy at once can
//! write more than a ring in that time. Under PAPR the hypervisor writes a
//! vCPU's log when it dispatches that vCPU, and an idle vCPU is dispatched
//! only to run something, so the rate rises with the vCPU's activity.

/// Entries a poll aims to find: half the ring, so the rate can double
/// between two polls without an overrun.
pub const TARGET_FILL: u64 = super::ring::READABLE / 2;
/// The longest period, in event periods: a vCPU without DTL traffic is woken
/// this many times less often.
pub const MAX_FACTOR: u64 = 16;
/// The shortest period, as a fraction of the event's.
pub const MIN_DIVISOR: u64 = 16;
/// The shortest period at all, in ns.
pub const MIN_NS: u64 = 250_000;

/// Units of the rate estimate: entries per second, times 1024 (64-bit
/// arithmetic only: the kernel has no 128-bit division).
const SCALE: u64 = 1024 * 1_000_000_000;
/// Entries per poll the estimate takes in, at most (keeps `found * SCALE`
/// within 64 bits).
const FOUND_MAX: u64 = 1 << 20;

/// The adaptive period of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacer {
    base_ns: u64,
    cur_ns: u64,
    /// Entries per second, times 1024.
    rate: u64,
}

impl Pacer {
    /// A pacer for an event polling every `base_ns`; its first period is the
    /// shortest.
    pub fn new(base_ns: u64) -> Self {
        let mut p = Self {
            base_ns: base_ns.max(1),
            cur_ns: 0,
            rate: 0,
        };
        p.cur_ns = p.min_ns();
        p
    }

    /// The shortest period: a sixteenth of the event's, not below [`MIN_NS`].
    pub fn min_ns(&self) -> u64 {
        (self.base_ns / MIN_DIVISOR).max(MIN_NS)
    }

    /// The longest period: [`MAX_FACTOR`] times the event's.
    pub fn max_ns(&self) -> u64 {
        self.base_ns.saturating_mul(MAX_FACTOR).max(self.min_ns())
    }

    /// The period now.
    pub fn current_ns(&self) -> u64 {
        self.cur_ns
    }

    /// After a poll that found `found` entries, `elapsed_ns` after the
    /// previous one: the next period.
    pub fn next(&mut self, found: u64, elapsed_ns: u64) -> u64 {
        let sample = found.min(FOUND_MAX) * SCALE / elapsed_ns.max(1);
        // A busier poll counts at once; a quieter one halves the estimate.
        self.rate = sample.max(self.rate / 2 + sample / 2);
        let want = if self.rate == 0 {
            u64::MAX
        } else {
            TARGET_FILL * SCALE / self.rate
        };
        self.cur_ns = want.clamp(self.min_ns(), self.max_ns());
        self.cur_ns
    }
}
