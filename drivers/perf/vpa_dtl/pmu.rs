// SPDX-License-Identifier: GPL-2.0

//! The PMU's callbacks: which events it accepts, and what scheduling an
//! event does to the CPU's DTL.

use crate::{
    logic::{
        pacer::{self, Pacer},
        validate::{self, Refusal},
    },
    poll::{Header, Outcome, Reader},
    rpmu::{
        compat::eopnotsupp,
        perf::{
            AuxBuffer, Capabilities, Capability, Event, EventFlag, EventFlags, EventInit, HwState,
            HwStateBit, PmuDriver, Process, Reading, TaskContext, TimerRestart,
        },
        pseries::dtl::{DtlBuffer, Mode, RegisterError, RingSize},
        sync::{new_raw_spinlock, RawSpinLock},
    },
    stats::{Stats, Totals},
};
use kernel::{
    pr_err_once, pr_warn_once,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
};

/// The PMU.
pub(crate) struct VpaDtl {
    /// Totals since the module was loaded, per CPU, for `stats/`.
    pub(crate) totals: Totals,
    /// The record opening each AUX transaction: the boot timebase estimate
    /// and the timebase frequency.
    header: Header,
    /// The boot timebase estimate's error bound (ticks).
    pub(crate) boot_tb_err: u64,
    mode: pacer::Mode,
    /// Whether quiet waits are lazy (see [`Pacer::lazy`]).
    lazy: bool,
    /// The ring each event allocates (when not sharing the kernel's).
    ring_size: RingSize,
    /// The hypervisor logs every dispatch whatever the enable mask, with no
    /// kind (KVM): only `dtl_all` can be honoured.
    kinds_unlogged: bool,
}

/// How the PMU reads the DTL (the module's parameters and the platform).
pub(crate) struct Setup {
    /// How the polling period is chosen.
    pub(crate) mode: pacer::Mode,
    /// See [`VpaDtl::lazy`].
    pub(crate) lazy: bool,
    /// The ring each event allocates.
    pub(crate) ring_size: RingSize,
    /// See [`VpaDtl::kinds_unlogged`].
    pub(crate) kinds_unlogged: bool,
}

impl VpaDtl {
    /// The PMU, with the boot timebase estimate (and its error bound) and
    /// the timebase frequency for the AUX header, reading as `setup` says.
    pub(crate) fn new(boot_tb: u64, boot_tb_err: u64, tb_freq: u64, setup: Setup) -> Result<Self> {
        Ok(Self {
            totals: Totals::new()?,
            header: Header::new(boot_tb, tb_freq),
            boot_tb_err,
            mode: setup.mode,
            lazy: setup.lazy,
            ring_size: setup.ring_size,
            kinds_unlogged: setup.kinds_unlogged,
        })
    }
}

/// Entries a millisecond KVM may log in a burst, after a quiet stretch (it
/// logs at every guest entry): a third above the fastest burst measured in
/// the nested KVM-HV setup, 296 a millisecond (`Documentation/testing.rst`).
const KVM_BURST_PER_MS: u64 = 400;

/// The errno `event_init` answers a refusal with
/// (`Documentation/vpa-dtl.rst`).
fn refusal_errno(why: Refusal) -> Error {
    match why {
        Refusal::NotPerfmon => EACCES,
        Refusal::Counting | Refusal::BranchStack | Refusal::KindUnlogged => eopnotsupp(),
        Refusal::BadConfig | Refusal::PerTask => EINVAL,
    }
}

/// Per-AUX-area state: none (every transaction starts with the header).
pub(crate) struct DtlAux;

/// One event: the DTL of one CPU.
#[pin_data]
pub(crate) struct DtlEvent {
    pub(crate) buf: DtlBuffer,
    /// The event kinds asked for (the enable-mask bits).
    pub(crate) mask: u8,
    /// Taken by the PMU callbacks and the polling timer, which all run
    /// with interrupts disabled.
    #[pin]
    pub(crate) reader: RawSpinLock<Reader>,
    pub(crate) stats: Stats,
    /// Lost entries already added to the event's count.
    lost_reported: Atomic<u64>,
}

impl VpaDtl {
    /// The polling of `ev` from now on: at its sample period (which
    /// `PERF_EVENT_IOC_PERIOD` may have changed), clamped like at
    /// `event_init`, fixed or adapted as the module was loaded, for the
    /// ring as registered.
    fn pacer(&self, ev: &Event<Self>) -> Pacer {
        let ns = validate::period_ns(ev.sample_period(), false);
        let p = Pacer::new(ns, self.mode, ev.data().buf.entries() as u64).lazy_waits(self.lazy);
        if self.kinds_unlogged {
            p.bursts_up_to(KVM_BURST_PER_MS)
        } else {
            p
        }
    }

