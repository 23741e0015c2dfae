// SPDX-License-Identifier: GPL-2.0

//! Safe abstractions over the kernel's performance monitoring unit interface
//! (`struct pmu`).
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! A driver implements [`PmuDriver`] and creates a [`Registration`], which
//! registers the PMU with perf on creation and unregisters it on drop. Perf
//! calls into the driver through [`PmuDriver`]'s methods, which receive an
//! [`Event`] and never a raw pointer. Per-event state is a typed
//! [`PmuDriver::EventData`], created by [`PmuDriver::event_init`] and dropped
//! when perf destroys the event, after the event has left the hardware and
//! its timer (see [`Event::timer_start`]) has been cancelled.
//!
//! The module is included by each driver crate with
//! `#[path = "../../../rust/pmu/mod.rs"] mod pmu;`; see `rust/rpmu.mk`.

pub mod attrs;
pub mod aux;
pub mod bindings;
pub mod hotplug;
pub mod kernel_counter;
pub mod sync;

use core::{
    ffi::{c_int, c_void},
    marker::PhantomData,
    mem::ManuallyDrop,
    ptr::NonNull,
};
use kernel::{
    error::{from_result, to_result, VTABLE_DEFAULT_ERROR},
    prelude::*,
    types::Opaque,
};

pub use attrs::{AttrGroup, SysfsWriter};
pub use aux::{AuxBuffer, AuxOutput};

/// PMU capabilities (`PERF_PMU_CAP_*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Capabilities(u32);

impl Capabilities {
    /// No capability.
    pub const NONE: Self = Self(0);
    /// The PMU raises no interrupt; sampling is driven by the driver.
    pub const NO_INTERRUPT: Self = Self(bindings::PERF_PMU_CAP_NO_INTERRUPT);
    /// The PMU cannot honour any `exclude_*` attribute; perf core refuses
    /// events that set one with `-EINVAL`.
    pub const NO_EXCLUDE: Self = Self(bindings::PERF_PMU_CAP_NO_EXCLUDE);
    /// At most one event per context; perf core refuses a second with `-EBUSY`.
    pub const EXCLUSIVE: Self = Self(bindings::PERF_PMU_CAP_EXCLUSIVE);
    /// The PMU writes an AUX area (`setup_aux`/`free_aux`).
    pub const ITRACE: Self = Self(bindings::PERF_PMU_CAP_ITRACE);

    /// Both sets of capabilities.
    pub const fn with(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The raw `PERF_PMU_CAP_*` bits.
    pub const fn bits(self) -> u32 {
        self.0
    }
}

/// The perf event context a PMU's events live in (`pmu::task_ctx_nr`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TaskContext {
    /// CPU-wide only (`perf_invalid_context`): perf refuses per-task events
    /// before the driver sees them.
    Invalid,
    /// The hardware context (`perf_hw_context`).
    Hardware,
    /// The software context (`perf_sw_context`).
    Software,
}

impl TaskContext {
    const fn raw(self) -> c_int {
        match self {
            TaskContext::Invalid => -1,
            TaskContext::Hardware => 0,
            TaskContext::Software => 1,
        }
    }
}

/// Flags passed to [`PmuDriver::add`], [`PmuDriver::start`] and friends
/// (`PERF_EF_*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Flags(u32);

impl Flags {
    /// `PERF_EF_START`: start the event once added.
    pub const START: Self = Self(bindings::PERF_EF_START);
    /// `PERF_EF_RELOAD`: reload the counter when starting.
    pub const RELOAD: Self = Self(bindings::PERF_EF_RELOAD);
    /// `PERF_EF_UPDATE`: update the counter when stopping.
    pub const UPDATE: Self = Self(bindings::PERF_EF_UPDATE);

    /// Whether all flags of `other` are set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Builds flags from raw `PERF_EF_*` bits.
    pub const fn from_raw(bits: u32) -> Self {
        Self(bits)
    }
}

/// Whether a per-event timer fires again.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimerRestart {
    /// Do not re-arm.
    Stop,
    /// Re-arm this many nanoseconds after the current expiry.
    After(u64),
}

