// SPDX-License-Identifier: GPL-2.0

//! Layouts of the records in the DTL buffer and in the AUX area.

use super::ring::ENTRY_SIZE;

/// Enable-mask bits (`lppaca::dtl_enable_mask`) and event codes.
pub const DTL_CEDE: u8 = 0x1;
/// Time-slice preempts.
pub const DTL_PREEMPT: u8 = 0x2;
/// Virtual partition memory page faults.
pub const DTL_FAULT: u8 = 0x4;
/// All of the above.
pub const DTL_ALL: u8 = DTL_CEDE | DTL_PREEMPT | DTL_FAULT;

/// Whether `config` is a valid event code: one kind or all of them.
pub fn valid_config(config: u64) -> bool {
    matches!(config, 0x1 | 0x2 | 0x4 | 0x7)
}

/// One dispatch trace log entry (`struct dtl_entry`); big-endian in memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct DtlEntry {
    /// Why the virtual processor was dispatched.
    pub dispatch_reason: u8,
    /// Why it was preempted.
    pub preempt_reason: u8,
    /// Physical processor it ran on.
    pub processor_id: u16,
    /// Time from enqueue to dispatch (timebase ticks).
    pub enqueue_to_dispatch_time: u32,
    /// Time from ready to enqueue.
    pub ready_to_enqueue_time: u32,
    /// Time from waiting to ready.
    pub waiting_to_ready_time: u32,
    /// Timebase at dispatch.
    pub timebase: u64,
    /// Faulting address for page-fault preempts.
    pub fault_addr: u64,
    /// SRR0 at preempt.
    pub srr0: u64,
    /// SRR1 at preempt.
    pub srr1: u64,
}

impl DtlEntry {
    /// The big-endian memory image the hypervisor writes.
    pub fn to_be_bytes(self) -> [u8; ENTRY_SIZE] {
        let mut b = [0u8; ENTRY_SIZE];
        b[0] = self.dispatch_reason;
        b[1] = self.preempt_reason;
        put(&mut b, 2, &self.processor_id.to_be_bytes());
        put(&mut b, 4, &self.enqueue_to_dispatch_time.to_be_bytes());
        put(&mut b, 8, &self.ready_to_enqueue_time.to_be_bytes());
        put(&mut b, 12, &self.waiting_to_ready_time.to_be_bytes());
        put(&mut b, 16, &self.timebase.to_be_bytes());
        put(&mut b, 24, &self.fault_addr.to_be_bytes());
        put(&mut b, 32, &self.srr0.to_be_bytes());
        put(&mut b, 40, &self.srr1.to_be_bytes());
        b
    }

    /// Parses the big-endian memory image.
    pub fn from_be_bytes(b: &[u8; ENTRY_SIZE]) -> Self {
        Self {
            dispatch_reason: b[0],
            preempt_reason: b[1],
            processor_id: u16::from_be_bytes(get(b, 2)),
            enqueue_to_dispatch_time: u32::from_be_bytes(get(b, 4)),
            ready_to_enqueue_time: u32::from_be_bytes(get(b, 8)),
            waiting_to_ready_time: u32::from_be_bytes(get(b, 12)),
            timebase: u64::from_be_bytes(get(b, 16)),
            fault_addr: u64::from_be_bytes(get(b, 24)),
            srr0: u64::from_be_bytes(get(b, 32)),
            srr1: u64::from_be_bytes(get(b, 40)),
        }
    }
}

/// Copies `src` into `b` from byte `at` on, as far as `b` reaches (the
/// fields of an entry always fit: their offsets are constants).
fn put(b: &mut [u8], at: usize, src: &[u8]) {
    for (d, s) in b.iter_mut().skip(at).zip(src) {
        *d = *s;
    }
}

/// The `N` bytes of `b` from byte `at` on (zero past its end).
fn get<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    for (d, s) in a.iter_mut().zip(b.iter().skip(at)) {
        *d = *s;
    }
    a
}

/// The record that starts every AUX session: `boot_tb` and `tb_freq` in
/// native byte order, then a zero `timebase` word that tells it apart from a
/// DTL entry, padded to an entry's size (the layout perf's
/// `tools/perf/util/powerpc-vpadtl.c` reads).
pub fn header(boot_tb: u64, tb_freq: u64) -> [u8; ENTRY_SIZE] {
    let mut b = [0u8; ENTRY_SIZE];
    let words = header_words(boot_tb, tb_freq);
    for (d, s) in b
        .iter_mut()
        .zip(words.into_iter().flat_map(u64::to_ne_bytes))
    {
        *d = s;
    }
    b
}

