// SPDX-License-Identifier: GPL-2.0

//! `xgene_sim`: simulated X-Gene SoC PMU silicon, for testing X-Gene PMU
//! drivers under QEMU virt, which has no such hardware (test only).
//!
//! The device tree (tools/testing/xgene/xgene-v2.dtsi) places an
//! `apm,xgene-pmu[-v2]` node, its children and the CSW/MCBA/MCBB syscons in a
//! `no-map` reserved-memory region, so the registers are plain RAM. This
//! module learns every window from that node, maps them itself, and makes
//! the RAM behave like the silicon (register semantics in `model.rs`):
//!
//! * It sees each store a driver makes, at the moment it makes it: with
//!   CONFIG_TRACE_MMIO_ACCESS every `writel()`/`writel_relaxed()` (and the
//!   regmap-mmio accessors) calls the `rwmmio_write` tracepoint before the
//!   store and `rwmmio_post_write` after it. The `rwmmio_write` probe takes
//!   the model lock (interrupts off) for an address in a model window; the
//!   `rwmmio_post_write` probe applies the store to the model, rewrites the
//!   cells that read back model state, and drops the lock. The tick takes
//!   the same lock, so a driver's store and a counter increment never
//!   interleave and no store is lost. Reads need no hook: the cells always
//!   hold what the silicon would return.
//! * A driver's `ioremap()` address is translated with the kernel page
//!   tables (`vmalloc_to_page`) and cached per page; the cache is dropped
//!   whenever a vmalloc area is freed (`free_vmap_area_noflush`), before its
//!   addresses can be reused.
//! * A pinned hrtimer (`period_us`) advances enabled counters, sets overflow
//!   status and raises the PMU's interrupt with
//!   `irq_set_irqchip_state(PENDING)` on the same Linux IRQ the driver gets
//!   (`irq_of_parse_and_map` of the same node). While the line stays
//!   asserted and the interrupt is neither pending nor active, each tick
//!   raises it again, as a level-triggered line would.
//! * Every increment is tallied per (PMU, event code, effective agent
//!   masks); debugfs `xgene_sim/tally` shows it (write to reset), `pmus`
//!   lists the PMUs, `stats` the model's counts, `scale` the multiplier. Each
//!   counter session (enable to disable or reprogramming) is logged:
//!
//!   `xgene_sim: l3c0 ctr0 session: event 0x3 pmamr0 0x3ff pmamr1 - added N periods P overflows O`
//!
//! The discovery registers (CSWCR, MCBADDRMR) are reset values the harness
//! preloads into guest RAM (QEMU `-device loader`), since a built-in driver
//! reads them at boot, before any module can load. The model does not
//! depend on being loaded before the driver: it adopts the registers'
//! contents at load. It should be loaded before events are in use.
//!
//! Nothing here knows any driver: only the registers.

use core::{cell::UnsafeCell, ptr};
use kernel::{
    debugfs::{Dir, File},
    fmt, pr_warn_once,
    prelude::*,
    str::CStr,
    sync::atomic::{Acquire, Atomic, Full, Relaxed, Release},
    uaccess::UserSliceReader,
};

#[allow(dead_code)]
#[path = "model.rs"]
mod model;

use model::{Cells, Child, Kind, Model, Name, Outcome};

// The generated bindings (with this module's extensions, see Kbuild), in the
// wrapper the drivers use.
#[path = "../../../rust/pmu/bindings.rs"]
mod b;

module! {
    type: XgeneSim,
    name: "xgene_sim",
    authors: ["rust-pmu developers"],
    description: "Simulated X-Gene SoC PMU silicon for tests",
    license: "GPL",
    params: {
        scale: u64 {
            default: 1,
            description: "Multiplier of every counter increment (also debugfs xgene_sim/scale)",
        },
        period_us: u32 {
            default: 1000,
            description: "Tick period in microseconds",
        },
        log_sessions: bool {
            default: true,
            description: "Log each counter session with pr_info",
        },
    },
}