/// A perf PMU driver.
///
/// Perf calls `event_init` in process context; `add`, `del`, `start`, `stop`
/// and `read` on the event's CPU with interrupts disabled; `timer` in hard
/// interrupt context on the CPU the timer was started on; `setup_aux` in
/// process context. For one event these never run concurrently with each
/// other except `timer` against callbacks on another CPU, which a CPU-wide PMU
/// avoids by starting the timer pinned on the event's CPU.
#[vtable]
pub trait PmuDriver: Sized + Send + Sync + 'static {
    /// Per-event state, created by `event_init`, dropped when perf destroys
    /// the event.
    type EventData: Send + Sync;

    /// Per-AUX-buffer state, created by `setup_aux`, dropped by `free_aux`.
    /// PMUs without an AUX area use `()`.
    type AuxData: Send + Sync;

    /// PMU capabilities.
    const CAPABILITIES: Capabilities;

    /// The context the PMU's events live in.
    const TASK_CONTEXT: TaskContext;

    /// Validates a new event and returns an initialiser for its state. Only
    /// called for events of this PMU's type: the abstraction answers `-ENOENT`
    /// for other types. Runs in process context and may sleep.
    fn event_init(&self, event: &mut EventInit<'_>)
        -> Result<impl PinInit<Self::EventData, Error>>;

    /// Schedules the event onto the PMU; starts it if `flags` has
    /// [`Flags::START`].
    fn add(&self, event: &Event<Self>, flags: Flags) -> Result;

    /// Removes the event from the PMU.
    fn del(&self, event: &Event<Self>, flags: Flags);

    /// Starts (or resumes) counting or tracing.
    fn start(&self, event: &Event<Self>, flags: Flags);

    /// Stops counting or tracing; updates the count if `flags` has
    /// [`Flags::UPDATE`].
    fn stop(&self, event: &Event<Self>, flags: Flags);

    /// Brings the event's count up to date.
    fn read(&self, event: &Event<Self>);

    /// Runs when the event's timer (see [`Event::timer_start`]) expires.
    fn timer(&self, _event: &Event<Self>) -> TimerRestart {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Runs when perf destroys an event, before its data is dropped (process
    /// context). For releasing what `event_init` claimed on the driver.
    fn event_destroy(&self, _data: &Self::EventData) {}

    /// Prepares the AUX area perf allocated for `event`, already mapped as
    /// one contiguous buffer.
    fn setup_aux(&self, _event: &Event<Self>, _buf: &AuxBuffer) -> Result<Self::AuxData> {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// An event being validated by [`PmuDriver::event_init`].
///
/// # Invariants
///
/// `ptr` points at a `struct perf_event` that perf core is initialising; it
/// stays valid for `'a`.
pub struct EventInit<'a> {
    ptr: NonNull<bindings::perf_event>,
    _p: PhantomData<&'a bindings::perf_event>,
}

impl EventInit<'_> {
    fn attr(&self) -> &bindings::perf_event_attr {
        // SAFETY: By the type invariant the event is valid; `attr` is not
        // modified while `event_init` runs, except by `set_period_ns`, which
        // takes `&mut self`.
        unsafe { &(*self.ptr.as_ptr()).attr }
    }

    /// `attr.config`.
    pub fn config(&self) -> u64 {
        self.attr().config
    }

    /// `attr.config1`.
    pub fn config1(&self) -> u64 {
        // SAFETY: `config1` is a `u64` in every variant of the union.
        unsafe { self.attr().__bindgen_anon_3.config1 }
    }

    /// `attr.config2`.
    pub fn config2(&self) -> u64 {
        // SAFETY: `config2` is a `u64` in every variant of the union.
        unsafe { self.attr().__bindgen_anon_4.config2 }
    }

    /// The CPU the event is bound to, or `None` for a per-task event that may
    /// run on any CPU.
    pub fn cpu(&self) -> Option<u32> {
        // SAFETY: By the type invariant the event is valid.
        let cpu = unsafe { (*self.ptr.as_ptr()).cpu };
        u32::try_from(cpu).ok()
    }

    /// Whether the event is attached to a task (`perf_event_open` with a pid).
    pub fn is_per_task(&self) -> bool {
        // SAFETY: By the type invariant the event is valid.
        let state = unsafe { (*self.ptr.as_ptr()).attach_state };
        state & bindings::PERF_ATTACH_TASK != 0
    }

    /// Whether this is a sampling event (`is_sampling_event()`): a non-zero
    /// sample period or frequency.
    pub fn is_sampling(&self) -> bool {
        // SAFETY: `sample_period` and `sample_freq` are both `u64`.
        unsafe { self.attr().__bindgen_anon_1.sample_period != 0 }
    }

    /// Whether `attr.freq` is set (the sample rate is a frequency in Hz).
    pub fn is_freq(&self) -> bool {
        self.attr().freq() != 0
    }

    /// The sample period (events) or, with [`Self::is_freq`], frequency (Hz).
    pub fn sample_period_or_freq(&self) -> u64 {
        // SAFETY: `sample_period` and `sample_freq` are both `u64`.
        unsafe { self.attr().__bindgen_anon_1.sample_period }
    }

    /// Whether the event asks for a branch stack (`has_branch_stack()`).
    pub fn has_branch_stack(&self) -> bool {
        self.attr().sample_type
            & u64::from(bindings::perf_event_sample_format_PERF_SAMPLE_BRANCH_STACK)
            != 0
    }

    /// Whether the event has a group leader other than itself.
    pub fn is_group_member(&self) -> bool {
        // SAFETY: By the type invariant the event is valid.
        unsafe { (*self.ptr.as_ptr()).group_leader != self.ptr.as_ptr() }
    }

    /// Calls `f` for every other event of the group this event is joining:
    /// the group leader (unless it is this event) and its siblings. Stops at
    /// and returns the first error `f` returns. Perf core holds the leader's
    /// context mutex while `event_init` runs for a group member, so the list
    /// is stable.
    pub fn for_each_group_member<F>(&self, mut f: F) -> Result
    where
        F: FnMut(&GroupMember<'_>) -> Result,
    {
        struct Ctx<'f> {
            f: &'f mut dyn FnMut(&GroupMember<'_>) -> Result,
            pmu: *mut bindings::pmu,
        }
        /// # Safety
        ///
        /// `member` is a live event of the group; `ctx` points at a `Ctx`.
        unsafe extern "C" fn cb(member: *mut bindings::perf_event, ctx: *mut c_void) -> c_int {
            // SAFETY: Guaranteed by the caller (`for_each_group_member` below).
            let ctx = unsafe { &mut *ctx.cast::<Ctx<'_>>() };
            // SAFETY: As above; `member` is not null.
            let ptr = unsafe { NonNull::new_unchecked(member) };
            // SAFETY: `member` is live; `pmu` is set for every initialised event.
            let same_pmu = unsafe { (*member).pmu } == ctx.pmu;
            let m = GroupMember {
                ptr,
                same_pmu,
                _p: PhantomData,
            };
            match (ctx.f)(&m) {
                Ok(()) => 0,
                Err(e) => e.to_errno(),
            }
        }
        // SAFETY: By the type invariant the event is valid; perf core sets
        // `pmu` before calling `event_init`.
        let pmu = unsafe { (*self.ptr.as_ptr()).pmu };
        let mut ctx = Ctx { f: &mut f, pmu };
        // SAFETY: The event is valid, `cb` matches the helper's callback type
        // and `ctx` outlives the call.
        to_result(unsafe {
            bindings::rpmu_for_each_group_member(
                self.ptr.as_ptr(),
                Some(cb),
                core::ptr::from_mut(&mut ctx).cast(),
            )
        })
    }

    /// Moves the event to `cpu`, as uncore PMUs do to count on the one CPU
    /// that owns the device (the CPU in the PMU's `cpumask` file).
    pub fn set_cpu(&mut self, cpu: u32) {
        // SAFETY: By the type invariant the event is valid; perf core lets
        // `event_init` choose the CPU of a CPU-wide event before installing it.
        unsafe { (*self.ptr.as_ptr()).cpu = cpu as c_int };
    }

    /// Whether the caller may use performance monitoring (`perfmon_capable()`:
    /// `CAP_PERFMON` or `CAP_SYS_ADMIN`).
    pub fn caller_perfmon_capable(&self) -> bool {
        // SAFETY: No preconditions; checks the current task's credentials.
        unsafe { bindings::rpmu_perfmon_capable() }
    }

    /// Turns a frequency-mode event into a fixed period, in the unit the
    /// driver uses (for timer-driven PMUs, nanoseconds): perf then skips its
    /// period-adjustment feedback loop, as the hrtimer rate is fixed.
    pub fn set_fixed_period(&mut self, period: u64) {
        let e = self.ptr.as_ptr();
        // SAFETY: By the type invariant the event is valid, and perf core
        // lets `event_init` rewrite the period fields before the event is
        // installed; `&mut self` rules out concurrent readers through `self`.
        unsafe { bindings::rpmu_event_fix_period(e, period) }
    }
}

/// Another event of a group, seen from [`EventInit::for_each_group_member`].
///
/// # Invariants
///
/// `ptr` is a live event of the group for `'a`.
pub struct GroupMember<'a> {
    ptr: NonNull<bindings::perf_event>,
    same_pmu: bool,
    _p: PhantomData<&'a bindings::perf_event>,
}

impl GroupMember<'_> {
    /// Whether the member belongs to the same PMU as the event being
    /// initialised.
    pub fn same_pmu(&self) -> bool {
        self.same_pmu
    }

    /// Whether the member is a software event (those may join any group).
    pub fn is_software(&self) -> bool {
        // SAFETY: By the type invariant the event is live.
        unsafe { bindings::rpmu_event_is_software(self.ptr.as_ptr()) }
    }

    /// `attr.config`.
    pub fn config(&self) -> u64 {
        // SAFETY: By the type invariant the event is live; `attr` is fixed
        // once the event is initialised.
        unsafe { (*self.ptr.as_ptr()).attr.config }
    }

    /// `attr.config1`.
    pub fn config1(&self) -> u64 {
        // SAFETY: As for `config`.
        unsafe { (*self.ptr.as_ptr()).attr.__bindgen_anon_3.config1 }
    }
}

