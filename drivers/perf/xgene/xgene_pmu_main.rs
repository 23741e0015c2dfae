// SPDX-License-Identifier: GPL-2.0

//! APM X-Gene SoC uncore PMUs: L3 cache (L3C), I/O bridge (IOB, IOB-slow),
//! memory controller bridge (MCB) and memory controller (MC) counters of
//! X-Gene 1, 2 and 3, probed from DT (`apm,xgene-pmu`, `apm,xgene-pmu-v2`) or
//! ACPI (`APMC0D5B`, `APMC0D5C`, `APMC0D83`).
//!
//! One top-level device (the PCP PMU) owns an interrupt status/mask block and
//! one interrupt; each of its sub-blocks is a perf PMU of its own (`l3c0`,
//! `iob0`, `mcb1`, `mc2`, ...), counting system-wide on one CPU (`cpumask`).
//! Counting only: no sampling, no per-task events. See
//! Documentation/xgene-pmu.rst.

use kernel::{
    acpi,
    device::{self, property::FwNode},
    of, platform,
    prelude::*,
    str::CString,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc,
    },
};

// The project's shared abstractions and the kernel-independent logic are
// compiled into each module; not every driver uses every item.
#[allow(unreachable_pub, dead_code)]
#[path = "../../../rust/pmu/mod.rs"]
mod pmu;
#[allow(unreachable_pub, dead_code)]
#[path = "../../../rust/soc/mod.rs"]
mod soc;

#[allow(unreachable_pub, dead_code)]
mod logic {
    #[path = "src/acpi.rs"]
    pub(crate) mod acpi;
    #[path = "src/config.rs"]
    pub(crate) mod config;
    #[path = "src/counter.rs"]
    pub(crate) mod counter;
    #[path = "src/discover.rs"]
    pub(crate) mod discover;
    #[path = "src/events.rs"]
    pub(crate) mod events;
    #[path = "src/hw.rs"]
    pub(crate) mod hw;
    #[path = "src/selftest.rs"]
    pub(crate) mod selftest;
}

/// sysfs `events` tables, generated from drivers/perf/xgene/events/*.json by
/// scripts/xgene_events.py at build time.
#[allow(dead_code)]
mod gen {
    use super::{pmu::attrs::AttrValue, Child};
    include!(concat!(env!("RPMU_GEN_DIR"), "/xgene_attrs_generated.rs"));
}

#[cfg(CONFIG_KUNIT)]
mod tests;

use logic::{
    config::{self, Programming},
    counter::{self, Allocator},
    discover::{self, ActiveMasks},
    hw::{regs, Layout, PmuType, Version},
};
use pmu::sync::RawSpinLockIrq;
use pmu::{
    attrs::AttrValue, hotplug, AttrGroup, Capabilities, Event, EventInit, Flags, PmuDriver,
    Registration, SysfsWriter, TaskContext,
};
use soc::{ChildNode, IrqFlags, IrqHandler, IrqRegistration, IrqReturn, MemWindow, Mmio, Syscon};

kernel::module_platform_driver! {
    type: XgenePmuDriver,
    name: "xgene_pmu",
    authors: ["rust-pmu developers"],
    description: "APM X-Gene SoC uncore PMUs (L3C, IOB, MCB, MC)",
    license: "GPL v2",
}

/// This module (perf holds a reference on it while an event exists).
fn this_module() -> &'static kernel::ThisModule {
    &<LocalModule as kernel::ModuleMetadata>::THIS_MODULE
}

/// Counters of one sub-block, at most (v2/v3).
const MAX_COUNTERS: usize = 4;

/// `hw.state` bits (`PERF_HES_*`).
const HES_STOPPED: u32 = pmu::bindings::PERF_HES_STOPPED;
const HES_UPTODATE: u32 = pmu::bindings::PERF_HES_UPTODATE;

/// The CPU that counts for all sub-blocks of one device, shown in each PMU's
/// `cpumask`; moved by CPU hotplug.
struct Owner {
    cpu: Atomic<u32>,
}

/// Software state of one hardware counter.
#[derive(Clone, Copy, Default)]
struct Counter {
    /// Counter value at the last fold into perf's count.
    prev: u64,
    /// Counts folded by the overflow handler, not yet given to perf.
    pending: u64,
}

