// SPDX-License-Identifier: GPL-2.0

//! `vpa_dtl`: the POWER pseries Dispatch Trace Log PMU.
//!
//! On a shared-processor LPAR the hypervisor can log, per virtual processor,
//! why it was preempted and when it was dispatched again, into a buffer the
//! partition registers with `H_REGISTER_VPA`. Each event of this PMU owns the
//! DTL of its CPU: it registers a buffer when perf schedules it, polls the
//! ring with a pinned hrtimer, and copies new entries into the perf AUX area
//! after a header record (boot timebase, timebase frequency) that perf's
//! decoder (`tools/perf/util/powerpc-vpadtl.c`) needs for timestamps.
//!
//! Nothing is dropped silently: entries the hypervisor overwrote before they
//! were read are counted and flag the next AUX record `PARTIAL`; entries that
//! do not fit in the AUX area are counted and flag it `TRUNCATED` (perf core
//! then stops the event). Counts are in the event's value and in
//! `/sys/bus/event_source/devices/vpa_dtl/stats/`. See
//! `Documentation/vpa-dtl.rst`.

use kernel::{
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        new_spinlock_irq, SpinLockIrq,
    },
};

// The project's shared abstractions and the kernel-independent logic are
// compiled into each module; not every driver uses every item.
#[allow(unreachable_pub, dead_code)]
#[path = "../../../rust/pmu/mod.rs"]
mod pmu;
#[allow(unreachable_pub, dead_code)]
#[path = "../../../rust/pseries/mod.rs"]
mod pseries;

#[allow(unreachable_pub, dead_code)]
mod logic {
    #[path = "src/aux_plan.rs"]
    pub(crate) mod aux_plan;
    #[path = "src/record.rs"]
    pub(crate) mod record;
    #[path = "src/ring.rs"]
    pub(crate) mod ring;
    #[path = "src/selftest.rs"]
    pub(crate) mod selftest;
    #[path = "src/validate.rs"]
    pub(crate) mod validate;
}

#[cfg(CONFIG_KUNIT)]
mod tests;

use logic::{aux_plan, record, ring, validate};
use pmu::{
    attrs::AttrValue, aux::AuxFlags, AttrGroup, AuxBuffer, Capabilities, Event, EventInit, Flags,
    PmuDriver, Registration, SysfsWriter, TaskContext, TimerRestart,
};
use pseries::DtlBuffer;

module! {
    type: VpaDtlModule,
    name: "vpa_dtl",
    authors: ["rust-pmu developers"],
    description: "POWER pseries Dispatch Trace Log PMU",
    license: "GPL",
    params: {
        adaptive: bool {
            default: false,
            description: "Adapt the polling period to the DTL fill level (default: fixed period)",
        },
    },
}

/// `PERF_HES_STOPPED`.
const HES_STOPPED: u32 = 0x01;

/// Cumulative entry counts.
struct Stats {
    captured: Atomic<u64>,
    lost_overrun: Atomic<u64>,
    lost_aux_full: Atomic<u64>,
}

impl Stats {
    const fn new() -> Self {
        Self {
            captured: Atomic::new(0),
            lost_overrun: Atomic::new(0),
            lost_aux_full: Atomic::new(0),
        }
    }

    fn add(&self, captured: u64, lost_overrun: u64, lost_aux_full: u64) {
        self.captured.add(captured, Relaxed);
        self.lost_overrun.add(lost_overrun, Relaxed);
        self.lost_aux_full.add(lost_aux_full, Relaxed);
    }

    fn lost(&self) -> u64 {
        self.lost_overrun.load(Relaxed) + self.lost_aux_full.load(Relaxed)
    }
}

/// Upper bound of `nr_cpu_ids` (powerpc's largest `CONFIG_NR_CPUS`).
const MAX_CPUS: usize = 8192;

/// `CLAIMED[cpu]`: an event owns that CPU's DTL (one consumer per DTL).
static CLAIMED: [Atomic<bool>; MAX_CPUS] = [const { Atomic::new(false) }; MAX_CPUS];

/// An event's exclusive claim on one CPU's DTL; released when dropped, on
/// every path (event destroyed, or `event_init` failing after the claim).
struct CpuClaim(u32);