const PAGE: usize = 4096;
const MAX_CPUS: usize = 64;
const MAX_PAGES: usize = 0x7ff;
const CACHE_SLOTS: usize = 64;
/// Cache entry: VA page | VALID | model page index + 1 (0: not a model page).
const VALID: usize = 0x800;
const IDX: usize = 0x7ff;

/// A register window mapped by the model.
struct Window {
    va: *mut u32,
    size: usize,
}

impl Cells for Window {
    fn rd(&self, off: usize) -> u32 {
        if off % 4 != 0 || off + 4 > self.size {
            return 0;
        }
        // SAFETY: `va` maps `size` bytes (memremap in `map_window`), `off` is
        // an aligned offset inside them.
        unsafe { ptr::read_volatile(self.va.add(off / 4)) }
    }

    fn wr(&self, off: usize, val: u32) {
        if off % 4 != 0 || off + 4 > self.size {
            return;
        }
        // SAFETY: As in `rd`.
        unsafe { ptr::write_volatile(self.va.add(off / 4), val) }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // SAFETY: Mapped by `map_window`, unmapped once here.
        unsafe { b::xgsim_memunmap(self.va.cast()) };
    }
}

/// Maps `size` bytes at `pa` write-back. The drivers map the same RAM as
/// Device memory; on real hardware mismatched attributes could lose
/// coherency, but QEMU TCG models no caches, so both views see every store.
fn map_window(pa: u64, size: u64) -> Result<Window> {
    if pa % PAGE as u64 != 0 || size == 0 || size % PAGE as u64 != 0 {
        pr_err!(
            "window {:#x}+{:#x} is not page aligned; refusing\n",
            pa,
            size
        );
        return Err(EINVAL);
    }
    // SAFETY: `pa` lies in a no-map reserved-memory region (`check_reserved`),
    // which no other kernel user owns as RAM.
    let va = unsafe { b::xgsim_memremap_wb(pa, size as usize) };
    if va.is_null() {
        pr_err!("memremap({:#x}, {:#x}) failed\n", pa, size);
        return Err(ENOMEM);
    }
    Ok(Window {
        va: va.cast(),
        size: size as usize,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Top,
    Child(usize),
}

/// One page of a model window.
struct ModelPage {
    pa: u64,
    target: Target,
    /// Offset of the page inside its window.
    offset: usize,
}

/// What a CPU holds between its `rwmmio_write` and `rwmmio_post_write`
/// probes, interrupts off.
struct Held {
    /// The store's address while this CPU holds the model lock, else 0. Any
    /// context may read it (it is atomic): non-zero and equal to the address
    /// of the store being completed means the reader is that store's CPU,
    /// since a CPU holding the lock runs nothing else until it drops it.
    addr: Atomic<usize>,
    /// Written and read only by the slot's CPU while it holds the lock.
    data: UnsafeCell<(usize, Target, usize)>,
}

struct Sim {
    /// Only accessed with the model lock held (`xgsim_lock`).
    model: UnsafeCell<Model<Window>>,
    /// Set under the lock once the registers are adopted.
    ready: Atomic<bool>,
    pages: KVec<ModelPage>,
    held: [Held; MAX_CPUS],
    cache: [Atomic<usize>; CACHE_SLOTS],
    cache_gen: Atomic<u64>,
    use_cache: bool,
    syscons: KVec<(&'static CStr, Window)>,
    virq: u32,
    period_ns: u64,
    scale: Atomic<u64>,
    log_sessions: bool,
    raised: Atomic<u64>,
    relevel: Atomic<u64>,
    raise_errors: Atomic<u64>,
    odd_writes: Atomic<u64>,
}

// SAFETY: `model` is only accessed under the model lock; each `held` slot's
// `data` only by its own CPU with interrupts disabled; the rest is atomics or read-only
// after init. The raw pointers in `Window` are mappings owned by `Sim`.
unsafe impl Sync for Sim {}
// SAFETY: As above.
unsafe impl Send for Sim {}

static SIM: Atomic<*mut Sim> = Atomic::new(ptr::null_mut());

fn sim() -> Option<&'static Sim> {
    let p = SIM.load(Acquire);
    // SAFETY: `SIM` is set before any probe, timer or file can run and
    // cleared only after all of them are gone (`XgeneSim::drop`).
    unsafe { p.as_ref() }
}

/// Runs `f` on the model with the model lock held.
fn with_model<R>(s: &Sim, f: impl FnOnce(&mut Model<Window>) -> R) -> R {
    // SAFETY: Plain lock acquisition; released below.
    let flags = unsafe { b::xgsim_lock() };
    // SAFETY: The lock is held: nobody else has the model.
    let r = f(unsafe { &mut *s.model.get() });
    // SAFETY: Taken above, with these flags.
    unsafe { b::xgsim_unlock(flags) };
    r
}

impl Sim {
    /// The model target and offset of `addr`, if it is in a model window.
    fn lookup(&self, addr: usize) -> Option<(Target, usize)> {
        let page = addr & !(PAGE - 1);
        let slot = &self.cache[(page >> 12).wrapping_mul(0x9e37_79b9) % CACHE_SLOTS];
        let e = slot.load(Acquire);
        let idx = if self.use_cache && e & VALID != 0 && e & !(PAGE - 1) == page {
            e & IDX
        } else {
            self.fill(page, slot)
        };
        let p = self.pages.get(idx.checked_sub(1)?)?;
        Some((p.target, p.offset + (addr & (PAGE - 1))))
    }

    fn fill(&self, page: usize, slot: &Atomic<usize>) -> usize {
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
        if self.use_cache {
            let entry = page | VALID | idx;
            slot.xchg(entry, Full);
            // An area freed meanwhile may have been this page: forget it.
            if self.cache_gen.load(Acquire) != gen {
                let _ = slot.cmpxchg(entry, 0, Full);
            }
        }
        idx
    }

    fn invalidate(&self) {
        self.cache_gen.fetch_add(1, Full);
        for s in self.cache.iter() {
            s.xchg(0, Full);
        }
    }

    fn held(&self, cpu: usize) -> Option<&Held> {
        self.held.get(cpu)
    }

    fn raise(&self) {
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

    fn log(&self, out: &Outcome) {
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

    fn fmt_stats(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (version, st, tally, line) = with_model(self, |m| {
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
            )
        });
        writeln!(f, "version {version}")?;
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
        writeln!(f, "odd_width_writes {}", self.odd_writes.load(Relaxed))?;
        writeln!(f, "tally_entries {tally}")?;
        writeln!(f, "tally_full {}", st[4])?;
        for (name, w) in self.syscons.iter() {
            writeln!(f, "{} {:#x}", name.to_str().unwrap_or("?"), w.rd(0))?;
        }
        Ok(())
    }
}

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

/// `rwmmio_write` probe: before a driver's store.
///
/// # Safety
///
/// Called by the tracepoint with the store's arguments.
unsafe extern "C" fn on_write(
    _data: *mut c_void,
    _caller: usize,
    _caller0: usize,
    _val: u64,
    _width: u8,
    addr: *mut c_void,
) {
    let Some(s) = sim() else { return };
    let Some(target) = s.lookup(addr as usize) else {
        return;
    };
    // SAFETY: Released by `on_post_write` right after the store, on this CPU
    // (interrupts stay off in between).
    let flags = unsafe { b::xgsim_lock() };
    // SAFETY: Reads this CPU's id (interrupts are off).
    let cpu = unsafe { b::xgsim_cpu() } as usize;
    match s.held(cpu) {
        Some(h) => {
            // SAFETY: Our CPU's slot, written with the lock held and
            // interrupts off; read back by `on_post_write` on this CPU.
            unsafe { *h.data.get() = (flags, target.0, target.1) };
            h.addr.store(addr as usize, Release);
        }
        None => {
            // Checked against nr_cpu_ids at load; never reached.
            // SAFETY: Taken above.
            unsafe { b::xgsim_unlock(flags) };
        }
    }
}

/// `rwmmio_post_write` probe: after a driver's store.
///
/// # Safety
///
/// Called by the tracepoint with the store's arguments.
unsafe extern "C" fn on_post_write(
    _data: *mut c_void,
    _caller: usize,
    _caller0: usize,
    val: u64,
    width: u8,
    addr: *mut c_void,
) {
    let Some(s) = sim() else { return };
    // SAFETY: Reads the running CPU's id. If this store is a model store, its
    // `on_write` disabled interrupts, so this is the CPU that took the lock.
    // Otherwise the id may be stale, which the address check below absorbs.
    let cpu = unsafe { b::xgsim_cpu() } as usize;
    let Some(h) = s.held(cpu) else { return };
    if h.addr.load(Acquire) != addr as usize || addr.is_null() {
        // Not a store `on_write` took the lock for (the common case: any
        // other MMIO in the system).
        return;
    }
    // SAFETY: Our slot, written by our `on_write`; interrupts are still off.
    let (flags, target, off) = unsafe { *h.data.get() };
    h.addr.store(0, Relaxed);
    let mut out = Outcome::default();
    let mut odd = false;
    if s.ready.load(Relaxed) {
        // SAFETY: This CPU holds the model lock (taken in `on_write`).
        let m = unsafe { &mut *s.model.get() };
        match (target, width) {
            (Target::Child(ci), 32) => m.child_write(ci, off, val as u32, &mut out),
            (Target::Top, 32) => m.top_write(off, val as u32, &mut out),
            _ => odd = true,
        }
    }
    // SAFETY: Taken in `on_write` on this CPU with these flags.
    unsafe { b::xgsim_unlock(flags) };
    if odd {
        s.odd_writes.fetch_add(1, Relaxed);
        pr_warn_once!(
            "{}-bit store at {:p}: the model only handles 32-bit accesses; left as plain memory\n",
            width,
            addr
        );
    }
    if out.raise {
        s.raise();
    }
    s.log(&out);
}

/// `free_vmap_area_noflush` probe: a vmalloc/ioremap area is going away.
///
/// # Safety
///
/// Called by the tracepoint.
unsafe extern "C" fn on_vfree(_data: *mut c_void, _va: usize, _nr: usize, _max: usize) {
    if let Some(s) = sim() {
        s.invalidate();
    }
}

/// The counting tick.
///
/// # Safety
///
/// Called by the hrtimer core for the model's timer.
unsafe extern "C" fn tick(t: *mut b::hrtimer) -> b::hrtimer_restart {
    let Some(s) = sim() else {
        return b::hrtimer_restart_HRTIMER_NORESTART;
    };
    // SAFETY: `t` is our running timer.
    let periods = unsafe { b::xgsim_timer_forward(t, s.period_ns) }.max(1);
    let scale = s.scale.load(Relaxed);
    let (edge, line) = with_model(s, |m| (m.tick(periods, scale), m.line));
    if edge {
        s.raise();
    } else if line {
        // Level semantics: re-raise if the line is still asserted while the
        // interrupt is neither pending nor active. The line is checked again
        // after the controller: a handler may have run and cleared the status
        // since the tick looked (then it is not a level still held high).
        let mut busy = true;
        // SAFETY: `virq` is the PMU's mapped interrupt.
        let rc = unsafe { b::xgsim_irq_busy(s.virq, &mut busy) };
        if rc == 0 && !busy && with_model(s, |m| m.line) {
            s.relevel.fetch_add(1, Relaxed);
            s.raise();
        }
    }
    b::hrtimer_restart_HRTIMER_RESTART
}

/// An owned `of_node_get` reference.
struct Node(*mut b::device_node);

impl Drop for Node {
    fn drop(&mut self) {
        // SAFETY: We own one reference (NULL is accepted).
        unsafe { b::xgsim_of_put(self.0) };
    }
}

impl Node {
    fn reg(&self, idx: i32) -> Result<(u64, u64)> {
        let (mut start, mut size) = (0u64, 0u64);
        // SAFETY: `self.0` is a live node.
        let rc = unsafe { b::xgsim_of_reg(self.0, idx, &mut start, &mut size) };
        if rc != 0 {
            return Err(Error::from_errno(rc));
        }
        Ok((start, size))
    }

    fn compatible(&self, c: &CStr) -> bool {
        // SAFETY: `self.0` is a live node; `c` is NUL-terminated.
        unsafe { b::xgsim_of_is_compatible(self.0, c.as_char_ptr()) }
    }

    fn u32(&self, name: &CStr) -> Option<u32> {
        let mut v = 0u32;
        // SAFETY: `self.0` is a live node.
        (unsafe { b::xgsim_of_u32(self.0, name.as_char_ptr(), &mut v) } == 0).then_some(v)
    }

    fn flag(&self, name: &CStr) -> bool {
        // SAFETY: `self.0` is a live node.
        unsafe { b::xgsim_of_bool(self.0, name.as_char_ptr()) }
    }

    fn phandle(&self, name: &CStr) -> Option<Node> {
        // SAFETY: `self.0` is a live node; returns a new reference or NULL.
        let n = unsafe { b::xgsim_of_phandle(self.0, name.as_char_ptr()) };
        (!n.is_null()).then_some(Node(n))
    }

    /// The children (`available` ones only, or all).
    fn children(&self, available: bool) -> Children<'_> {
        Children {
            parent: self,
            prev: ptr::null_mut(),
            available,
        }
    }
}

struct Children<'a> {
    parent: &'a Node,
    prev: *mut b::device_node,
    available: bool,
}

impl Iterator for Children<'_> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        // SAFETY: The iterator functions drop the reference to `prev` and
        // return a new one to the next child, which we hand out with a new
        // reference of its own so `prev` stays owned by the iterator.
        let n = unsafe {
            if self.available {
                b::xgsim_of_next_available_child(self.parent.0, self.prev)
            } else {
                b::xgsim_of_next_child(self.parent.0, self.prev)
            }
        };
        self.prev = n;
        if n.is_null() {
            return None;
        }
        // SAFETY: `n` is live; the extra reference is the item's.
        Some(Node(unsafe { b::xgsim_of_get(n) }))
    }
}