/// What the sub-block's counters are programmed with; protected by
/// [`Child::hw`].
struct HwState {
    alloc: Allocator,
    counters: [Counter; MAX_COUNTERS],
    /// The agent masks in force (PMAMR0/1 are shared by all counters of a
    /// sub-block) and how many allocated counters rely on them.
    masks: Option<(Option<u32>, Option<u32>)>,
    mask_users: u32,
}

/// One sub-block (L3C, IOB, IOB-slow, MCB or MC instance): a perf PMU.
#[pin_data]
struct Child {
    ty: PmuType,
    version: Version,
    layout: &'static Layout,
    regs: Mmio,
    owner: Arc<Owner>,
    #[pin]
    hw: RawSpinLockIrq<HwState>,
}

/// Per-event state: the decoded attributes, fixed at `event_init`.
#[pin_data]
struct EventState {
    prog: Programming,
}

impl Child {
    fn new(
        ty: PmuType,
        version: Version,
        regs: Mmio,
        owner: Arc<Owner>,
    ) -> impl PinInit<Self, Error> {
        let layout = version.layout();
        try_pin_init!(Self {
            ty,
            version,
            layout,
            regs,
            owner,
            hw <- new_raw_spinlock_irq!(
                HwState {
                    alloc: Allocator::new(layout.counters),
                    counters: [Counter::default(); MAX_COUNTERS],
                    masks: None,
                    mask_users: 0,
                },
                "xgene_pmu_hw"
            ),
        }? Error)
    }

    fn set_global_enable(&self, on: bool) {
        let pmcr = self.regs.read32(regs::PMCR) & !regs::PMCR_P;
        let new = if on {
            pmcr | regs::PMCR_E
        } else {
            pmcr & !regs::PMCR_E
        };
        if new != pmcr {
            self.regs.write32(regs::PMCR, new);
        }
    }

    fn overflow_status(&self) -> u32 {
        self.regs.read32(self.layout.ovs_status) & ((1u32 << self.layout.counters) - 1)
    }

    fn clear_overflow(&self, bits: u32) {
        clear_overflow(&self.regs, self.layout, bits)
    }

    fn read_counter(&self, idx: usize) -> u64 {
        let lo = regs::counter_lo(self.version, idx);
        match regs::counter_hi(self.version, idx) {
            None => u64::from(self.regs.read32(lo)),
            // A 64-bit counter read as two halves: re-read until the high
            // half did not change across the low read.
            Some(hi) => loop {
                let h1 = self.regs.read32(hi);
                let l = self.regs.read32(lo);
                let h2 = self.regs.read32(hi);
                if h1 == h2 {
                    break (u64::from(h1) << 32) | u64::from(l);
                }
            },
        }
    }

    fn write_counter(&self, idx: usize, value: u64) {
        self.regs
            .write32(regs::counter_lo(self.version, idx), value as u32);
        if let Some(hi) = regs::counter_hi(self.version, idx) {
            self.regs.write32(hi, (value >> 32) as u32);
        }
    }

    /// Folds what counter `idx` counted since the last fold; returns it.
    fn fold(&self, hw: &mut HwState, idx: usize) -> u64 {
        let now = self.read_counter(idx);
        let c = &mut hw.counters[idx];
        let delta = counter::delta(c.prev, now, self.layout.counter_mask) + c.pending;
        c.prev = now;
        c.pending = 0;
        delta
    }

    /// Restarts counter `idx` from the start value, so the next overflow is
    /// a known distance away.
    fn rearm(&self, hw: &mut HwState, idx: usize) {
        let start = counter::start_value(self.version);
        self.write_counter(idx, start);
        hw.counters[idx].prev = start;
    }

    /// Overflow interrupt of this sub-block: folds every overflowed counter
    /// into its pending count and restarts it. A sub-block with nothing
    /// pending keeps counting. Otherwise it is stopped and its status read
    /// again, so no counter overflows between the read and the clear (on v1
    /// the clear resets every status bit), and nothing is counted between a
    /// counter's read and its rewrite.
    fn handle_overflow(&self) -> bool {
        let mut hw = self.hw.lock();
        if self.overflow_status() == 0 {
            return false;
        }
        self.set_global_enable(false);
        // Status bits stay set until cleared: this is a superset of the first read.
        let status = self.overflow_status();
        self.clear_overflow(status);
        for idx in 0..self.layout.counters {
            if status & (1 << idx) == 0 || hw.alloc.used() & (1 << idx) == 0 {
                continue;
            }
            let d = self.fold(&mut hw, idx);
            hw.counters[idx].pending = d;
            self.rearm(&mut hw, idx);
        }
        if hw.alloc.used() != 0 {
            self.set_global_enable(true);
        }
        true
    }