/// Everything the abstraction keeps per event; pointed to by
/// `perf_event::pmu_private`.
///
/// # Invariants
///
/// - `event` is the event this box belongs to, valid until perf calls the
///   event's `destroy` callback, which frees the box.
/// - If `T::HAS_TIMER`, `timer` has been set up with [`timer_trampoline::<T>`].
#[pin_data]
struct EventBox<T: PmuDriver> {
    timer: Opaque<bindings::hrtimer>,
    event: NonNull<bindings::perf_event>,
    #[pin]
    data: T::EventData,
}

/// A perf event of a [`PmuDriver`]'s PMU, as seen from the PMU callbacks.
///
/// # Invariants
///
/// The wrapped `perf_event` belongs to a PMU registered by a
/// [`Registration<T>`], `event_init` succeeded for it, and its `pmu_private`
/// points at a live `EventBox<T>`.
#[repr(transparent)]
pub struct Event<T: PmuDriver> {
    inner: Opaque<bindings::perf_event>,
    _p: PhantomData<T>,
}

// SAFETY: Perf core serialises the PMU callbacks of an event; what `Event`
// exposes is either read-only after `event_init`, updated through perf core's
// own atomics (`count`, `hw.prev_count`), or `T::EventData`, which is `Sync`.
unsafe impl<T: PmuDriver> Sync for Event<T> {}