impl Drop for Children<'_> {
    fn drop(&mut self) {
        // SAFETY: The reference the iteration holds (NULL is accepted).
        unsafe { b::xgsim_of_put(self.prev) };
    }
}

/// The `no-map` reserved-memory ranges.
fn reserved_nomap() -> Result<KVec<(u64, u64)>> {
    let mut v = KVec::new();
    // SAFETY: Looks a node up by path; returns a reference or NULL.
    let rm = Node(unsafe { b::xgsim_of_find_path(c"/reserved-memory".as_char_ptr()) });
    if rm.0.is_null() {
        return Ok(v);
    }
    for n in rm.children(true) {
        if n.flag(c"no-map") {
            if let Ok(r) = n.reg(0) {
                v.push(r, GFP_KERNEL)?;
            }
        }
    }
    Ok(v)
}

fn check_reserved(nomap: &[(u64, u64)], what: &str, pa: u64, size: u64) -> Result {
    if nomap
        .iter()
        .any(|&(s, l)| pa >= s && pa.saturating_add(size) <= s.saturating_add(l))
    {
        return Ok(());
    }
    pr_err!(
        "{} window {:#x}+{:#x} is not in a no-map reserved-memory region: it may be real RAM or a real device; refusing\n",
        what,
        pa,
        size
    );
    Err(EINVAL)
}

