// SPDX-License-Identifier: GPL-2.0

//! One CPU's simulated hypervisor: the session of the buffer registered for
//! it, the timer that writes entries into it, and the session's log lines.

use crate::gen;
use crate::rpmu::{bindings as b, pseries, sync::RawSpinLockIrq};
use core::ptr::addr_of_mut;
use kernel::{
    prelude::*,
    sync::barrier::{smp_mb, Read},
    time::Delta,
    types::Opaque,
};

/// The module parameters, copied into each CPU's producer.
#[derive(Clone, Copy)]
pub(crate) struct Params {
    /// Seed of the entry generator.
    pub(crate) seed: u64,
    /// Entries per tick.
    pub(crate) rate: u64,
    /// Tick period.
    pub(crate) period_ns: u64,
    /// Every this many ticks add a burst (0: never).
    pub(crate) burst_every: u64,
    /// Entries in a burst.
    pub(crate) burst_len: u64,
    /// Ticks of a session before its first burst.
    pub(crate) burst_from: u64,
    /// Adopt the kernel's boot-time buffers at load.
    pub(crate) adopt: bool,
    /// Write each CPU's DTL from a timer on another CPU.
    pub(crate) remote: bool,
    /// Busy wait after each of a tick's `rate` entries (0: none), so that
    /// a remote writer is still writing when the reader polls.
    pub(crate) pace_us: u64,
    /// Busy wait between writing each of a tick's `rate` entries and
    /// publishing it (0: none): an entry in flight for that long.
    pub(crate) publish_delay_us: u64,
}

/// A partition's registered DTL buffer, as the hypervisor sees it: its
/// address and the whole entries its size word holds.
pub(crate) struct Ring(pub(crate) *mut u8, pub(crate) u64);

impl Ring {
    /// The buffer at `base` as it is being registered: entry slots for the
    /// size in its second big-endian word, as KVM reads it (`len - len %
    /// 48`). Only at registration: the first entry overwrites that word.
    ///
    /// # Safety
    ///
    /// `base` must be the kernel address of a DTL buffer being registered,
    /// of at least the size its second word holds.
    pub(crate) unsafe fn registered(base: *mut u8) -> Self {
        // SAFETY: The caller passes a DTL buffer, which holds its size in
        // its second 32-bit word.
        let bytes = unsafe { core::ptr::read_volatile(base.cast::<u32>().add(1)) };
        Ring(base, u64::from(u32::from_be(bytes)) / 48)
    }
}

impl Ring {
    /// The stolen time of the entry in slot `i` (below the slot count):
    /// `enqueue_to_dispatch_time + ready_to_enqueue_time`, timebase ticks.
    ///
    /// # Safety
    ///
    /// The buffer must still be the partition's (registered, or being
    /// deregistered by the call in progress).
    unsafe fn stolen(&self, i: u64) -> u64 {
        // SAFETY: Slot `i` lies in the buffer (caller); both fields are
        // big-endian 32-bit words at bytes 4 and 8 of a 48-byte entry.
        let (e, r) = unsafe {
            let slot = self.0.add((i * 48) as usize);
            (
                core::ptr::read_volatile(slot.add(4).cast::<u32>()),
                core::ptr::read_volatile(slot.add(8).cast::<u32>()),
            )
        };
        u64::from(u32::from_be(e)) + u64::from(u32::from_be(r))
    }

    /// The timebase of the entry in slot `i` (below the slot count).
    ///
    /// # Safety
    ///
    /// As for [`Self::stolen`].
    unsafe fn timebase(&self, i: u64) -> u64 {
        // SAFETY: Slot `i` lies in the buffer (caller); the timebase is a
        // big-endian 64-bit word at byte 16 of a 48-byte entry (8-aligned).
        u64::from_be(unsafe {
            core::ptr::read_volatile(self.0.add((i * 48) as usize + 16).cast::<u64>())
        })
    }
}

// SAFETY: The pointer is a kernel address of the partition's buffer, valid
// on any CPU; it is only dereferenced under the owning `Cpu`'s lock.
unsafe impl Send for Ring {}