impl<T: PmuDriver> Event<T> {
    /// # Safety
    ///
    /// `ptr` must satisfy the type invariants for `'a`.
    unsafe fn from_raw<'a>(ptr: *mut bindings::perf_event) -> &'a Self {
        // SAFETY: `Event<T>` is a transparent wrapper of `perf_event`; the
        // caller guarantees validity for `'a`.
        unsafe { &*ptr.cast::<Self>() }
    }

    fn raw(&self) -> *mut bindings::perf_event {
        self.inner.get()
    }

    fn event_box(&self) -> &EventBox<T> {
        // SAFETY: By the type invariant `pmu_private` points at a live
        // `EventBox<T>`, which outlives `&self` (it is freed by `destroy`,
        // after which perf never hands the event to a callback again).
        unsafe { &*(*self.raw()).pmu_private.cast::<EventBox<T>>() }
    }

    /// The driver's state for this event.
    pub fn data(&self) -> &T::EventData {
        &self.event_box().data
    }

    /// The driver that owns the event's PMU.
    pub fn driver(&self) -> &T {
        // SAFETY: By the type invariant `pmu` is the `pmu` field of a live
        // `Inner<T>`; the registration outlives its events (perf detaches all
        // events before `perf_pmu_unregister` returns).
        unsafe { &(*Inner::<T>::from_pmu((*self.raw()).pmu)).driver }
    }

    /// The CPU the event is bound to (`None` for per-task events).
    pub fn cpu(&self) -> Option<u32> {
        // SAFETY: By the type invariant the event is valid; `cpu` is fixed
        // after creation.
        u32::try_from(unsafe { (*self.raw()).cpu }).ok()
    }

    /// `attr.config`.
    pub fn config(&self) -> u64 {
        // SAFETY: `attr` is fixed after `event_init`.
        unsafe { (*self.raw()).attr.config }
    }

    /// `attr.config1`.
    pub fn config1(&self) -> u64 {
        // SAFETY: `attr` is fixed after `event_init`; `config1` is a `u64` in
        // every variant of the union.
        unsafe { (*self.raw()).attr.__bindgen_anon_3.config1 }
    }

    /// `hw.sample_period`: the period fixed at `event_init`.
    pub fn sample_period(&self) -> u64 {
        // SAFETY: Only changed by `event_init` or by perf core with the event
        // stopped (PERF_EVENT_IOC_PERIOD), never concurrently with callbacks.
        unsafe { (*self.raw()).hw.sample_period }
    }

