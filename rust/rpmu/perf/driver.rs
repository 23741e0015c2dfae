// SPDX-License-Identifier: GPL-2.0

//! The callbacks a PMU driver implements.

use super::{AuxBuffer, Capabilities, Event, EventFlags, EventInit, Process, Reading, TaskContext};
use kernel::{error::VTABLE_DEFAULT_ERROR, prelude::*, time::Delta};

/// Whether a per-event timer fires again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimerRestart {
    /// Do not re-arm.
    Stop,
    /// Re-arm this long after the current expiry.
    After(Delta),
    /// Re-arm lazily: run at the first timer interrupt of the event's CPU
    /// at least `after` from now, so that an idle CPU is not woken for it,
    /// and at the latest `deadline` from now, when it is (`None`: no
    /// deadline; on a `nohz_full` CPU, whose tick stops while it is busy,
    /// `after` then). For polling what grows only while the CPU runs: a
    /// busy CPU takes timer interrupts (its tick at least), and the timer
    /// runs within a jiffy or so of `after`. It runs from an interrupt of
    /// any hrtimer of the CPU, but not before an earlier-ending timer of the
    /// same clock base (`CLOCK_BOOTTIME`, hard), so another user's timer
    /// there can hold it up to its own expiry.
    Lazy {
        /// The earliest expiry, from now (at least [`MIN_TIMER_PERIOD`]).
        ///
        /// [`MIN_TIMER_PERIOD`]: super::MIN_TIMER_PERIOD
        after: Delta,
        /// The latest, from now, if any.
        deadline: Option<Delta>,
    },
}

/// A PMU transaction: perf schedules or reads a group of events as one
/// (`PERF_PMU_TXN_ADD`, `PERF_PMU_TXN_READ`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Txn {
    /// The group's events are being added (`add` for each).
    Add,
    /// The group's events are being read (`read` for each).
    Read,
}