    fn event_idx(event: &Event<Self>) -> Option<usize> {
        usize::try_from(event.hw_idx())
            .ok()
            .filter(|&i| i < MAX_COUNTERS)
    }

    fn masks_of(prog: &Programming) -> Option<(Option<u32>, Option<u32>)> {
        (prog.amr0.is_some() || prog.amr1.is_some()).then_some((prog.amr0, prog.amr1))
    }
}

/// Clears overflow status `bits` of a sub-block.
fn clear_overflow(regs: &Mmio, layout: &Layout, bits: u32) {
    use logic::hw::OvsClear;
    match layout.ovs_clear_kind {
        // v1: the status register is cleared by writing zero.
        OvsClear::WriteZero => regs.write32(layout.ovs_clear, 0),
        // v2 (write 1 to clear at PMOVSR), v3 (PMOVSCLR).
        OvsClear::WriteStatus | OvsClear::WriteStatusToClr => regs.write32(layout.ovs_clear, bits),
    }
}

/// Stops and clears a sub-block, as it must be before its PMU is registered:
/// global enable off, counters reset, no counter or interrupt enabled, no
/// overflow pending.
fn reset_block(r: &Mmio, layout: &Layout) {
    let all = (1u32 << layout.counters) - 1;
    let pmcr = r.read32(regs::PMCR);
    r.write32(regs::PMCR, (pmcr & !regs::PMCR_E) | regs::PMCR_P);
    r.write32(regs::PMCNTENCLR, all);
    r.write32(regs::PMINTENCLR, all);
    clear_overflow(r, layout, all);
}

#[vtable]
impl PmuDriver for Child {
    type EventData = EventState;
    type AuxData = ();

    const CAPABILITIES: Capabilities = Capabilities::NO_EXCLUDE.with(Capabilities::NO_INTERRUPT);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, ev: &mut EventInit<'_>) -> Result<impl PinInit<EventState, Error>> {
        if ev.is_sampling() {
            pr_warn!("sampling is not supported: these are counting PMUs\n");
            return Err(EOPNOTSUPP);
        }
        if ev.is_per_task() || ev.cpu().is_none() {
            pr_warn!("per-task events are not supported: open the event on a CPU\n");
            return Err(EINVAL);
        }
        let prog =
            config::decode(self.ty, self.version, ev.config(), ev.config1()).map_err(|e| {
                pr_warn!(
                    "config {:#x} config1 {:#x} refused: {}\n",
                    ev.config(),
                    ev.config1(),
                    e.reason()
                );
                EINVAL
            })?;

        // A group must be schedulable as a whole: same PMU (or software
        // events), enough counters, one agent mask per sub-block.
        let mine = Self::masks_of(&prog);
        let mut on_pmu = 1usize;
        ev.for_each_group_member(|m| {
            if !m.same_pmu() {
                if m.is_software() {
                    return Ok(());
                }
                pr_warn!("group mixes this PMU with another hardware PMU\n");
                return Err(EINVAL);
            }
            on_pmu += 1;
            let other = config::decode(self.ty, self.version, m.config(), m.config1())
                .map_err(|_| EINVAL)?;
            if let (Some(a), Some(b)) = (mine, Self::masks_of(&other)) {
                if a != b {
                    pr_warn!("group members need different agent masks on one sub-block\n");
                    return Err(EINVAL);
                }
            }
            Ok(())
        })?;
        if !counter::group_fits(self.version, on_pmu) {
            pr_warn!(
                "group of {} events does not fit in {} counters\n",
                on_pmu,
                self.layout.counters
            );
            return Err(EINVAL);
        }