/// What the device tree describes, mapped.
struct Discovered {
    model: Model<Window>,
    pages: KVec<ModelPage>,
    syscons: KVec<(&'static CStr, Window)>,
    virq: u32,
}

/// Reads the device tree and maps every window.
fn discover() -> Result<Discovered> {
    let mut found = None;
    for (compat, version) in [(c"apm,xgene-pmu-v2", 2u32), (c"apm,xgene-pmu", 1)] {
        // SAFETY: Searches the whole tree; returns a reference or NULL.
        let n = unsafe { b::xgsim_of_find_compatible(ptr::null_mut(), compat.as_char_ptr()) };
        if !n.is_null() {
            found = Some((Node(n), version));
            break;
        }
    }
    let Some((pmu, version)) = found else {
        pr_err!("no apm,xgene-pmu or apm,xgene-pmu-v2 node in the device tree\n");
        return Err(ENODEV);
    };
    let nomap = reserved_nomap()?;
    let (pa, size) = pmu.reg(0).inspect_err(|e| {
        pr_err!("PMU node has no reg: {:?}\n", e);
    })?;
    check_reserved(&nomap, "PCP PMU", pa, size)?;
    let mut pages = KVec::new();
    let mut add_pages = |pa: u64, size: u64, target: Target| -> Result {
        for p in 0..(size as usize).div_ceil(PAGE) {
            if pages.len() >= MAX_PAGES {
                pr_err!("more than {} register pages; refusing\n", MAX_PAGES);
                return Err(E2BIG);
            }
            pages.push(
                ModelPage {
                    pa: pa + (p * PAGE) as u64,
                    target,
                    offset: p * PAGE,
                },
                GFP_KERNEL,
            )?;
        }
        Ok(())
    };
    let mut model = Model::new(version, map_window(pa, size)?)?;
    add_pages(pa, size, Target::Top)?;

    let kinds = [
        (c"apm,xgene-pmu-l3c", Kind::L3c),
        (c"apm,xgene-pmu-iob", Kind::Iob),
        (c"apm,xgene-pmu-mcb", Kind::Mcb),
        (c"apm,xgene-pmu-mc", Kind::Mc),
    ];
    for n in pmu.children(true) {
        let Some(&(_, kind)) = kinds.iter().find(|(c, _)| n.compatible(c)) else {
            continue;
        };
        let index = n.u32(c"enable-bit-index").unwrap_or(0);
        let Ok((cpa, csize)) = n.reg(0) else {
            pr_warn!("{} has no reg; not modelled\n", Name(kind, index));
            continue;
        };
        check_reserved(&nomap, kind.prefix(), cpa, csize)?;
        let ci = model.children.len();
        model.children.push(
            Child::new(kind, index, cpa, map_window(cpa, csize)?),
            GFP_KERNEL,
        )?;
        add_pages(cpa, csize, Target::Child(ci))?;
    }
    if model.children.is_empty() {
        pr_err!("the PMU node has no l3c/iob/mcb/mc children\n");
        return Err(ENODEV);
    }

    // The discovery syscons: plain memory holding reset values; mapped to
    // report them.
    let mut syscons = KVec::new();
    for (prop, name) in [
        (c"regmap-csw", c"csw_cswcr"),
        (c"regmap-mcba", c"mcba_mcbaddrmr"),
        (c"regmap-mcbb", c"mcbb_mcbaddrmr"),
    ] {
        let Some(sn) = pmu.phandle(prop) else {
            pr_warn!("no {} phandle; the drivers will not find it either\n", prop);
            continue;
        };
        let Ok((spa, ssize)) = sn.reg(0) else {
            pr_warn!("{} node has no reg\n", prop);
            continue;
        };
        check_reserved(&nomap, "syscon", spa, ssize)?;
        syscons.push((name, map_window(spa, ssize)?), GFP_KERNEL)?;
    }

    // SAFETY: `pmu.0` is live; maps (or finds) the Linux IRQ of interrupt 0.
    let virq = unsafe { b::xgsim_irq_of_map(pmu.0) };
    if virq == 0 {
        pr_err!("cannot map the PMU node's interrupt\n");
        return Err(ENODEV);
    }
    Ok(Discovered {
        model,
        pages,
        syscons,
        virq,
    })
}

/// Debugfs handle on the model.
#[derive(Clone, Copy)]
struct SimRef(&'static Sim);

fn read_user(r: &mut UserSliceReader, buf: &mut [u8]) -> Result<usize> {
    let n = r.len().min(buf.len());
    r.read_slice(&mut buf[..n])?;
    Ok(n)
}

fn tally_show(s: &SimRef, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    with_model(s.0, |m| m.fmt_tally(f))
}

fn tally_reset(s: &SimRef, r: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 16];
    let n = read_user(r, &mut buf)?;
    match core::str::from_utf8(&buf[..n]).map(str::trim) {
        Ok("" | "0" | "reset") => {
            with_model(s.0, |m| m.reset_tally());
            Ok(())
        }
        _ => {
            pr_warn!("tally: write 0 or \"reset\" to reset it\n");
            Err(EINVAL)
        }
    }
}

fn pmus_show(s: &SimRef, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    with_model(s.0, |m| m.fmt_pmus(f))
}

fn stats_show(s: &SimRef, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    s.0.fmt_stats(f)
}

fn scale_show(s: &SimRef, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(f, "{}", s.0.scale.load(Relaxed))
}

fn scale_set(s: &SimRef, r: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 24];
    let n = read_user(r, &mut buf)?;
    let v = core::str::from_utf8(&buf[..n])
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    match v {
        Some(v) if v > 0 => {
            s.0.scale.store(v, Relaxed);
            Ok(())
        }
        _ => {
            pr_warn!("scale: expected a positive integer\n");
            Err(EINVAL)
        }
    }
}