impl CpuClaim {
    fn take(cpu: u32) -> Option<Self> {
        let slot = CLAIMED.get(cpu as usize)?;
        slot.cmpxchg(false, true, kernel::sync::atomic::Full)
            .ok()
            .map(|_| CpuClaim(cpu))
    }
}

impl Drop for CpuClaim {
    fn drop(&mut self) {
        CLAIMED[self.0 as usize].store(false, kernel::sync::atomic::Release);
    }
}

/// The PMU.
struct VpaDtl {
    /// Totals since the module was loaded, for `stats/`.
    totals: Stats,
    /// Boot timebase estimate and its error bound (ticks).
    boot_tb: u64,
    boot_tb_err: u64,
    tb_freq: u64,
    adaptive: bool,
}

/// The DTL reader's state, touched by the PMU callbacks and the timer on the
/// event's CPU.
struct Reader {
    /// Absolute index of the next entry to read.
    next: u64,
    /// Current polling period.
    period_ns: u64,
    /// Entries copied out of the ring before they are checked and written.
    scratch: KBox<[u8; ring::BUFFER_BYTES]>,
}

/// One event: the DTL of one CPU.
#[pin_data]
struct DtlEvent {
    buf: DtlBuffer,
    mask: u8,
    period_ns: u64,
    #[pin]
    reader: SpinLockIrq<Reader>,
    stats: Stats,
    /// Lost entries already added to the event's count.
    lost_reported: Atomic<u64>,
    /// Declared after `buf`: fields drop in order, so the DTL is deregistered
    /// before another event can claim the CPU.
    _claim: CpuClaim,
}

/// Per-AUX-area state.
struct DtlAux {
    header_written: Atomic<bool>,
}