/// A perf PMU driver.
///
/// The driver value is owned by its [`Registration`](super::Registration);
/// perf reaches it through the callbacks below, which are associated
/// functions of the driver type (`&self` is the registered driver).
///
/// Contexts: each callback receives what perf guarantees where it runs, and
/// what needs that guarantee is only callable there.
///
/// - `event_init` runs in process context and may sleep; it gets an
///   [`EventInit`].
/// - `add`, `del`, `start`, `stop` and `read` run on the event's CPU with
///   interrupts disabled (perf's context lock held but for `read` from
///   `perf_event_read_local()` and `stop` from `__perf_event_stop()`), and
///   `timer` runs in hard-interrupt context on the same CPU while the event
///   is started (the abstraction pins the timer there and disarms it after
///   `stop` and `del`). For one event they never run on two CPUs at once,
///   though one may nest in another on that CPU; they get an
///   [`Event<Self, Scheduled>`](super::Scheduled), the only form with the
///   hardware state, the count, the timer and the AUX output.
/// - `check_period` runs in process context from the
///   `PERF_EVENT_IOC_PERIOD` ioctl; it gets an
///   [`Event<Self, Process>`](super::Process).
/// - `pmu_enable`, `pmu_disable` and the transaction callbacks run on one
///   CPU with interrupts disabled and perf's context lock held; they get no
///   event.
/// - `setup_aux` runs in process context on any CPU, concurrently with the
///   others; it gets an [`Event<Self, Process>`](super::Process), which
///   reads only what is fixed after `event_init`.
/// - `event_destroy` runs in process context once the event left the PMU;
///   it gets the event's data alone.
///
/// See the lifecycle in the [module documentation](super).
///
/// # Examples
///
/// A counting PMU whose one event counts the reads made of it:
///
/// ```
/// use crate::rpmu::{compat::eopnotsupp, perf::{
///     AttrGroup, AttrValue, Capabilities, Capability, Event, EventFlag, EventFlags,
///     EventInit, HwState, HwStateBit, PmuDriver, Reading, Registration, TaskContext,
/// }};
/// use kernel::prelude::*;
///
/// struct Reads;
///
/// #[pin_data]
/// struct ReadsEvent {
///     step: u64,
/// }
///
/// #[vtable]
/// impl PmuDriver for Reads {
///     type EventData = ReadsEvent;
///     type AuxData = ();
///     const CAPABILITIES: Capabilities = Capabilities::empty().with(Capability::NoExclude);
///     const TASK_CONTEXT: TaskContext = TaskContext::Invalid;
///
///     fn event_init(&self, e: &mut EventInit<'_>) -> Result<impl PinInit<ReadsEvent, Error>> {
///         if e.is_sampling() {
///             return Err(eopnotsupp());
///         }
///         Ok(try_pin_init!(ReadsEvent { step: e.config().max(1) }? Error))
///     }
///     fn add(&self, ev: &Event<Self>, flags: EventFlags) -> Result {
///         ev.set_hw_state(HwStateBit::Stopped.into());
///         if flags.contains(EventFlag::Start) {
///             self.start(ev, flags);
///         }
///         Ok(())
///     }
///     fn del(&self, ev: &Event<Self>, _flags: EventFlags) {
///         self.stop(ev, EventFlag::Update.into());
///     }
///     fn start(&self, ev: &Event<Self>, _flags: EventFlags) {
///         ev.set_hw_state(HwState::RUNNING);
///     }
///     fn stop(&self, ev: &Event<Self>, _flags: EventFlags) {
///         ev.set_hw_state(HwStateBit::Stopped.into());
///     }
///     fn read(&self, ev: &Event<Self, Reading>) {
///         ev.count_add(ev.data().step);
///     }
/// }
///
/// static GROUPS: [AttrGroup<Reads>; 1] =
///     [AttrGroup::fixed(c"format", &[(c"step", AttrValue::Fixed(c"config:0-63"))])];
///
/// fn register(module: &'static ThisModule) -> Result<Registration<Reads>> {
///     Registration::new(module, c"reads", Ok::<_, Error>(Reads), &GROUPS)
/// }
/// ```
#[vtable]
pub trait PmuDriver: Sized + Send + Sync + 'static {
    /// Per-event state, created by `event_init`, dropped when perf destroys
    /// the event (after `event_destroy`).
    type EventData: Send + Sync;

    /// Per-AUX-area state, created by `setup_aux`, dropped when perf frees
    /// the AUX area, which may be after the event and the registration are
    /// gone: it must not refer to either. PMUs without an AUX area use `()`.
    type AuxData: Send + Sync + 'static;

    /// PMU capabilities.
    const CAPABILITIES: Capabilities;

    /// The context the PMU's events live in.
    const TASK_CONTEXT: TaskContext;

    /// Validates a new event and returns an initialiser for its state. Only
    /// called for events of this PMU's type: the abstraction answers `-ENOENT`
    /// for other types. A refusal must not be logged above `pr_debug`: any
    /// user can call `perf_event_open` in a loop.
    fn event_init(&self, event: &mut EventInit<'_>)
        -> Result<impl PinInit<Self::EventData, Error>>;

    /// Schedules the event onto the PMU; starts it if `flags` has
    /// [`EventFlag::Start`](super::EventFlag::Start).
    fn add(&self, event: &Event<Self>, flags: EventFlags) -> Result;

    /// Removes the event from the PMU.
    fn del(&self, event: &Event<Self>, flags: EventFlags);

    /// Starts (or resumes) counting or tracing. With
    /// [`EventFlag::Reload`](super::EventFlag::Reload) the period may have
    /// changed ([`Event::sample_period`]).
    fn start(&self, event: &Event<Self>, flags: EventFlags);

    /// Stops counting or tracing; brings the count up to date if `flags` has
    /// [`EventFlag::Update`](super::EventFlag::Update).
    fn stop(&self, event: &Event<Self>, flags: EventFlags);

    /// Brings the event's count up to date. May run nested inside another
    /// callback of the event on its CPU, or in NMI context
    /// (`perf_event_read_local()`): it gets the [`Reading`] view, and a lock it
    /// takes deadlocks if the callback it interrupts holds it.
    fn read(&self, event: &Event<Self, Reading>);

    /// Accepts or refuses a new sample period (`PERF_EVENT_IOC_PERIOD`)
    /// before perf applies it with `stop` and `start(RELOAD)`.
    fn check_period(&self, _event: &Event<Self, Process>, _period: u64) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Stops the whole PMU while perf schedules a group onto it.
    fn pmu_disable(&self) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Restarts the PMU after [`Self::pmu_disable`].
    fn pmu_enable(&self) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Starts a transaction on this PMU. Perf ends it with
    /// [`Self::commit_txn`], or, for a [`Txn::Add`] that could not add every
    /// event, with [`Self::cancel_txn`] after removing those it added.
    /// Transactions do not nest on a CPU.
    ///
    /// A driver implements all three transaction callbacks or none. Without
    /// them perf brackets [`Txn::Add`] with `pmu_disable`/`pmu_enable` (if
    /// the driver has those) and does nothing around [`Txn::Read`], so the
    /// members of a group are read one after the other while they count.
    fn start_txn(&self, _txn: Txn) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Ends the transaction started last on this CPU. An error ends a
    /// [`Txn::Add`] as a failure: perf removes the group's events again and
    /// calls [`Self::cancel_txn`].
    fn commit_txn(&self) -> Result {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Abandons the [`Txn::Add`] started last on this CPU.
    fn cancel_txn(&self) {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Runs when the event's timer (see [`Event::timer_start`]) expires, in
    /// hard-interrupt context on the event's CPU, while the event is
    /// started. Re-arms it by returning [`TimerRestart::After`] or
    /// [`TimerRestart::Lazy`].
    fn timer(&self, _event: &Event<Self>) -> TimerRestart {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Runs when perf destroys an event, before its data is dropped (process
    /// context). For releasing what `event_init` claimed on the driver.
    fn event_destroy(&self, _data: &Self::EventData) {}

    /// Prepares the AUX area perf allocated for `event`, already mapped as
    /// one contiguous buffer.
    fn setup_aux(&self, _event: &Event<Self, Process>, _buf: &AuxBuffer) -> Result<Self::AuxData> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}