    /// Whether perf currently has the event scheduled on the PMU.
    pub fn is_active(&self) -> bool {
        // SAFETY: `state` is an `int` updated by perf core; a racy read is
        // what the C drivers do too (READ_ONCE semantics).
        let state = unsafe { core::ptr::read_volatile(&raw const (*self.raw()).state) };
        state == bindings::perf_event_state_PERF_EVENT_STATE_ACTIVE
    }

    /// `hw.state`: the driver's `PERF_HES_*` bits.
    pub fn hw_state(&self) -> u32 {
        // SAFETY: `hw.state` belongs to the driver and is only touched from
        // callbacks, which perf serialises.
        unsafe { core::ptr::read_volatile(&raw const (*self.raw()).hw.state) as u32 }
    }

    /// Sets `hw.state` (`PERF_HES_STOPPED`, `PERF_HES_UPTODATE`).
    pub fn set_hw_state(&self, state: u32) {
        // SAFETY: As for `hw_state`.
        unsafe { core::ptr::write_volatile(&raw mut (*self.raw()).hw.state, state as c_int) }
    }

    /// Adds `delta` to the event's count (`local64_add(&event->count)`).
    pub fn count_add(&self, delta: u64) {
        // SAFETY: `count` is a `local64_t` perf core reads with `local64_read`.
        unsafe { bindings::rpmu_local64_add(&raw mut (*self.raw()).count, delta) }
    }

    /// The event's count.
    pub fn count(&self) -> u64 {
        // SAFETY: As for `count_add`.
        unsafe { bindings::rpmu_local64_read(&raw mut (*self.raw()).count) }
    }

    /// `hw.prev_count`: the last raw counter value the driver saw.
    pub fn prev_count(&self) -> u64 {
        // SAFETY: `hw.prev_count` is a `local64_t` owned by the driver.
        unsafe { bindings::rpmu_local64_read(&raw mut (*self.raw()).hw.prev_count) }
    }

    /// Sets `hw.prev_count`.
    pub fn set_prev_count(&self, value: u64) {
        // SAFETY: As for `prev_count`.
        unsafe { bindings::rpmu_local64_set(&raw mut (*self.raw()).hw.prev_count, value) }
    }

    /// Replaces `hw.prev_count` with `new` if it still holds `old`; returns
    /// the value found (`local64_cmpxchg`).
    pub fn cmpxchg_prev_count(&self, old: u64, new: u64) -> u64 {
        // SAFETY: As for `prev_count`.
        unsafe { bindings::rpmu_local64_cmpxchg(&raw mut (*self.raw()).hw.prev_count, old, new) }
    }

    /// `hw.idx`: the hardware counter the driver assigned.
    pub fn hw_idx(&self) -> i32 {
        // SAFETY: `hw.idx` belongs to the driver; callbacks are serialised.
        unsafe { *bindings::rpmu_event_hw_idx(self.raw()) }
    }

    /// Sets `hw.idx`.
    pub fn set_hw_idx(&self, idx: i32) {
        // SAFETY: As for `hw_idx`.
        unsafe { *bindings::rpmu_event_hw_idx(self.raw()) = idx }
    }

    /// Publishes the event's state to the user page of its ring buffer.
    pub fn update_userpage(&self) {
        // SAFETY: The event is valid; perf allows this from any callback.
        unsafe { bindings::perf_event_update_userpage(self.raw()) }
    }

    /// Arms the event's high-resolution timer to call [`PmuDriver::timer`]
    /// after `ns` nanoseconds, on this CPU if `pinned`. Re-arming a pending
    /// timer moves its expiry.
    pub fn timer_start(&self, ns: u64, pinned: bool) {
        if !T::HAS_TIMER {
            build_error!("Event::timer_start needs PmuDriver::timer");
        }
        let t = self.event_box().timer.get();
        // SAFETY: By the `EventBox` invariant the timer was set up; it lives
        // as long as the box, and `destroy` cancels it before freeing.
        unsafe { bindings::rpmu_hrtimer_start(t.cast(), ns, pinned) }
    }

    /// Cancels the event's timer and waits for a running callback to finish.
    /// Must not be called from the timer callback itself.
    pub fn timer_cancel(&self) {
        if !T::HAS_TIMER {
            build_error!("Event::timer_cancel needs PmuDriver::timer");
        }
        let t = self.event_box().timer.get();
        // SAFETY: The timer was set up (`EventBox` invariant). Callers are
        // PMU callbacks, not the timer callback, so this cannot deadlock on
        // itself; a callback running on another CPU is waited for.
        unsafe { bindings::hrtimer_cancel(t) };
    }

