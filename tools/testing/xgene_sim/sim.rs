// SPDX-License-Identifier: GPL-2.0

//! The simulator's state: the model behind its lock, the translation of a
//! driver's MMIO addresses to model registers, the interrupt it raises, and
//! its counts. Everything the probes, the timer and the debugfs files need
//! is here; they reach it through their data pointer (probes), the timer
//! embedded here (`container_of`), or an `Arc` (files). No global state.

use crate::{
    kind::{Cells, Kind, Name},
    model::{Choice, Model, Outcome},
    regs::{self, CSWCR_DUALMCB},
    rpmu::bindings as b,
    window::{Window, PAGE},
};
use core::cell::UnsafeCell;
use kernel::{
    ffi::c_ulong,
    fmt, pr_warn_once,
    prelude::*,
    str::CStr,
    sync::atomic::{Acquire, Atomic, Full, Relaxed},
    time::{Instant, Monotonic},
    types::Opaque,
};

/// Most CPUs the per-CPU slots cover.
pub(crate) const MAX_CPUS: usize = 64;
/// Most model register pages.
pub(crate) const MAX_PAGES: usize = 0x7ff;
const CACHE_SLOTS: usize = 64;
/// Cache entry: VA page | VALID | model page index + 1 (0: not a model page).
const VALID: usize = 0x800;
const IDX: usize = 0x7ff;

/// Which window of the model an address falls in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Top,
    Child(usize),
    /// A discovery syscon (index into `Sim::syscons`): plain memory, whose
    /// reads are watched.
    Syscon(usize),
}

/// One page of a model window.
pub(crate) struct ModelPage {
    pub(crate) pa: u64,
    pub(crate) target: Target,
    /// Offset of the page inside its window.
    pub(crate) offset: usize,
}

/// What a CPU holds between its `rwmmio_write` and `rwmmio_post_write`
/// probes, interrupts off.
pub(crate) struct Held {
    /// The store's address while this CPU holds the model lock, else 0. Any
    /// context may read it (it is atomic): non-zero and equal to the address
    /// of the store being completed means the reader is that store's CPU,
    /// since a CPU holding the lock runs nothing else until it drops it.
    pub(crate) addr: Atomic<usize>,
    /// Written and read only by the slot's CPU while it holds the lock.
    pub(crate) data: UnsafeCell<(c_ulong, Target, usize)>,
}