/// `local_clock()` read `ns` between the timebase reads `tb_before` and
/// `tb_after`.
#[derive(Clone, Copy)]
struct Bracket {
    tb_before: u64,
    ns: u64,
    tb_after: u64,
}

impl Bracket {
    fn width(&self) -> u64 {
        self.tb_after.wrapping_sub(self.tb_before)
    }
}

/// What one CPU's producer knows; behind the CPU's lock.
pub(crate) struct Session {
    registered: bool,
    ring: Ring,
    idx: u64,
    /// The index the session started at.
    first_idx: u64,
    /// The timebase when the session started.
    tb_begin: u64,
    /// The session ended and is not logged yet (see `Cpu::flush`).
    closing: bool,
    seq: u64,
    session_first: u64,
    ticks: u64,
    /// Ticks since the current session began.
    session_ticks: u64,
    mask_seen: u8,
    /// Steal time (timebase ticks) of this session's entries.
    steal: u64,
    /// Steal time of all entries written since load.
    steal_total: u64,
    /// This session's tightest clock bracket.
    clock: Option<Bracket>,
    /// Bounds on the lppaca's stolen-time total just before the session's
    /// first entry (see [`Cpu::stolen_total`]): at most, at least (`u64::MAX`
    /// until [`Cpu::settle_base`] runs after a registration).
    hv_base: (u64, u64),
    /// The same total when the session ended: at most what it was at the
    /// session's last entry.
    hv_end: u64,
}

impl Session {
    /// Whether a buffer is registered (and being written).
    pub(crate) fn registered(&self) -> bool {
        self.registered
    }
}

/// One CPU's producer: its timer, and its session behind a raw spinlock
/// (the kprobe can fire under perf's raw context lock, and the timer runs
/// in hard interrupt context).
#[pin_data]
pub(crate) struct Cpu {
    timer: Opaque<b::hrtimer>,
    /// One-shot, shortly after a registration: see [`Cpu::settle_base`].
    base_timer: Opaque<b::hrtimer>,
    pub(crate) cpu: u32,
    pub(crate) hwcpu: u16,
    params: Params,
    #[pin]
    pub(crate) s: RawSpinLockIrq<Session>,
}

// SAFETY: The timer is only touched through the hrtimer API, which does its
// own locking; the session is behind a lock; the rest is read-only.
unsafe impl Send for Cpu {}
// SAFETY: As above.
unsafe impl Sync for Cpu {}

impl Cpu {
    /// Creates the producer of `cpu`; its timer is set up, not started.
    pub(crate) fn new(cpu: u32, params: Params) -> Result<Pin<KBox<Cpu>>> {
        // SAFETY: `cpu` is below nr_cpu_ids; its paca is set up at boot.
        let hwcpu = unsafe { b::rpmu_hard_smp_processor_id(cpu as c_int) } as u16;
        let c = KBox::pin_init(
            pin_init!(Cpu {
                timer: Opaque::zeroed(),
                base_timer: Opaque::zeroed(),
                cpu,
                hwcpu,
                params,
                s <- crate::rpmu::sync::new_raw_spinlock!(
                    Session {
                        registered: false,
                        ring: Ring(core::ptr::null_mut(), 0),
                        idx: 0,
                        first_idx: 0,
                        tb_begin: 0,
                        closing: false,
                        seq: 0,
                        session_first: 0,
                        ticks: 0,
                        session_ticks: 0,
                        mask_seen: 0,
                        steal: 0,
                        steal_total: 0,
                        clock: None,
                        hv_base: (0, u64::MAX),
                        hv_end: 0,
                    },
                    "dtl_sim_cpu"
                ),
            }),
            GFP_KERNEL,
        )?;
        // SAFETY: The timer is pinned in the box and not started yet.
        unsafe { b::rpmu_hrtimer_setup(c.timer.get(), Some(tick)) };
        // SAFETY: As above.
        unsafe { b::rpmu_hrtimer_setup(c.base_timer.get(), Some(base_tick)) };
        Ok(c)
    }