/// [`header`] as the words of its bytes (see [`super::entries::Words`]).
pub fn header_words(boot_tb: u64, tb_freq: u64) -> [u64; ENTRY_SIZE / 8] {
    [boot_tb, tb_freq, 0, 0, 0, 0]
}

/// Derives the boot timebase from one reading of the timebase and of the
/// scheduler clock (nanoseconds since `boot_tb`), taken back to back:
/// `tb_before <= clock reading <= tb_after`. Returns the estimate and its
/// error bound in ticks: the window between the two timebase reads plus one
/// tick of rounding.
pub fn boot_tb_from(tb_before: u64, sched_ns: u64, tb_after: u64, tb_freq: u64) -> (u64, u64) {
    let elapsed_ticks = ns_to_ticks(sched_ns, tb_freq);
    let window = tb_after.saturating_sub(tb_before);
    // A timebase value, at most `tb_after`: the wrapping add never wraps.
    let mid = tb_before.wrapping_add(window / 2);
    let boot = mid.saturating_sub(elapsed_ticks);
    // At most 2^63 + 1: never saturates.
    (boot, (window / 2).saturating_add(1))
}

/// Converts nanoseconds to timebase ticks at `tb_freq` Hz, rounding down,
/// without 128-bit division (which the kernel does not link on every
/// architecture). Exact up to `u64::MAX` ticks, which it saturates at (a
/// duration that long is older than any boot).
pub fn ns_to_ticks(ns: u64, tb_freq: u64) -> u64 {
    const NS_PER_S: u64 = 1_000_000_000;
    let (secs, sub_ns) = (ns / NS_PER_S, ns % NS_PER_S);
    // `sub_ns * tb_freq / NS_PER_S` with `tb_freq` split at whole GHz, so
    // that no product overflows below the saturation point: `sub_ns` and
    // `sub_hz` are below 10^9, so `sub_ns * sub_hz` below 10^18.
    let (ghz, sub_hz) = (tb_freq / NS_PER_S, tb_freq % NS_PER_S);
    let sub_ticks = sub_ns
        .saturating_mul(ghz)
        .saturating_add(sub_ns.saturating_mul(sub_hz) / NS_PER_S);
    secs.saturating_mul(tb_freq).saturating_add(sub_ticks)
}

/// The interval of boot timebases consistent with one reading: `sched_ns`
/// is `floor((t - boot_tb) * 1e9 / tb_freq)` for some timebase `t` in
/// `[tb_before, tb_after]`, so `boot_tb` lies in the returned `[lo, hi]`.
pub fn boot_tb_interval(tb_before: u64, sched_ns: u64, tb_after: u64, tb_freq: u64) -> (u64, u64) {
    let lo = tb_before
        .saturating_sub(ns_to_ticks(sched_ns.saturating_add(1), tb_freq))
        .saturating_sub(1);
    let hi = tb_after.saturating_sub(ns_to_ticks(sched_ns, tb_freq));
    (lo, hi)
}

/// The boot timebase from `tries` readings taken with `sample`, which
/// returns `(timebase before, local_clock ns, timebase after)`, and its error
/// bound in ticks.
///
/// `boot_tb` is a constant, so the intervals of all readings (see
/// [`boot_tb_interval`]) contain it and so does their intersection, which is
/// usually much narrower than any one of them; the estimate is its middle.
/// If the intersection is empty, the scheduler clock is not the timebase
/// scaled as assumed, and the best single reading (see [`boot_tb_from`]) is
/// used instead.
pub fn estimate_boot_tb<F>(mut sample: F, tb_freq: u64, tries: usize) -> (u64, u64)
where
    F: FnMut() -> (u64, u64, u64),
{
    let mut best = (0, u64::MAX);
    let (mut lo, mut hi) = (0u64, u64::MAX);
    for _ in 0..tries {
        let (before, ns, after) = sample();
        let est = boot_tb_from(before, ns, after, tb_freq);
        if est.1 < best.1 {
            best = est;
        }
        let (l, h) = boot_tb_interval(before, ns, after, tb_freq);
        lo = lo.max(l);
        hi = hi.min(h);
    }
    let width = match hi.checked_sub(lo) {
        Some(width) if tries != 0 => width,
        _ => return best,
    };
    let half = width / 2;
    // `lo + half <= hi`, a timebase: the wrapping add never wraps. The bound,
    // `ceil(width / 2) + 1 <= 2^63 + 1`, never saturates.
    (
        lo.wrapping_add(half),
        width.saturating_sub(half).saturating_add(1),
    )
}