    /// Polls `ev`'s DTL with the reader's lock held, and records what the
    /// poll found in the event's counts and the PMU's.
    fn poll_locked(&self, ev: &Event<Self>, r: &mut Reader, live: bool) -> Outcome {
        let d = ev.data();
        let o = r.poll(ev, &d.buf, d.mask, &self.header, live);
        d.stats.record(&o);
        self.totals.record(d.buf.cpu(), &o);
        o
    }

    /// Polls `ev`'s DTL (see [`Reader::poll`]).
    fn poll(&self, ev: &Event<Self>, live: bool) {
        self.poll_locked(ev, &mut ev.data().reader.lock(), live);
    }

    /// Registers `ev`'s DTL and starts its reader over; the errno `add`
    /// answers a failure with.
    fn register(&self, ev: &Event<Self>) -> Result {
        let d = ev.data();
        match d.buf.register() {
            Ok(start) => {
                d.reader.lock().reset(start, self.pacer(ev));
                Ok(())
            }
            Err(RegisterError::Busy) => {
                pr_debug!(
                    "cpu {}: the DTL is in use by another kernel user\n",
                    u32::from(d.buf.cpu())
                );
                Err(EBUSY)
            }
            Err(RegisterError::Hcall(e)) => {
                pr_warn_once!(
                    "cpu {}: DTL registration failed (hcall {})\n",
                    u32::from(d.buf.cpu()),
                    e.0
                );
                Err(EIO)
            }
        }
    }

    /// Whether `ev`'s ring is registered only while the event runs: its own
    /// ring, under a hypervisor that logs whatever the enable mask says
    /// (KVM), so that nothing is logged into it while the event is stopped.
    fn registered_while_running(&self, ev: &Event<Self>) -> bool {
        self.kinds_unlogged && ev.data().buf.mode() == Mode::Own
    }
}

#[vtable]
impl PmuDriver for VpaDtl {
    type EventData = DtlEvent;
    type AuxData = DtlAux;
    const CAPABILITIES: Capabilities = Capabilities::empty()
        .with(Capability::NoExclude)
        .with(Capability::Exclusive)
        .with(Capability::Itrace);
    const TASK_CONTEXT: TaskContext = TaskContext::Invalid;

    fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<DtlEvent, Error>> {
        let req = validate::Request {
            config: e.config(),
            sampling: e.is_sampling(),
            branch_stack: e.has_branch_stack(),
            per_task: e.is_per_task(),
            has_cpu: e.cpu().is_some(),
            perfmon: e.caller_perfmon_capable(),
            kinds_unlogged: self.kinds_unlogged,
        };
        if let Err(why) = validate::check(&req) {
            // Any user can ask in a loop: never above debug level.
            pr_debug!("event refused: {}\n", why.reason());
            return Err(refusal_errno(why));
        }
        let cpu = e.cpu().ok_or(EINVAL)?;
        if e.is_freq() {
            let ns = validate::period_ns(e.sample_period_or_freq(), true);
            e.set_fixed_period(ns);
        }
        // Fails with EBUSY if another event of this PMU owns the CPU's DTL.
        let buf = DtlBuffer::new(cpu, self.ring_size).inspect_err(|_| {
            pr_debug!(
                "cpu {}: the DTL is in use by another vpa_dtl event\n",
                u32::from(cpu)
            );
        })?;
        // debugfs `dtl` or `vcpudispatch_stats` hold the CPU's log.
        if buf.other_user_active() {
            pr_debug!(
                "cpu {}: the DTL is in use by another kernel user\n",
                u32::from(cpu)
            );
            return Err(EBUSY);
        }
        let reader = Reader::new(buf.capacity_bytes())?;
        Ok(try_pin_init!(DtlEvent {
            buf,
            mask: e.config() as u8,
            reader <- new_raw_spinlock!(reader, "vpa_dtl_reader"),
            stats: Stats::new(),
            lost_reported: Atomic::new(0),
        }? Error))
    }

    fn add(&self, ev: &Event<Self>, flags: EventFlags) -> Result {
        // Registered here, so that a DTL another user holds makes `add`
        // fail (EBUSY), and perf knows the event is not running.
        self.register(ev)?;
        ev.set_hw_state(HwStateBit::Stopped.into());
        if flags.contains(EventFlag::Start) {
            self.start(ev, flags);
        }
        Ok(())
    }