    /// Opens an AUX transaction: `None` if the event has no AUX area mapped,
    /// or perf found it full (in which case perf core has disabled the event).
    pub fn aux_output_begin(&self) -> Option<AuxOutput<'_, T>> {
        AuxOutput::begin(self)
    }
}

/// The registered PMU's storage. Never moves once registered.
///
/// # Invariants
///
/// `pmu` is registered with perf while the `Registration` that owns this
/// exists; `name` and the sysfs groups it points to live as long.
#[repr(C)]
#[pin_data]
struct Inner<T: PmuDriver> {
    pmu: Opaque<bindings::pmu>,
    name: KVec<u8>,
    groups: attrs::Groups<T>,
    #[pin]
    driver: T,
}

impl<T: PmuDriver> Inner<T> {
    /// # Safety
    ///
    /// `pmu` must be the `pmu` field of a live `Inner<T>`.
    unsafe fn from_pmu(pmu: *mut bindings::pmu) -> *const Self {
        // SAFETY: Guaranteed by the caller; `Opaque<T>` has the layout of `T`.
        unsafe { kernel::container_of!(pmu.cast::<Opaque<bindings::pmu>>(), Self, pmu) }
    }
}

/// A PMU registered with perf; unregistered on drop.
///
/// # Invariants
///
/// `inner` is registered with perf (`perf_pmu_register` succeeded).
pub struct Registration<T: PmuDriver> {
    inner: ManuallyDrop<Pin<KBox<Inner<T>>>>,
}

// SAFETY: The registration only exposes `&T`, and `T: Send + Sync`.
unsafe impl<T: PmuDriver> Send for Registration<T> {}
// SAFETY: As above.
unsafe impl<T: PmuDriver> Sync for Registration<T> {}

impl<T: PmuDriver> Registration<T> {
    /// Registers `driver` as the PMU `name`, with the sysfs attribute groups
    /// `groups` (for example `format`, `events` and `cpumask`). `module` is
    /// the driver's module: perf holds a reference on it while any event of
    /// the PMU exists, so the module cannot be removed under an open event.
    pub fn new(
        module: &'static ThisModule,
        name: &CStr,
        driver: T,
        groups: &'static [AttrGroup<T>],
    ) -> Result<Self> {
        Self::new_with(module, name, Ok::<T, Error>(driver), groups)
    }

    /// As [`Registration::new`], with the driver initialised in place (for
    /// drivers holding locks or other pinned state).
    pub fn new_with(
        module: &'static ThisModule,
        name: &CStr,
        driver: impl PinInit<T, Error>,
        groups: &'static [AttrGroup<T>],
    ) -> Result<Self> {
        let mut name_buf = KVec::with_capacity(name.to_bytes_with_nul().len(), GFP_KERNEL)?;
        name_buf.extend_from_slice(name.to_bytes_with_nul(), GFP_KERNEL)?;
        let groups = attrs::Groups::new(groups)?;
        let inner: Pin<KBox<Inner<T>>> = KBox::try_pin_init(
            try_pin_init!(Inner {
                pmu: Opaque::zeroed(),
                name: name_buf,
                groups,
                driver <- driver,
            }? Error),
            GFP_KERNEL,
        )?;

        let p = inner.pmu.get();
        // SAFETY: `p` is valid and not yet registered, so nothing else reads
        // it. Everything it points to lives in `inner`, which is pinned and
        // outlives the registration (see `Drop`).
        unsafe {
            (*p).module = module.as_ptr().cast();
            (*p).name = inner.name.as_ptr().cast();
            (*p).attr_groups = inner.groups.as_ptr();
            (*p).capabilities = T::CAPABILITIES.bits() as c_int;
            (*p).task_ctx_nr = T::TASK_CONTEXT.raw();
            (*p).event_init = Some(event_init_trampoline::<T>);
            (*p).add = Some(add_trampoline::<T>);
            (*p).del = Some(del_trampoline::<T>);
            (*p).start = Some(start_trampoline::<T>);
            (*p).stop = Some(stop_trampoline::<T>);
            (*p).read = Some(read_trampoline::<T>);
            if T::HAS_SETUP_AUX {
                (*p).setup_aux = Some(setup_aux_trampoline::<T>);
                (*p).free_aux = Some(free_aux_trampoline::<T>);
            }
        }

        // SAFETY: `p` is fully initialised; `name` is NUL-terminated and lives
        // as long as the registration. -1 asks perf for a dynamic type.
        to_result(unsafe { bindings::perf_pmu_register(p, (*p).name, -1) })?;
        // INVARIANT: registration succeeded.
        Ok(Self {
            inner: ManuallyDrop::new(inner),
        })
    }

    /// The driver.
    pub fn driver(&self) -> &T {
        &self.inner.driver
    }