    /// Starts the producer's timer, pinned to the calling CPU.
    pub(crate) fn start_timer_here(&self) {
        // SAFETY: Set up in `new`; the timer lives until `cancel_timer`.
        unsafe { b::rpmu_hrtimer_start(self.timer.get(), self.params.period_ns, true) };
    }

    /// Stops the producer's timer, waiting for a running tick.
    pub(crate) fn cancel_timer(&self) {
        // SAFETY: Set up in `new`; cancel waits for a running callback.
        unsafe { b::hrtimer_cancel(self.timer.get()) };
        // SAFETY: As above.
        unsafe { b::hrtimer_cancel(self.base_timer.get()) };
    }

    fn lppaca(&self) -> *mut b::lppaca {
        // SAFETY: `cpu` is a possible CPU; its lppaca lives forever.
        unsafe { b::rpmu_lppaca_of(self.cpu as c_int) }
    }

    /// The enable mask the partition set (PHYP reads it at each event).
    pub(crate) fn enable_mask(&self) -> u8 {
        // SAFETY: The lppaca is valid (see `lppaca`); a byte read.
        unsafe { core::ptr::read_volatile(addr_of_mut!((*self.lppaca()).dtl_enable_mask)) }
    }

    /// The index published in the lppaca.
    pub(crate) fn published_index(&self) -> u64 {
        // SAFETY: The lppaca is valid (see `lppaca`); the index is big-endian.
        u64::from_be(unsafe { core::ptr::read_volatile(addr_of_mut!((*self.lppaca()).dtl_idx)) })
    }

    /// The hypervisor's running total of this CPU's stolen time, in
    /// timebase ticks (the lppaca's `enqueue_dispatch_tb`). Linux KVM-HV
    /// adds each DTL entry's `enqueue_to_dispatch_time` to it as it writes
    /// the entry, and keeps adding while no DTL is registered.
    pub(crate) fn stolen_total(&self) -> u64 {
        // SAFETY: The lppaca is valid (see `lppaca`); the total is big-endian.
        u64::from_be(unsafe {
            core::ptr::read_volatile(addr_of_mut!((*self.lppaca()).enqueue_dispatch_tb))
        })
    }

    /// The lppaca's published index and stolen-time total as one
    /// snapshot: the total read twice around the index, equal both times
    /// (it only grows). Consistent only on this CPU itself, whose vCPU the
    /// hypervisor does not update while it runs: from another CPU, the
    /// total can already count an entry the index does not publish yet.
    /// `None` if the total kept moving.
    pub(crate) fn snapshot(&self) -> Option<(u64, u64)> {
        for _ in 0..100 {
            let t0 = self.stolen_total();
            smp_mb(Read);
            let idx = self.published_index();
            smp_mb(Read);
            if self.stolen_total() == t0 {
                return Some((idx, t0));
            }
        }
        None
    }

    /// Starts a session on `ring`, first writing at index `idx`, with
    /// `hv_base` bounding the stolen-time total just before its first entry
    /// (at most, at least); ends the current one.
    pub(crate) fn begin(&self, s: &mut Session, ring: Ring, idx: u64, hv_base: (u64, u64)) {
        self.end(s);
        self.flush(s);
        s.hv_base = hv_base;
        s.registered = true;
        s.session_ticks = 0;
        s.ring = ring;
        s.idx = idx;
        s.first_idx = idx;
        s.tb_begin = pseries::timebase();
        s.session_first = s.seq;
        s.mask_seen = 0;
        s.steal = 0;
        s.clock = None;
    }

    /// After a registration made on this CPU (online), for this CPU: arms
    /// the one-shot timer that runs [`Self::settle_base`] on it shortly
    /// after the call returns.
    pub(crate) fn arm_base_timer(&self) {
        // SAFETY: No preconditions; reads this CPU's id.
        if unsafe { b::rpmu_smp_processor_id() } as u32 != self.cpu {
            return;
        }
        // SAFETY: Set up in `new`; cancelled before the `Cpu` is dropped.
        // Pinned to this CPU, the session's.
        unsafe { b::rpmu_hrtimer_start(self.base_timer.get(), 200_000, true) };
    }