impl VpaDtl {
    /// Reads what the hypervisor published since the last poll and writes it
    /// to the AUX area. Runs on the event's CPU with interrupts disabled.
    fn poll(&self, ev: &Event<Self>) -> u64 {
        let d = ev.data();
        let mut r = d.reader.lock();
        let head = d.buf.published_index();
        let Some(span) = ring::plan(r.next, head) else {
            pr_warn!(
                "cpu {}: DTL index went back from {} to {}; resynchronising\n",
                d.buf.cpu(),
                r.next,
                head
            );
            r.next = head;
            return 0;
        };
        if span.count == 0 && span.lost == 0 {
            return 0;
        }
        let scratch = &mut r.scratch[..];
        let mut off = 0;
        for (slot, len) in ring::runs(span.first, span.count) {
            d.buf.copy_slots(slot, len, &mut scratch[off..]);
            off += len * ring::ENTRY_SIZE;
        }
        // Entries the hypervisor reached while we copied may be torn.
        let torn = ring::torn(&span, d.buf.published_index());
        r.next = head;
        let lost_overrun = span.lost + torn;
        let pending = span.count - torn;
        let entries =
            &r.scratch[torn as usize * ring::ENTRY_SIZE..span.count as usize * ring::ENTRY_SIZE];

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
                let (written, lost) = if ok && out.write(&entries[..n]).is_ok() {
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
    fn next_period(&self, ev: &Event<Self>, found: u64) -> u64 {
        let d = ev.data();
        if !self.adaptive {
            return d.period_ns;
        }
        let mut r = d.reader.lock();
        let min = (d.period_ns / 8).max(validate::MIN_PERIOD_NS);
        let max = d.period_ns * 4;
        r.period_ns = if found >= ring::READABLE / 2 {
            (r.period_ns / 2).max(min)
        } else if found == 0 {
            (r.period_ns * 2).min(max)
        } else {
            r.period_ns
        };
        r.period_ns
    }
}

#[vtable]
impl PmuDriver for VpaDtl {
    type EventData = DtlEvent;
    type AuxData = DtlAux;
    const CAPABILITIES: Capabilities = Capabilities::NO_EXCLUDE
        .with(Capabilities::EXCLUSIVE)
        .with(Capabilities::ITRACE);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<DtlEvent, Error>> {
        let req = validate::Request {
            config: e.config(),
            sampling: e.is_sampling(),
            branch_stack: e.has_branch_stack(),
            per_task: e.is_per_task(),
            has_cpu: e.cpu().is_some(),
            perfmon: e.caller_perfmon_capable(),
        };
        if let Err(why) = validate::check(&req) {
            pr_warn!("event refused: {}\n", why.reason());
            return Err(Error::from_errno(-why.errno()));
        }
        // Checked by `validate::check`.
        let cpu = e.cpu().ok_or(EINVAL)?;
        let period_ns = validate::period_ns(e.sample_period_or_freq(), e.is_freq());
        if e.is_freq() {
            e.set_fixed_period(period_ns);
        }
        let Some(claim) = CpuClaim::take(cpu) else {
            pr_warn!("cpu {}: the DTL is in use by another vpa_dtl event\n", cpu);
            return Err(EBUSY);
        };
        let buf = DtlBuffer::new(cpu)?;
        let scratch = KBox::init::<core::convert::Infallible>(
            pin_init::zeroed::<[u8; ring::BUFFER_BYTES]>(),
            GFP_KERNEL,
        )?;
        Ok(try_pin_init!(DtlEvent {
            buf,
            mask: e.config() as u8,
            period_ns,
            reader <- new_spinlock_irq!(Reader { next: 0, period_ns: *period_ns, scratch }),
            stats: Stats::new(),
            lost_reported: Atomic::new(0),
            _claim: claim,
        }? Error))
    }

    fn add(&self, ev: &Event<Self>, flags: Flags) -> Result {
        let d = ev.data();
        if let Err(pseries::HcallError(rc)) = d.buf.register() {
            pr_warn!("cpu {}: DTL registration failed ({})\n", d.buf.cpu(), rc);
            return Err(EIO);
        }
        d.reader.lock().next = 0;
        ev.set_hw_state(HES_STOPPED);
        if flags.contains(Flags::START) {
            self.start(ev, flags);
        }
        Ok(())
    }

    fn del(&self, ev: &Event<Self>, _flags: Flags) {
        self.stop(ev, Flags::UPDATE);
        let d = ev.data();
        if let Err(pseries::HcallError(rc)) = d.buf.unregister() {
            pr_err!("cpu {}: DTL deregistration failed ({})\n", d.buf.cpu(), rc);
        }
    }

    fn start(&self, ev: &Event<Self>, _flags: Flags) {
        let d = ev.data();
        d.buf.set_enable_mask(d.mask);
        let period = {
            let mut r = d.reader.lock();
            r.period_ns = d.period_ns;
            r.period_ns
        };
        ev.set_hw_state(0);
        ev.timer_start(period, true);
    }

    fn stop(&self, ev: &Event<Self>, _flags: Flags) {
        if ev.hw_state() & HES_STOPPED != 0 {
            return;
        }
        let d = ev.data();
        d.buf.set_enable_mask(0);
        ev.timer_cancel();
        // Whatever was logged before logging stopped is still captured.
        self.poll(ev);
        ev.set_hw_state(HES_STOPPED);
        self.read(ev);
    }

    fn read(&self, ev: &Event<Self>) {
        // The event's value is the number of entries lost so far.
        let d = ev.data();
        let lost = d.stats.lost();
        let before = d.lost_reported.xchg(lost, Relaxed);
        ev.count_add(lost - before);
    }

    fn timer(&self, ev: &Event<Self>) -> TimerRestart {
        if !ev.is_active() || ev.hw_state() & HES_STOPPED != 0 {
            return TimerRestart::Stop;
        }
        let found = self.poll(ev);
        TimerRestart::After(self.next_period(ev, found))
    }

    fn event_destroy(&self, d: &DtlEvent) {
        let s = &d.stats;
        let lost = s.lost();
        if lost > 0 {
            pr_warn!(
                "cpu {}: {} DTL entries lost ({} overwritten by the hypervisor, {} for lack of AUX space), {} captured\n",
                d.buf.cpu(),
                lost,
                s.lost_overrun.load(Relaxed),
                s.lost_aux_full.load(Relaxed),
                s.captured.load(Relaxed)
            );
        }
        // The data is dropped right after this: the buffer deregisters
        // itself, then the CPU claim is released.
    }

    fn setup_aux(&self, _ev: &Event<Self>, buf: &AuxBuffer) -> Result<DtlAux> {
        if buf.is_snapshot() {
            pr_warn!("snapshot (overwrite) AUX mode is not supported: the header record would be overwritten\n");
            return Err(EOPNOTSUPP);
        }
        Ok(DtlAux {
            header_written: Atomic::new(false),
        })
    }
}

fn show_captured(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    use core::fmt::Write;
    writeln!(w, "{}", p.totals.captured.load(Relaxed))
}

fn show_lost_overrun(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    use core::fmt::Write;
    writeln!(w, "{}", p.totals.lost_overrun.load(Relaxed))
}

fn show_lost_aux_full(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    use core::fmt::Write;
    writeln!(w, "{}", p.totals.lost_aux_full.load(Relaxed))
}

fn show_boot_tb_err(p: &VpaDtl, w: &mut SysfsWriter<'_>) -> core::fmt::Result {
    use core::fmt::Write;
    writeln!(w, "{}", p.boot_tb_err)
}

static GROUPS: [AttrGroup<VpaDtl>; 3] = [
    AttrGroup::fixed(c"format", &[(c"event", AttrValue::Fixed(c"config:0-7"))]),
    AttrGroup::fixed(
        c"events",
        &[
            (c"dtl_cede", AttrValue::Fixed(c"event=0x1")),
            (c"dtl_preempt", AttrValue::Fixed(c"event=0x2")),
            (c"dtl_fault", AttrValue::Fixed(c"event=0x4")),
            (c"dtl_all", AttrValue::Fixed(c"event=0x7")),
        ],
    ),
    AttrGroup::fixed(
        c"stats",
        &[
            (c"captured", AttrValue::Show(show_captured)),
            (c"lost_overrun", AttrValue::Show(show_lost_overrun)),
            (c"lost_aux_full", AttrValue::Show(show_lost_aux_full)),
            (c"boot_tb_error_ticks", AttrValue::Show(show_boot_tb_err)),
        ],
    ),
];

struct VpaDtlModule {
    /// Unregisters the PMU when the module is removed.
    _reg: Registration<VpaDtl>,
}

/// Estimates the boot timebase from the timebase and `local_clock()` (which
/// counts nanoseconds from it); `get_boot_tb()` is not exported to modules.
fn estimate_boot_tb(tb_freq: u64) -> (u64, u64) {
    let mut best = (0, u64::MAX);
    for _ in 0..8 {
        let before = pseries::timebase();
        let ns = pseries::local_clock_ns();
        let after = pseries::timebase();
        let est = record::boot_tb_from(before, ns, after, tb_freq);
        if est.1 < best.1 {
            best = est;
        }
    }
    best
}

impl kernel::Module for VpaDtlModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        if !pseries::is_shared_processor_lpar() {
            pr_err!("not a shared-processor LPAR (no FW_FEATURE_SPLPAR): no dispatch trace log\n");
            return Err(ENODEV);
        }
        if pseries::is_kvm_guest() {
            pr_err!("running as a KVM guest: the DTL PMU needs a PowerVM LPAR\n");
            return Err(ENODEV);
        }
        if pseries::nr_cpu_ids() as usize > MAX_CPUS {
            pr_err!(
                "{} CPU ids exceed the supported {}\n",
                pseries::nr_cpu_ids(),
                MAX_CPUS
            );
            return Err(ENODEV);
        }
        let tb_freq = pseries::timebase_frequency();
        let (boot_tb, boot_tb_err) = estimate_boot_tb(tb_freq);
        let driver = VpaDtl {
            totals: Stats::new(),
            boot_tb,
            boot_tb_err,
            tb_freq,
            adaptive: module_parameters::adaptive.value(),
        };
        let reg = Registration::new(module, c"vpa_dtl", driver, &GROUPS)?;
        pr_info!(
            "registered PMU type {} (timebase {} Hz, boot_tb {} +/- {} ticks, {} polling)\n",
            reg.pmu_type(),
            tb_freq,
            boot_tb,
            boot_tb_err,
            if reg.driver().adaptive {
                "adaptive"
            } else {
                "fixed-period"
            }
        );
        Ok(Self { _reg: reg })
    }
}