        // Uncore counters are counted on the device's owning CPU.
        ev.set_cpu(self.owner.cpu.load(Relaxed));
        Ok(try_pin_init!(EventState { prog }? Error))
    }

    fn add(&self, event: &Event<Self>, flags: Flags) -> Result {
        let prog = &event.data().prog;
        let mut hw = self.hw.lock();
        let want = Self::masks_of(prog);
        if let (Some(w), Some(cur)) = (want, hw.masks) {
            if hw.mask_users > 0 && w != cur {
                // The sub-block counts with another agent mask right now;
                // perf retries this event at its next rotation.
                return Err(EAGAIN);
            }
        }
        let idx = hw.alloc.alloc().ok_or(EAGAIN)?;
        event.set_hw_idx(idx as i32);
        event.set_hw_state(HES_STOPPED | HES_UPTODATE);

        self.regs.write32(regs::evtyper(idx), prog.evtype);
        if let Some(w) = want {
            if hw.mask_users == 0 {
                if let Some(m0) = w.0 {
                    self.regs.write32(regs::PMAMR0, m0);
                }
                if let Some(m1) = w.1 {
                    self.regs.write32(regs::PMAMR1, m1);
                }
                hw.masks = Some(w);
            }
            hw.mask_users += 1;
        }
        self.rearm(&mut hw, idx);
        self.regs.write32(regs::PMINTENSET, 1 << idx);
        self.set_global_enable(true);
        drop(hw);

        if flags.contains(Flags::START) {
            self.start(event, Flags::RELOAD);
        }
        Ok(())
    }

    fn del(&self, event: &Event<Self>, _flags: Flags) {
        self.stop(event, Flags::UPDATE);
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        let mut hw = self.hw.lock();
        self.regs.write32(regs::PMINTENCLR, 1 << idx);
        if Self::masks_of(&event.data().prog).is_some() {
            hw.mask_users = hw.mask_users.saturating_sub(1);
        }
        hw.alloc.free(idx);
        hw.counters[idx] = Counter::default();
        if hw.alloc.used() == 0 {
            self.set_global_enable(false);
        }
        event.set_hw_idx(-1);
    }

    fn start(&self, event: &Event<Self>, _flags: Flags) {
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        let mut hw = self.hw.lock();
        // A counter stopped without an update still holds counts: keep them
        // for the next read, then count from a fresh start value.
        if event.hw_state() & HES_UPTODATE == 0 {
            let d = self.fold(&mut hw, idx);
            hw.counters[idx].pending = d;
        }
        self.rearm(&mut hw, idx);
        event.set_hw_state(0);
        self.regs.write32(regs::PMCNTENSET, 1 << idx);
    }

    fn stop(&self, event: &Event<Self>, flags: Flags) {
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        let mut hw = self.hw.lock();
        let state = event.hw_state();
        if state & HES_STOPPED == 0 {
            self.regs.write32(regs::PMCNTENCLR, 1 << idx);
            event.set_hw_state(state | HES_STOPPED);
        }
        if flags.contains(Flags::UPDATE) && event.hw_state() & HES_UPTODATE == 0 {
            let d = self.fold(&mut hw, idx);
            event.count_add(d);
            event.set_hw_state(event.hw_state() | HES_UPTODATE);
        }
    }

    fn read(&self, event: &Event<Self>) {
        let Some(idx) = Self::event_idx(event) else {
            return;
        };
        if event.hw_state() & HES_UPTODATE != 0 {
            return;
        }
        let mut hw = self.hw.lock();
        let d = self.fold(&mut hw, idx);
        event.count_add(d);
    }
}

fn show_cpumask(c: &Child, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    use core::fmt::Write;
    writeln!(w, "{}", c.owner.cpu.load(Relaxed))
}

static CPUMASK: [(&CStr, AttrValue<Child>); 1] = [(c"cpumask", AttrValue::Show(show_cpumask))];

// The sysfs `format` files, from the same list as logic::events::formats
// (the ABI upstream has always shown).
macro_rules! sysfs_format_table {
    ($name:ident, [$(($file:literal, $spec:literal)),* $(,)?]) => {
        static $name: &[(&CStr, AttrValue<Child>)] =
            &[$((kernel::c_str!($file), AttrValue::Fixed(kernel::c_str!($spec)))),*];
    };
}
logic::events::format_tables!(sysfs_format_table);

macro_rules! groups {
    ($name:ident, $fmt:expr, $ev:expr) => {
        static $name: [AttrGroup<Child>; 3] = [
            AttrGroup::fixed(c"format", $fmt),
            AttrGroup::fixed(c"events", $ev),
            AttrGroup::top(&CPUMASK),
        ];
    };
}