/// The simulator.
#[pin_data]
pub(crate) struct Sim {
    /// The model lock (a raw spinlock: the probes run inside drivers' raw
    /// spinlock sections). Taken with interrupts off by `with_model` and by
    /// the `rwmmio_write` probe, which the `rwmmio_post_write` probe releases.
    #[pin]
    pub(crate) lock: Opaque<b::raw_spinlock>,
    /// Only accessed with `lock` held.
    pub(crate) model: UnsafeCell<Model<Window>>,
    /// The counting tick (pinned, hard interrupt context).
    #[pin]
    pub(crate) timer: Opaque<b::hrtimer>,
    /// Set under the lock once the registers are adopted.
    pub(crate) ready: Atomic<bool>,
    pub(crate) pages: KVec<ModelPage>,
    pub(crate) held: [Held; MAX_CPUS],
    cache: [Atomic<usize>; CACHE_SLOTS],
    cache_gen: Atomic<u64>,
    /// Set once the vmalloc-free probe, which keeps the cache right, is
    /// registered; until then every address is translated.
    pub(crate) use_cache: Atomic<bool>,
    pub(crate) syscons: KVec<(&'static CStr, Window)>,
    pub(crate) virq: u32,
    pub(crate) period_ns: u64,
    pub(crate) scale: Atomic<u64>,
    pub(crate) log_sessions: bool,
    pub(crate) raised: Atomic<u64>,
    pub(crate) relevel: Atomic<u64>,
    pub(crate) raise_errors: Atomic<u64>,
    pub(crate) odd_writes: Atomic<u64>,
    /// Reads of the registers of an MCB that CSWCR says is not in use.
    pub(crate) unused_mcb_reads: Atomic<u64>,
    /// The model's `step` is `Continuous`: reads of counter and status
    /// registers advance the counters.
    pub(crate) continuous: Atomic<bool>,
    /// What the model's times count from (`Model::last_tick_ns`).
    epoch: Instant<Monotonic>,
}

// SAFETY: `model` is only accessed under `lock`; each `held` slot's `data`
// only by its own CPU with interrupts disabled; the lock and timer are
// kernel objects made for sharing; the rest is atomics or read-only after
// init.
unsafe impl Sync for Sim {}
// SAFETY: As above.
unsafe impl Send for Sim {}

/// What `Sim::new` needs from the device tree and the parameters.
pub(crate) struct SimParams {
    pub(crate) model: Model<Window>,
    pub(crate) pages: KVec<ModelPage>,
    pub(crate) syscons: KVec<(&'static CStr, Window)>,
    pub(crate) virq: u32,
    pub(crate) period_ns: u64,
    pub(crate) scale: u64,
    pub(crate) log_sessions: bool,
}

impl Sim {
    /// The simulator, with its lock initialised and its timer set up (not
    /// started) to call `tick`.
    pub(crate) fn new(
        p: SimParams,
        tick: unsafe extern "C" fn(*mut b::hrtimer) -> b::hrtimer_restart,
    ) -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `ptr` is the lock's place, valid for writes; the name
            // and key are static.
            lock <- Opaque::ffi_init(|ptr| unsafe {
                b::rpmu_raw_spin_lock_init(
                    ptr,
                    c"xgene_sim_model".as_char_ptr(),
                    kernel::static_lock_class!().as_ptr().cast(),
                )
            }),
            model: UnsafeCell::new(p.model),
            // SAFETY: `ptr` is the timer's pinned place; `tick` has the
            // hrtimer callback prototype.
            timer <- Opaque::ffi_init(|ptr| unsafe { b::rpmu_hrtimer_setup(ptr, Some(tick)) }),
            ready: Atomic::new(false),
            pages: p.pages,
            held: [const {
                Held {
                    addr: Atomic::new(0),
                    data: UnsafeCell::new((0, Target::Top, 0)),
                }
            }; MAX_CPUS],
            cache: [const { Atomic::new(0) }; CACHE_SLOTS],
            cache_gen: Atomic::new(0),
            use_cache: Atomic::new(false),
            syscons: p.syscons,
            virq: p.virq,
            period_ns: p.period_ns,
            scale: Atomic::new(p.scale),
            log_sessions: p.log_sessions,
            raised: Atomic::new(0),
            relevel: Atomic::new(0),
            raise_errors: Atomic::new(0),
            odd_writes: Atomic::new(0),
            unused_mcb_reads: Atomic::new(0),
            continuous: Atomic::new(false),
            epoch: Instant::now(),
        })
    }

    /// Whether syscon `i` is the register window of an MCB that the CSWCR
    /// value in force says is not in use: MCB B outside dual-MCB mode. On
    /// silicon a read there may fault or stall the bus.
    pub(crate) fn unused_mcb(&self, i: usize) -> bool {
        let cswcr = self
            .syscons
            .iter()
            .find(|(n, _)| *n == c"csw_cswcr")
            .map(|(_, w)| w.rd(regs::CSW_CSWCR));
        matches!(self.syscons.get(i), Some((n, _)) if *n == c"mcbb_mcbaddrmr")
            && cswcr.is_some_and(|c| c & CSWCR_DUALMCB == 0)
    }

    /// Nanoseconds since the simulator was created (monotonic).
    pub(crate) fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos().max(0) as u64
    }

    /// Takes the model lock, interrupts off; returns the saved flags.
    pub(crate) fn lock(&self) -> c_ulong {
        // SAFETY: The lock was initialised in `new`.
        unsafe { b::rpmu_raw_spin_lock_irqsave(self.lock.get()) }
    }

    /// Drops the model lock.
    ///
    /// # Safety
    ///
    /// The calling CPU holds the lock, taken by [`Self::lock`], which
    /// returned `flags`.
    pub(crate) unsafe fn unlock(&self, flags: c_ulong) {
        // SAFETY: Guaranteed by the caller.
        unsafe { b::rpmu_raw_spin_unlock_irqrestore(self.lock.get(), flags) }
    }

    /// Runs `f` on the model with the model lock held.
    pub(crate) fn with_model<R>(&self, f: impl FnOnce(&mut Model<Window>) -> R) -> R {
        let flags = self.lock();
        // SAFETY: The lock is held: nobody else has the model.
        let r = f(unsafe { &mut *self.model.get() });
        // SAFETY: Taken above, with these flags.
        unsafe { self.unlock(flags) };
        r
    }

    /// The model target and offset of `addr`, if it is in a model window.
    pub(crate) fn lookup(&self, addr: usize) -> Option<(Target, usize)> {
        let page = addr & !(PAGE - 1);
        let slot = &self.cache[(page >> 12).wrapping_mul(0x9e37_79b9) % CACHE_SLOTS];
        let use_cache = self.use_cache.load(Acquire);
        let e = slot.load(Acquire);
        let idx = if use_cache && e & VALID != 0 && e & !(PAGE - 1) == page {
            e & IDX
        } else {
            self.fill(page, slot, use_cache)
        };
        let p = self.pages.get(idx.checked_sub(1)?)?;
        Some((p.target, p.offset + (addr & (PAGE - 1))))
    }

    fn fill(&self, page: usize, slot: &Atomic<usize>, use_cache: bool) -> usize {
        let gen = self.cache_gen.load(Acquire);
        let mut pa = 0u64;
        // SAFETY: Only walks the kernel page tables for `page`.
        let mapped = unsafe { b::xgsim_va_to_pa(page as *const c_void, &mut pa) };
        let idx = if mapped {
            self.pages
                .iter()
                .position(|p| p.pa == pa)
                .map_or(0, |i| i + 1)
        } else {
            0
        };
        if use_cache {
            let entry = page | VALID | idx;
            slot.xchg(entry, Full);
            // An area freed meanwhile may have been this page: forget it.
            if self.cache_gen.load(Acquire) != gen {
                let _ = slot.cmpxchg(entry, 0, Full);
            }
        }
        idx
    }

    /// Forgets every cached translation (a vmalloc area is going away).
    pub(crate) fn invalidate(&self) {
        self.cache_gen.fetch_add(1, Full);
        for s in self.cache.iter() {
            s.xchg(0, Full);
        }
    }

    /// Sets the PMU's interrupt pending.
    pub(crate) fn raise(&self) {
        // SAFETY: `virq` is the PMU's mapped interrupt.
        let rc = unsafe { b::xgsim_irq_raise(self.virq) };
        if rc == 0 {
            self.raised.fetch_add(1, Relaxed);
        } else {
            self.raise_errors.fetch_add(1, Relaxed);
            pr_warn_once!(
                "irq_set_irqchip_state({}, PENDING) failed: {}\n",
                self.virq,
                rc
            );
        }
    }

    /// Logs the counter sessions a store ended.
    pub(crate) fn log(&self, out: &Outcome) {
        if !self.log_sessions {
            return;
        }
        for l in out.ended.iter().flatten() {
            let k = &l.s.key;
            pr_info!(
                "{} ctr{} session: event {:#x} pmamr0 {} pmamr1 {} added {} periods {} overflows {}\n",
                l.name,
                l.idx,
                k.code,
                Mask(k.m0),
                Mask(k.m1),
                l.s.added,
                l.s.periods,
                l.s.overflows
            );
        }
    }

    /// debugfs `stats`.
    pub(crate) fn fmt_stats(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The children whose interrupt sources INTMASK masks (all their
        // INTSTATUS bits).
        let mut masked = [(Kind::L3c, 0u32); MAX_MASKED];
        let mut nmasked = 0;
        let (version, st, tally, line, readback, intmask, step, pmamr) = self.with_model(|m| {
            for c in m.children.iter() {
                let bits = c.kind.int_bits(m.version, c.index);
                if bits != 0 && m.intmask & bits == bits && nmasked < MAX_MASKED {
                    masked[nmasked] = (c.kind, c.index);
                    nmasked += 1;
                }
            }
            (
                m.version,
                [
                    m.stats.ticks,
                    m.stats.periods,
                    m.stats.overflows,
                    m.stats.writes,
                    m.stats.tally_full,
                ],
                m.tally.len(),
                m.line,
                m.readback.name(),
                m.intmask,
                m.step.name(),
                m.pmamr.name(),
            )
        });
        writeln!(f, "version {version}")?;
        writeln!(f, "readback {readback}")?;
        writeln!(f, "step {step}")?;
        writeln!(f, "pmamr {pmamr}")?;
        writeln!(f, "irq {}", self.virq)?;
        writeln!(f, "period_ns {}", self.period_ns)?;
        writeln!(f, "scale {}", self.scale.load(Relaxed))?;
        writeln!(f, "ticks {}", st[0])?;
        writeln!(f, "periods {}", st[1])?;
        writeln!(f, "overflows {}", st[2])?;
        writeln!(f, "model_writes {}", st[3])?;
        writeln!(f, "irq_raised {}", self.raised.load(Relaxed))?;
        writeln!(f, "irq_reraised_level {}", self.relevel.load(Relaxed))?;
        writeln!(f, "irq_raise_errors {}", self.raise_errors.load(Relaxed))?;
        writeln!(f, "line {}", u32::from(line))?;
        writeln!(f, "intmask {intmask:#x}")?;
        write!(f, "masked ")?;
        for (i, &(k, idx)) in masked[..nmasked].iter().enumerate() {
            write!(f, "{}{}", if i > 0 { "," } else { "" }, Name(k, idx))?;
        }
        writeln!(f, "{}", if nmasked == 0 { "-" } else { "" })?;
        writeln!(f, "odd_width_writes {}", self.odd_writes.load(Relaxed))?;
        writeln!(
            f,
            "unused_mcb_reads {}",
            self.unused_mcb_reads.load(Relaxed)
        )?;
        writeln!(f, "tally_entries {tally}")?;
        writeln!(f, "tally_full {}", st[4])?;
        for (name, w) in self.syscons.iter() {
            writeln!(f, "{} {:#x}", name.to_str().unwrap_or("?"), w.rd(0))?;
        }
        Ok(())
    }
}

/// Children `stats` lists as masked, at most.
const MAX_MASKED: usize = 32;

/// An agent mask for the log: hex, or `-` if the PMU has no such register.
struct Mask(Option<u32>);

impl fmt::Display for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(m) => write!(f, "{m:#x}"),
            None => write!(f, "-"),
        }
    }
}