    fn del(&self, ev: &Event<Self>, _flags: EventFlags) {
        self.stop(ev, EventFlag::Update.into());
        let d = ev.data();
        let own = d.buf.mode() == Mode::Own && d.buf.is_registered() && !d.buf.is_displaced();
        match d.buf.unregister() {
            // Deregistration is the point after which the hypervisor writes
            // no more. PHYP logs at dispatch of this CPU and checks the mask
            // cleared at `stop`, so nothing comes after `stop`'s poll; a
            // writer concurrent with the reader (see `poll`) may still
            // publish an entry it began before the mask was cleared. Read
            // what came in between, so that it is captured, not lost.
            Ok(()) if own => {
                self.poll(ev, false);
                self.read(ev.as_read());
            }
            Ok(()) => {}
            Err(e) => pr_err_once!(
                "cpu {}: DTL deregistration failed (hcall {})\n",
                u32::from(d.buf.cpu()),
                e.0
            ),
        }
    }

    fn start(&self, ev: &Event<Self>, _flags: EventFlags) {
        let d = ev.data();
        if self.registered_while_running(ev) && !d.buf.is_registered() {
            // Deregistered at `stop`. On failure (already logged) the
            // event stays stopped and captures nothing until `add` again.
            if self.register(ev).is_err() {
                return;
            }
        }
        d.buf.enable(d.mask);
        // With RELOAD the period may have changed (PERF_EVENT_IOC_PERIOD).
        let first = d.reader.lock().set_pacer(self.pacer(ev));
        ev.set_hw_state(HwState::RUNNING);
        ev.timer_start(first);
    }

    fn stop(&self, ev: &Event<Self>, _flags: EventFlags) {
        if ev.hw_state().contains(HwStateBit::Stopped) {
            return;
        }
        let d = ev.data();
        d.buf.disable();
        if self.registered_while_running(ev) && d.buf.is_registered() && !d.buf.is_displaced() {
            // KVM keeps logging a stopped event's CPU: deregistered until
            // `start`. KVM may log one more entry (at the guest entry after
            // the call), which the poll below takes.
            if let Err(e) = d.buf.unregister() {
                pr_err_once!(
                    "cpu {}: DTL deregistration failed (hcall {})\n",
                    u32::from(d.buf.cpu()),
                    e.0
                );
            }
        }
        // The abstraction disarms the polling timer when this returns; the
        // poll below and a timer poll never run on two CPUs at once.
        // Whatever was logged before logging stopped is still captured.
        self.poll(ev, false);
        ev.set_hw_state(HwStateBit::Stopped.into());
        self.read(ev.as_read());
    }

    fn read(&self, ev: &Event<Self, Reading>) {
        // The event's value is the number of entries lost so far, and so
        // are its lost samples (`PERF_FORMAT_LOST`): `perf record` writes
        // them into `perf.data` per CPU when it ends.
        let d = ev.data();
        let lost = d.stats.lost();
        let before = d.lost_reported.xchg(lost, Relaxed);
        let delta = lost.saturating_sub(before);
        if delta > 0 {
            ev.count_add(delta);
            ev.lost_samples_add(delta);
        }
    }

    fn check_period(&self, _ev: &Event<Self, Process>, _period: u64) -> Result {
        // Every period is honoured; those below the minimum are clamped to
        // it, as at event_init.
        Ok(())
    }

    fn timer(&self, ev: &Event<Self>) -> TimerRestart {
        if !ev.is_active() || ev.hw_state().contains(HwStateBit::Stopped) {
            return TimerRestart::Stop;
        }
        // One hold of the reader's lock for the poll and the next period.
        let mut r = ev.data().reader.lock();
        let found = self.poll_locked(ev, &mut r, true).found;
        let after = r.pace(found);
        match r.lazy() {
            // Quiet: a wait that leaves this CPU asleep while it idles.
            Some(deadline) => TimerRestart::Lazy { after, deadline },
            None => TimerRestart::After(after),
        }
    }

    fn event_destroy(&self, d: &DtlEvent) {
        let s = &d.stats;
        // Losses are reported in the AUX records, the event's count and
        // stats/; this is for debugging only.
        pr_debug!(
            "cpu {}: {} DTL entries captured, {} overwritten by the hypervisor, {} for lack of AUX space\n",
            u32::from(d.buf.cpu()),
            s.captured.load(Relaxed),
            s.lost_overrun.load(Relaxed),
            s.lost_aux_full.load(Relaxed)
        );
        // The data is dropped right after this: the buffer deregisters
        // itself, then releases its claim on the CPU.
    }

    fn setup_aux(&self, _ev: &Event<Self, Process>, buf: &AuxBuffer) -> Result<DtlAux> {
        if buf.is_snapshot() {
            // The header record would be overwritten.
            pr_debug!("snapshot (overwrite) AUX mode is not supported\n");
            return Err(eopnotsupp());
        }
        Ok(DtlAux)
    }
}