struct Files {
    _tally: Pin<KBox<File<SimRef>>>,
    _pmus: Pin<KBox<File<SimRef>>>,
    _stats: Pin<KBox<File<SimRef>>>,
    _scale: Pin<KBox<File<SimRef>>>,
    _dir: Dir,
}

fn make_files(s: &'static Sim) -> Result<Files> {
    let dir = Dir::new(c"xgene_sim");
    let r = SimRef(s);
    Ok(Files {
        _tally: KBox::pin_init(
            dir.read_write_callback_file(c"tally", r, &tally_show, &tally_reset),
            GFP_KERNEL,
        )?,
        _pmus: KBox::pin_init(dir.read_callback_file(c"pmus", r, &pmus_show), GFP_KERNEL)?,
        _stats: KBox::pin_init(dir.read_callback_file(c"stats", r, &stats_show), GFP_KERNEL)?,
        _scale: KBox::pin_init(
            dir.read_write_callback_file(c"scale", r, &scale_show, &scale_set),
            GFP_KERNEL,
        )?,
        _dir: dir,
    })
}

struct XgeneSim {
    files: Option<Files>,
    vfree_probe: bool,
    post_write_probe: bool,
    write_probe: bool,
    timer: bool,
}

impl kernel::Module for XgeneSim {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: Plain read.
        let ncpus = unsafe { b::xgsim_nr_cpu_ids() } as usize;
        if ncpus > MAX_CPUS {
            pr_err!("{} possible CPUs, the model handles {}\n", ncpus, MAX_CPUS);
            return Err(EINVAL);
        }
        let Discovered {
            model,
            pages,
            syscons,
            virq,
        } = discover()?;
        let version = model.version;
        let nchildren = model.children.len();
        let mut s = KBox::new(
            Sim {
                model: UnsafeCell::new(model),
                ready: Atomic::new(false),
                pages,
                held: [const {
                    Held {
                        addr: Atomic::new(0),
                        data: UnsafeCell::new((0, Target::Top, 0)),
                    }
                }; MAX_CPUS],
                cache: [const { Atomic::new(0) }; CACHE_SLOTS],
                cache_gen: Atomic::new(0),
                use_cache: true,
                syscons,
                virq,
                period_ns: u64::from(module_parameters::period_us.value().max(50)) * 1000,
                scale: Atomic::new(module_parameters::scale.value().max(1)),
                log_sessions: module_parameters::log_sessions.value(),
                raised: Atomic::new(0),
                relevel: Atomic::new(0),
                raise_errors: Atomic::new(0),
                odd_writes: Atomic::new(0),
            },
            GFP_KERNEL,
        )?;
        // Without the vmalloc-free hook a cached translation could outlive
        // its mapping: translate every access instead.
        // SAFETY: `on_vfree` has the tracepoint's prototype.
        let vrc = unsafe { b::xgsim_tp_vfree_register(Some(on_vfree)) };
        if vrc != 0 {
            pr_warn!(
                "free_vmap_area_noflush tracepoint unavailable ({}); translating every MMIO store without a cache\n",
                vrc
            );
            s.use_cache = false;
        }
        SIM.store(KBox::into_raw(s), Release);
        // From here on, dropping `this` undoes whatever was set up.
        let mut this = XgeneSim {
            files: None,
            vfree_probe: vrc == 0,
            post_write_probe: false,
            write_probe: false,
            timer: false,
        };
        let sref = sim().ok_or(EINVAL)?;