    /// Shortly after a registration, on the session's own CPU: the total
    /// before the first entry, exactly. The total read twice, unchanged,
    /// around a count of the session's entries in the ring, less their
    /// stolen time (while the buffer is registered, the total grows only as
    /// entries are written). The entries are counted by timebase, from slot
    /// 0, newer than the session and rising: the published index cannot
    /// be used, as the partition resets it to 0 after the call, over the
    /// hypervisor's first entry. If the ring is full or the total kept
    /// moving, the total now is at least that.
    fn settle_base(&self, s: &mut Session) {
        // Settled already, or not a registration's session (an adopted
        // ring's base is exact from the start).
        if !s.registered || s.hv_base.1 != u64::MAX {
            return;
        }
        // A CPU going offline hands its timers to another CPU.
        // SAFETY: No preconditions; reads this CPU's id.
        let here = unsafe { b::rpmu_smp_processor_id() } as u32 == self.cpu;
        let mut exact = None;
        for _ in 0..if here { 100 } else { 0 } {
            let t0 = self.stolen_total();
            smp_mb(Read);
            let (mut n, mut stolen, mut last) = (0, 0, s.tb_begin);
            // SAFETY: The buffer is registered (the session is open), and
            // slots below `s.ring.1` lie in it.
            while n < s.ring.1 && unsafe { s.ring.timebase(n) } >= last {
                // SAFETY: As above.
                last = unsafe { s.ring.timebase(n) };
                // SAFETY: As above.
                stolen += unsafe { s.ring.stolen(n) };
                n += 1;
            }
            smp_mb(Read);
            if self.stolen_total() == t0 {
                exact = (n < s.ring.1).then(|| t0.checked_sub(stolen)).flatten();
                break;
            }
        }
        s.hv_base = match exact {
            Some(base) => (base, base),
            None => (s.hv_base.0, self.stolen_total()),
        };
    }

    /// Ends the current session, if any: nothing more is written. It is
    /// logged by [`Self::flush`].
    pub(crate) fn end(&self, s: &mut Session) {
        if s.registered {
            s.registered = false;
            s.closing = true;
            s.hv_end = self.stolen_total();
        }
    }

    /// Logs the session that ended, if it is not logged yet: at the next
    /// tick, registration or unload. The deregistration is seen at its
    /// call, and a real hypervisor may log one more entry before the call
    /// takes effect (KVM, at the guest entry after it), so what it
    /// published is read later.
    pub(crate) fn flush(&self, s: &mut Session) {
        if !s.closing {
            return;
        }
        s.closing = false;
        // What the lppaca's index says was written in the session, by this
        // simulator or by a real hypervisor (with `rate=0`); and the
        // timebase window every entry of the session lies in.
        let published = self.published_index().wrapping_sub(s.first_idx);
        // The stolen time of the published entries, as the hypervisor's
        // total (see `stolen_total`) counts it, is at least its growth from
        // the base's upper bound to the end of the session, and at most its
        // growth from the base's lower bound to now: read after the index,
        // the total counts every entry it publishes (the hypervisor adds to
        // the total before it publishes the entry). An unknown base gives
        // a lower bound of 0.
        smp_mb(Read);
        let stolen_lo = s.hv_end.saturating_sub(s.hv_base.1);
        let stolen_hi = self.stolen_total().saturating_sub(s.hv_base.0);
        pr_info!(
            "cpu {} session: injected {} seq {}..{} mask {} steal {} published {} window {}..{} hv_stolen {}..{}\n",
            self.cpu,
            s.seq - s.session_first,
            s.session_first,
            s.seq,
            s.mask_seen,
            s.steal,
            published,
            s.tb_begin,
            pseries::timebase(),
            stolen_lo,
            stolen_hi
        );
        if let Some(c) = s.clock {
            pr_info!(
                "cpu {} clock: tb {}..{} ns {}\n",
                self.cpu,
                c.tb_before,
                c.tb_after,
                c.ns
            );
        }
    }