groups!(G_L3C_V12, FMT_L3C_V12, &gen::EVENTS_L3C_V1V2);
groups!(G_IOB_V12, FMT_IOB_V12, &gen::EVENTS_IOB_V1V2);
groups!(G_MCB_V12, FMT_MCB_V12, &gen::EVENTS_MCB_V1V2);
groups!(G_MC_V12, FMT_MC_V12, &gen::EVENTS_MC_V1V2);
groups!(G_L3C_V3, FMT_L3C_V3, &gen::EVENTS_L3C_V3);
groups!(G_IOB_V3, FMT_IOB_V3, &gen::EVENTS_IOB_V3);
groups!(G_IOB_SLOW_V3, FMT_IOB_SLOW_V3, &gen::EVENTS_IOB_SLOW_V3);
groups!(G_MCB_V3, FMT_MCB_V3, &gen::EVENTS_MCB_V3);
groups!(G_MC_V3, FMT_MC_V3, &gen::EVENTS_MC_V3);

/// The sysfs groups of a sub-block type on a version, or `None` if the
/// combination does not exist (IOB-slow is an X-Gene 3 block).
fn attr_groups(ty: PmuType, v: Version) -> Option<&'static [AttrGroup<Child>]> {
    let v3 = v == Version::V3;
    Some(match (ty, v3) {
        (PmuType::L3c, false) => &G_L3C_V12,
        (PmuType::Iob, false) => &G_IOB_V12,
        (PmuType::Mcb, false) => &G_MCB_V12,
        (PmuType::Mc, false) => &G_MC_V12,
        (PmuType::IobSlow, false) => return None,
        (PmuType::L3c, true) => &G_L3C_V3,
        (PmuType::Iob, true) => &G_IOB_V3,
        (PmuType::IobSlow, true) => &G_IOB_SLOW_V3,
        (PmuType::Mcb, true) => &G_MCB_V3,
        (PmuType::Mc, true) => &G_MC_V3,
    })
}

/// State shared by the interrupt handler and the hotplug callbacks.
struct Shared {
    version: Version,
    owner: Arc<Owner>,
    irq: u32,
    /// The interrupt status/mask block of the top-level device.
    pcp: Mmio,
    /// The registered sub-blocks; fixed after probe.
    pmus: KVec<Registration<Child>>,
}

impl Shared {
    fn mask_all(&self) {
        self.pcp.write32(regs::INTMASK, u32::MAX);
    }
}

/// The top-level interrupt: dispatches to the sub-blocks of each signalled
/// type.
struct Isr(Arc<Shared>);

impl IrqHandler for Isr {
    fn handle(&self, _irq: u32) -> IrqReturn {
        let s = &self.0;
        let status = s.pcp.read32(regs::INTSTATUS);
        let mut handled = false;
        for reg in s.pmus.iter() {
            let c = reg.driver();
            if status & s.version.int_source_mask(c.ty) != 0 {
                handled |= c.handle_overflow();
            }
        }
        if handled {
            IrqReturn::Handled
        } else {
            IrqReturn::None
        }
    }
}

/// CPU hotplug: keeps the owning CPU online, moving the perf contexts and
/// the interrupt with it.
struct Hotplug(Arc<Shared>);

impl hotplug::HotplugCallbacks for Hotplug {
    fn online(&self, cpu: u32) -> Result {
        let s = &self.0;
        let owner = s.owner.cpu.load(Relaxed);
        if owner == cpu || !soc::cpu_online(owner) {
            s.owner.cpu.store(cpu, Relaxed);
            if let Err(e) = soc::set_irq_affinity(s.irq, cpu) {
                pr_warn!("cannot route IRQ {} to CPU {}: {:?}\n", s.irq, cpu, e);
            }
        }
        Ok(())
    }

    fn offline(&self, cpu: u32) -> Result {
        let s = &self.0;
        if s.owner.cpu.load(Relaxed) != cpu {
            return Ok(());
        }
        let Some(target) = soc::other_online_cpu(cpu) else {
            return Ok(());
        };
        for reg in s.pmus.iter() {
            reg.migrate_context(cpu, target);
        }
        s.owner.cpu.store(target, Relaxed);
        if let Err(e) = soc::set_irq_affinity(s.irq, target) {
            pr_warn!("cannot route IRQ {} to CPU {}: {:?}\n", s.irq, target, e);
        }
        Ok(())
    }
}