        // SAFETY: `on_post_write` has the tracepoint's prototype.
        let rc = unsafe { b::xgsim_tp_post_write_register(Some(on_post_write)) };
        if rc != 0 {
            pr_err!(
                "cannot register on rwmmio_post_write: {} (CONFIG_TRACE_MMIO_ACCESS?)\n",
                rc
            );
            return Err(Error::from_errno(rc));
        }
        this.post_write_probe = true;
        // SAFETY: `on_write` has the tracepoint's prototype.
        let rc = unsafe { b::xgsim_tp_write_register(Some(on_write)) };
        if rc != 0 {
            pr_err!("cannot register on rwmmio_write: {}\n", rc);
            return Err(Error::from_errno(rc));
        }
        this.write_probe = true;
        // Every store from now on is processed; take over what is there.
        with_model(sref, |m| {
            m.adopt();
            sref.ready.store(true, Relaxed);
        });
        this.files = Some(make_files(sref).inspect_err(|e| {
            pr_err!("cannot create the debugfs files: {:?}\n", e);
        })?);
        // SAFETY: `tick` has the hrtimer callback prototype.
        unsafe {
            b::xgsim_timer_setup(Some(tick));
            b::xgsim_timer_start(sref.period_ns);
        }
        this.timer = true;
        pr_info!(
            "X-Gene PMU v{}: {} PMUs, irq {}, tick {} us, scale {}{}\n",
            version,
            nchildren,
            virq,
            sref.period_ns / 1000,
            sref.scale.load(Relaxed),
            if sref.use_cache {
                ""
            } else {
                ", no translation cache"
            }
        );
        for (name, w) in sref.syscons.iter() {
            pr_info!(
                "discovery register {} = {:#x}\n",
                name.to_str().unwrap_or("?"),
                w.rd(0)
            );
        }
        Ok(this)
    }
}