    /// The PMU type perf assigned (`perf_event_attr::type` for its events).
    pub fn pmu_type(&self) -> u32 {
        // SAFETY: `type` is written once by `perf_pmu_register`.
        unsafe { (*self.inner.pmu.get()).type_ as u32 }
    }

    /// Moves all events of this PMU from CPU `from` to CPU `to`
    /// (`perf_pmu_migrate_context`), for uncore PMUs whose designated CPU goes
    /// offline.
    pub fn migrate_context(&self, from: u32, to: u32) {
        // SAFETY: The PMU is registered; perf core takes its own locks.
        unsafe {
            bindings::perf_pmu_migrate_context(self.inner.pmu.get(), from as c_int, to as c_int)
        }
    }
}

impl<T: PmuDriver> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: By the type invariant the PMU is registered. Perf core
        // detaches (and destroys) remaining events before returning.
        let ret = unsafe { bindings::perf_pmu_unregister(self.inner.pmu.get()) };
        if ret != 0 {
            // Perf still references the PMU; freeing it would leave perf with
            // dangling pointers, so the memory is deliberately leaked.
            pr_err!("perf_pmu_unregister failed ({}); leaking the PMU\n", ret);
            return;
        }
        // SAFETY: Unregistered, so perf holds no pointer into `inner`; it is
        // dropped exactly once, here.
        unsafe { ManuallyDrop::drop(&mut self.inner) };
    }
}

/// Converts a raw `perf_event` passed by perf core to an [`Event`].
///
/// # Safety
///
/// `event` must be an event of a PMU registered by `Registration<T>` whose
/// `event_init` succeeded, and must stay valid for `'a`.
unsafe fn event<'a, T: PmuDriver>(event: *mut bindings::perf_event) -> &'a Event<T> {
    // SAFETY: Guaranteed by the caller.
    unsafe { Event::from_raw(event) }
}

/// `pmu::event_init`.
///
/// # Safety
///
/// Called by perf core with an event being initialised for our PMU.
unsafe extern "C" fn event_init_trampoline<T: PmuDriver>(
    event: *mut bindings::perf_event,
) -> c_int {
    from_result(|| {
        // SAFETY: perf core passes a valid event whose `pmu` is ours.
        let (pmu, attr_type) = unsafe { ((*event).pmu, (*event).attr.type_) };
        // SAFETY: `pmu` is the `pmu` field of our live `Inner<T>`.
        let inner = unsafe { &*Inner::<T>::from_pmu(pmu) };
        // SAFETY: `type` is written by `perf_pmu_register`.
        if attr_type != unsafe { (*pmu).type_ } as u32 {
            return Err(ENOENT);
        }
        let mut init = EventInit {
            // SAFETY: perf core passes a non-null event.
            ptr: unsafe { NonNull::new_unchecked(event) },
            _p: PhantomData,
        };
        let ptr = init.ptr;
        let data = inner.driver.event_init(&mut init)?;
        let b = KBox::try_pin_init(
            try_pin_init!(EventBox::<T> {
                timer: Opaque::zeroed(),
                event: ptr,
                data <- data,
            }? Error),
            GFP_KERNEL,
        )?;
        // SAFETY: The box is never moved out of: it is turned back into a
        // `Pin<KBox<_>>` by `destroy_trampoline` and dropped there.
        let b = KBox::into_raw(unsafe { Pin::into_inner_unchecked(b) });
        // SAFETY: `b` is a valid, exclusively owned allocation; the timer is
        // set up before any reference to it escapes. Setting `destroy` and
        // `pmu_private` hands ownership to the event: perf calls `destroy`
        // exactly once, when the event is freed (or if a later check in
        // perf_try_init_event fails).
        unsafe {
            if T::HAS_TIMER {
                bindings::rpmu_hrtimer_setup((*b).timer.get().cast(), Some(timer_trampoline::<T>));
            }
            (*event).pmu_private = b.cast();
            (*event).destroy = Some(destroy_trampoline::<T>);
        }
        Ok(0)
    })
}

/// `perf_event::destroy`, installed by `event_init_trampoline`.
///
/// # Safety
///
/// Called by perf core once, when an event whose `event_init` succeeded is
/// freed, after it left the PMU.
unsafe extern "C" fn destroy_trampoline<T: PmuDriver>(event: *mut bindings::perf_event) {
    // SAFETY: perf core calls `destroy` once, after the event left the PMU
    // (`del` done); `pmu_private` is the box `event_init_trampoline` leaked.
    unsafe {
        let b = (*event).pmu_private.cast::<EventBox<T>>();
        if T::HAS_TIMER {
            bindings::hrtimer_cancel((*b).timer.get());
        }
        let inner = &*Inner::<T>::from_pmu((*event).pmu);
        inner.driver.event_destroy(&(*b).data);
        (*event).pmu_private = core::ptr::null_mut();
        drop(KBox::from_raw(b));
    }
}