/// A probed X-Gene PMU device. Fields drop in order: hotplug callbacks
/// first, then the interrupt, then (with the last reference to `Shared`) the
/// PMUs and the mappings.
struct XgenePmuDevice {
    _hotplug: Pin<KBox<hotplug::HotplugInstance<Hotplug>>>,
    _hotplug_state: hotplug::HotplugState<Hotplug>,
    _irq: Pin<KBox<IrqRegistration<Isr>>>,
    shared: Arc<Shared>,
}

impl Drop for XgenePmuDevice {
    fn drop(&mut self) {
        self.shared.mask_all();
    }
}

/// The firmware tables' device flavour.
struct XgenePmuDriver;

kernel::of_device_table!(
    OF_TABLE,
    <XgenePmuDriver as platform::Driver>::IdInfo,
    [
        (of::DeviceId::new(c"apm,xgene-pmu"), Version::V1),
        (of::DeviceId::new(c"apm,xgene-pmu-v2"), Version::V2),
    ]
);

kernel::acpi_device_table!(
    ACPI_TABLE,
    <XgenePmuDriver as platform::Driver>::IdInfo,
    [
        (acpi::DeviceId::new(c"APMC0D5B"), Version::V1),
        (acpi::DeviceId::new(c"APMC0D5C"), Version::V2),
        (acpi::DeviceId::new(c"APMC0D83"), Version::V3),
    ]
);

/// Reads the active MCB/MC/L3C masks from the CSW and MCB registers.
fn discover(
    pdev: &platform::Device<device::Core<'_>>,
    v: Version,
    of: bool,
) -> Result<ActiveMasks> {
    let dev: &device::Device = pdev.as_ref();
    if of {
        if v == Version::V3 {
            // X-Gene 3 has no DT binding.
            return Err(ENODEV);
        }
        let csw = Syscon::by_phandle(dev, c"regmap-csw")?;
        let mcba = Syscon::by_phandle(dev, c"regmap-mcba")?;
        let mcbb = Syscon::by_phandle(dev, c"regmap-mcbb")?;
        let r = |s: &Syscon, off: usize| s.read(off as u32);
        return Ok(discover::v1v2(
            r(&csw, regs::CSW_CSWCR)?,
            r(&mcba, regs::MCBADDRMR)?,
            r(&mcbb, regs::MCBADDRMR)?,
        ));
    }
    let map = |i: usize| -> Result<Mmio> {
        Mmio::map(MemWindow::of_platform(pdev, i as u32).ok_or(ENODEV)?)
    };
    let csw = map(logic::acpi::TOP_RES_CSW)?.read32(regs::CSW_CSWCR);
    if v == Version::V3 {
        return Ok(discover::v3(csw));
    }
    let mcba = map(logic::acpi::TOP_RES_MCBA)?.read32(regs::MCBADDRMR);
    let mcbb = map(logic::acpi::TOP_RES_MCBB)?.read32(regs::MCBADDRMR);
    Ok(discover::v1v2(csw, mcba, mcbb))
}

/// The type of a child firmware node, if it is a PMU sub-block.
fn child_type(node: &ChildNode<'_>) -> Option<PmuType> {
    if let Some(hid) = node.acpi_hid() {
        return hid.to_str().ok().and_then(logic::acpi::child_type);
    }
    [
        (c"apm,xgene-pmu-l3c", PmuType::L3c),
        (c"apm,xgene-pmu-iob", PmuType::Iob),
        (c"apm,xgene-pmu-mcb", PmuType::Mcb),
        (c"apm,xgene-pmu-mc", PmuType::Mc),
    ]
    .into_iter()
    .find(|(c, _)| node.is_compatible(c))
    .map(|(_, t)| t)
}