impl Drop for XgeneSim {
    fn drop(&mut self) {
        // `rwmmio_write` first; once no CPU can be between the two probes any
        // more, `rwmmio_post_write`.
        if self.write_probe {
            // SAFETY: Registered in `init`.
            unsafe { b::xgsim_tp_write_unregister(Some(on_write)) };
            // SAFETY: Plain synchronisation.
            unsafe { b::xgsim_tp_sync() };
        }
        if self.post_write_probe {
            // SAFETY: Registered in `init`.
            unsafe { b::xgsim_tp_post_write_unregister(Some(on_post_write)) };
            // SAFETY: Plain synchronisation.
            unsafe { b::xgsim_tp_sync() };
        }
        if self.timer {
            // SAFETY: Set up and started in `init`; waits for a running tick.
            unsafe { b::xgsim_timer_cancel() };
        }
        if self.vfree_probe {
            // SAFETY: Registered in `init`.
            unsafe { b::xgsim_tp_vfree_unregister(Some(on_vfree)) };
            // SAFETY: Plain synchronisation.
            unsafe { b::xgsim_tp_sync() };
        }
        self.files = None;
        if let Some(s) = sim() {
            let (st, n) = with_model(s, |m| {
                (
                    [m.stats.ticks, m.stats.overflows, m.stats.writes],
                    m.tally.len(),
                )
            });
            pr_info!(
                "unloaded: {} ticks, {} overflows, {} register writes, {} interrupts raised, {} tally keys\n",
                st[0],
                st[1],
                st[2],
                s.raised.load(Relaxed),
                n
            );
        }
        let p = SIM.xchg(ptr::null_mut(), Full);
        if !p.is_null() {
            // SAFETY: Allocated by `KBox::into_raw` in `init`; no probe, timer
            // or file references it any more.
            drop(unsafe { KBox::from_raw(p) });
        }
    }
}