/// The per-event hrtimer callback.
///
/// # Safety
///
/// `timer` must be the `timer` field of a live `EventBox<T>`.
unsafe extern "C" fn timer_trampoline<T: PmuDriver>(
    timer: *mut bindings::hrtimer,
) -> bindings::hrtimer_restart {
    // SAFETY: The timer is the first field of a live `EventBox<T>` (it is
    // cancelled before the box is freed), so `container_of` yields the box;
    // its `event` is valid while the box lives.
    let (ev, t) = unsafe {
        let b = kernel::container_of!(
            timer.cast::<Opaque<bindings::hrtimer>>(),
            EventBox<T>,
            timer
        );
        (event::<T>((*b).event.as_ptr()), timer)
    };
    match ev.driver().timer(ev) {
        TimerRestart::Stop => bindings::hrtimer_restart_HRTIMER_NORESTART,
        TimerRestart::After(ns) => {
            // SAFETY: Called from the timer's own callback, as
            // hrtimer_forward_now() requires.
            unsafe { bindings::rpmu_hrtimer_forward_now(t.cast(), ns) };
            bindings::hrtimer_restart_HRTIMER_RESTART
        }
    }
}

/// `pmu::add`.
///
/// # Safety
///
/// Called by perf core for an initialised event of our PMU.
unsafe extern "C" fn add_trampoline<T: PmuDriver>(
    e: *mut bindings::perf_event,
    flags: c_int,
) -> c_int {
    // SAFETY: perf calls `add` only for initialised events of our PMU.
    let ev = unsafe { event::<T>(e) };
    from_result(|| {
        ev.driver().add(ev, Flags::from_raw(flags as u32))?;
        Ok(0)
    })
}

/// `pmu::del`.
///
/// # Safety
///
/// As for `add_trampoline`.
unsafe extern "C" fn del_trampoline<T: PmuDriver>(e: *mut bindings::perf_event, flags: c_int) {
    // SAFETY: As for `add_trampoline`.
    let ev = unsafe { event::<T>(e) };
    ev.driver().del(ev, Flags::from_raw(flags as u32));
}

/// `pmu::start`.
///
/// # Safety
///
/// As for `add_trampoline`.
unsafe extern "C" fn start_trampoline<T: PmuDriver>(e: *mut bindings::perf_event, flags: c_int) {
    // SAFETY: As for `add_trampoline`.
    let ev = unsafe { event::<T>(e) };
    ev.driver().start(ev, Flags::from_raw(flags as u32));
}

/// `pmu::stop`.
///
/// # Safety
///
/// As for `add_trampoline`.
unsafe extern "C" fn stop_trampoline<T: PmuDriver>(e: *mut bindings::perf_event, flags: c_int) {
    // SAFETY: As for `add_trampoline`.
    let ev = unsafe { event::<T>(e) };
    ev.driver().stop(ev, Flags::from_raw(flags as u32));
}

/// `pmu::read`.
///
/// # Safety
///
/// As for `add_trampoline`.
unsafe extern "C" fn read_trampoline<T: PmuDriver>(e: *mut bindings::perf_event) {
    // SAFETY: As for `add_trampoline`.
    let ev = unsafe { event::<T>(e) };
    ev.driver().read(ev);
}

/// `pmu::setup_aux`.
///
/// # Safety
///
/// Called by perf core for an initialised event of our PMU with `nr_pages`
/// page addresses at `pages`.
unsafe extern "C" fn setup_aux_trampoline<T: PmuDriver>(
    e: *mut bindings::perf_event,
    pages: *mut *mut c_void,
    nr_pages: c_int,
    overwrite: bool,
) -> *mut c_void {
    // SAFETY: perf calls `setup_aux` for an initialised event of our PMU,
    // with `nr_pages` page addresses at `pages`.
    unsafe { aux::setup::<T>(event::<T>(e), pages, nr_pages, overwrite) }
}

/// `pmu::free_aux`.
///
/// # Safety
///
/// `priv_` must be what `setup_aux_trampoline` returned, not yet freed.
unsafe extern "C" fn free_aux_trampoline<T: PmuDriver>(priv_: *mut c_void) {
    // SAFETY: `priv_` is what `setup_aux_trampoline` returned; perf frees it once.
    unsafe { aux::free::<T>(priv_) }
}