/// Registers the PMU of one child node, if it is an active sub-block.
fn add_child(
    node: &FwNode,
    v: Version,
    masks: &ActiveMasks,
    owner: &Arc<Owner>,
    pmus: &mut KVec<Registration<Child>>,
) -> Result {
    let node = ChildNode::new(node);
    if !node.is_available() {
        return Ok(());
    }
    let Some(ty) = child_type(&node) else {
        return Ok(());
    };
    let bit = node.read_u32(c"enable-bit-index").unwrap_or(0);
    if bit > 31 {
        pr_warn!(
            "{}: enable-bit-index {} out of range 0-31, skipped\n",
            node.name(),
            bit
        );
        return Ok(());
    }
    if !masks.is_active(ty, bit) {
        return Ok(());
    }
    let Some(groups) = attr_groups(ty, v) else {
        pr_warn!(
            "{}: {} is not a block of this PMU version, skipped\n",
            node.name(),
            ty.prefix()
        );
        return Ok(());
    };
    let window = node.mem_window().inspect_err(|e| {
        pr_warn!("{}: no register window ({:?}), skipped\n", node.name(), e);
    })?;
    let regs = Mmio::map(window)?;
    reset_block(&regs, v.layout());
    let name = CString::try_from_fmt(fmt!("{}{}", ty.prefix(), bit))?;
    let child = Child::new(ty, v, regs, owner.clone());
    let reg = Registration::new_with(this_module(), &name, child, groups).inspect_err(|e| {
        pr_warn!(
            "{}: registering PMU {} failed: {:?}\n",
            node.name(),
            &*name,
            e
        );
    })?;
    pr_info!("{}: PMU {} at {:#x}\n", node.name(), &*name, window.start);
    pmus.push(reg, GFP_KERNEL)?;
    Ok(())
}

impl XgenePmuDevice {
    fn probe(pdev: &platform::Device<device::Core<'_>>, v: Version) -> Result<Self> {
        let dev: &device::Device = pdev.as_ref();
        let fwnode = dev.fwnode().ok_or(ENODEV)?;
        let of = ChildNode::new(fwnode).is_of();
        let pcp_win =
            MemWindow::of_platform(pdev, logic::acpi::TOP_RES_PCP as u32).ok_or_else(|| {
                dev_err!(dev, "no register window\n");
                ENODEV
            })?;
        let pcp = Mmio::map(pcp_win)?;
        let irq = pdev.irq_by_index(0)?.irq();

        let masks = discover(pdev, v, of).unwrap_or_else(|e| {
            dev_warn!(
                dev,
                "cannot read the CSW/MCB registers ({:?}); assuming MCB0/MC0\n",
                e
            );
            discover::FALLBACK
        });

        let owner = Arc::new(
            Owner {
                cpu: Atomic::new(soc::first_online_cpu()),
            },
            GFP_KERNEL,
        )?;
        let mut pmus = KVec::new();
        for child in fwnode.children() {
            // A sub-block that fails is skipped, as the others still work.
            let _ = add_child(&child, v, &masks, &owner, &mut pmus);
        }
        if pmus.is_empty() {
            dev_err!(dev, "no PMU sub-block found\n");
            return Err(ENODEV);
        }

        let shared = Arc::new(
            Shared {
                version: v,
                owner,
                irq,
                pcp,
                pmus,
            },
            GFP_KERNEL,
        )?;
        let irq_reg = IrqRegistration::new(
            irq,
            IrqFlags::NO_BALANCING.with(IrqFlags::NO_THREAD),
            c"xgene-pmu",
            Isr(shared.clone()),
        )
        .inspect_err(|e| dev_err!(dev, "cannot request IRQ {}: {:?}\n", irq, e))?;
        let state = hotplug::HotplugState::new(c"perf/xgene_pmu:online")?;
        // Routes the IRQ to the owning CPU (the callback runs for every
        // online CPU).
        let hp = hotplug::HotplugInstance::new(&state, Hotplug(shared.clone()))?;
        shared.pcp.write32(regs::INTMASK, v.layout().intmask_unmask);

        dev_info!(
            dev,
            "X-Gene PMU version {}: {} PMUs, counting on CPU {}\n",
            match v {
                Version::V1 => 1,
                Version::V2 => 2,
                Version::V3 => 3,
            },
            shared.pmus.len(),
            shared.owner.cpu.load(Relaxed)
        );
        Ok(Self {
            _hotplug: hp,
            _hotplug_state: state,
            _irq: irq_reg,
            shared,
        })
    }
}

impl platform::Driver for XgenePmuDriver {
    type IdInfo = Version;
    type Data<'bound> = XgenePmuDevice;
    const OF_ID_TABLE: Option<of::IdTable<Self::IdInfo>> = Some(&OF_TABLE);
    const ACPI_ID_TABLE: Option<acpi::IdTable<Self::IdInfo>> = Some(&ACPI_TABLE);

    fn probe<'bound>(
        pdev: &'bound platform::Device<device::Core<'_>>,
        id_info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        let Some(&v) = id_info else {
            return Err(ENODEV);
        };
        XgenePmuDevice::probe(pdev, v)
    }
}