    /// Logs the totals since load.
    pub(crate) fn log_total(&self, s: &Session) {
        pr_info!(
            "cpu {} total: injected {} steal {}\n",
            self.cpu,
            s.seq,
            s.steal_total
        );
    }

    /// Writes `n` entries; the first `paced` of them `pace_us` apart.
    fn produce(&self, s: &mut Session, n: u64, paced: u64) {
        if !s.registered {
            return;
        }
        let (tb_before, ns, tb_after) = pseries::clock_sample();
        let b = Bracket {
            tb_before,
            ns,
            tb_after,
        };
        match s.clock {
            Some(c) if c.width() <= b.width() => {}
            _ => s.clock = Some(b),
        }
        let lp = self.lppaca();
        for i in 0..n {
            if i > 0 && i < paced && self.params.pace_us > 0 {
                kernel::time::delay::udelay(Delta::from_micros(self.params.pace_us as i64));
            }
            // Each entry is one dispatch event, and PHYP reads the mask at
            // each: once the partition clears it, nothing more is logged.
            let mask = self.enable_mask() & 7;
            if mask == 0 {
                return;
            }
            s.mask_seen |= mask;
            let f = gen::fields(self.params.seed, self.cpu, self.hwcpu, s.seq, mask);
            let img = gen::image(&f, pseries::timebase());
            let Some(slot) = s.idx.checked_rem(s.ring.1) else {
                return;
            };
            let slot = slot as usize;
            // SAFETY: `ring` is the registered buffer of `ring.1` entries;
            // `slot < ring.1`, so the entry lies within it.
            unsafe {
                let dst = s.ring.0.add(slot * 48);
                for (i, byte) in img.iter().enumerate() {
                    core::ptr::write_volatile(dst.add(i), *byte);
                }
                kernel::sync::barrier::smp_mb(kernel::sync::barrier::Write);
            }
            if i < paced && self.params.publish_delay_us > 0 {
                kernel::time::delay::udelay(Delta::from_micros(
                    self.params.publish_delay_us as i64,
                ));
            }
            s.idx += 1;
            s.seq += 1;
            s.steal += gen::steal_ticks(&f);
            s.steal_total += gen::steal_ticks(&f);
            // SAFETY: `lp` is valid; the index is published after the entry.
            unsafe { core::ptr::write_volatile(addr_of_mut!((*lp).dtl_idx), s.idx.to_be()) };
        }
    }
}

/// The one-shot timer after a registration.
///
/// # Safety
///
/// Called by the hrtimer core for the `base_timer` of a live `Cpu` (timers
/// are cancelled before the CPUs are freed).
unsafe extern "C" fn base_tick(t: *mut b::hrtimer) -> b::hrtimer_restart {
    // SAFETY: `t` is the `base_timer` of a live `Cpu` (caller).
    let c = unsafe { &*kernel::container_of!(t.cast::<Opaque<b::hrtimer>>(), Cpu, base_timer) };
    let mut s = c.s.lock();
    c.settle_base(&mut s);
    b::hrtimer_restart::HRTIMER_NORESTART
}

/// Producer tick.
///
/// # Safety
///
/// `t` must be the `timer` of a live `Cpu`.
unsafe extern "C" fn tick(t: *mut b::hrtimer) -> b::hrtimer_restart {
    // SAFETY: `t` is the `timer` of a live `Cpu` (timers are cancelled
    // before the CPUs are freed).
    let c = unsafe { &*kernel::container_of!(t.cast::<Opaque<b::hrtimer>>(), Cpu, timer) };
    let p = c.params;
    {
        let mut s = c.s.lock();
        c.flush(&mut s);
        s.ticks += 1;
        if s.registered {
            s.session_ticks += 1;
        }
        let burst = if p.burst_every > 0
            && s.ticks % p.burst_every == 0
            && s.session_ticks > p.burst_from
        {
            p.burst_len
        } else {
            0
        };
        c.produce(&mut s, p.rate + burst, p.rate);
    }
    // SAFETY: Called from the timer's own callback.
    unsafe { b::rpmu_hrtimer_forward_now(t, p.period_ns) };
    b::hrtimer_restart::HRTIMER_RESTART
}
