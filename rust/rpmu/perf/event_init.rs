// SPDX-License-Identifier: GPL-2.0

//! An event being validated by [`PmuDriver::event_init`](super::PmuDriver::event_init).

use crate::rpmu::bindings;
use core::{
    ffi::{c_int, c_void},
    marker::PhantomData,
    ptr::NonNull,
};
use kernel::{cpu::CpuId, error::to_result, prelude::*};

/// An event being validated by [`PmuDriver::event_init`](super::PmuDriver::event_init).
///
/// # Invariants
///
/// `ptr` points at a `struct perf_event` that perf core is initialising and
/// has not installed yet; it stays valid for `'a`.
pub struct EventInit<'a> {
    ptr: NonNull<bindings::perf_event>,
    _p: PhantomData<&'a mut bindings::perf_event>,
}

impl EventInit<'_> {
    /// # Safety
    ///
    /// `ptr` must satisfy the type invariants for the returned lifetime.
    pub(super) unsafe fn new(ptr: NonNull<bindings::perf_event>) -> Self {
        // INVARIANT: guaranteed by the caller.
        Self {
            ptr,
            _p: PhantomData,
        }
    }

    fn attr(&self) -> &bindings::perf_event_attr {
        // SAFETY: By the type invariant the event is valid; `attr` is not
        // modified while `event_init` runs, except through `&mut self`.
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

    /// The CPU the event is bound to, or `None` for a per-task event that may
    /// run on any CPU.
    pub fn cpu(&self) -> Option<CpuId> {
        // SAFETY: By the type invariant the event is valid.
        CpuId::from_i32(unsafe { (*self.ptr.as_ptr()).cpu })
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

    /// Whether any `exclude_*` attribute is set (`event_has_any_exclude_flag()`).
    pub(in crate::rpmu) fn has_exclude(&self) -> bool {
        let a = self.attr();
        a.exclude_idle() != 0
            || a.exclude_user() != 0
            || a.exclude_kernel() != 0
            || a.exclude_hv() != 0
            || a.exclude_guest() != 0
            || a.exclude_host() != 0
    }

    /// Whether the event is inherited by the children of its task
    /// (`attr.inherit`).
    pub(super) fn is_inherited(&self) -> bool {
        self.attr().inherit() != 0
    }

    /// Whether the event asks for a branch stack (`has_branch_stack()`).
    pub fn has_branch_stack(&self) -> bool {
        self.attr().sample_type
            & u64::from(bindings::perf_event_sample_format_PERF_SAMPLE_BRANCH_STACK)
            != 0
    }

    /// Calls `f` for every other event of the group this event is joining:
    /// the group leader (unless it is this event) and its siblings. Stops at
    /// and returns the first error `f` returns. The list is stable:
    /// `perf_try_init_event()` holds the leader's context mutex while
    /// `event_init` runs for a group member of any PMU outside the software
    /// context, and [`TaskContext`](super::TaskContext) offers no other.
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
            let Some(ptr) = NonNull::new(member) else {
                return 0;
            };
            // SAFETY: `member` is live; `pmu` is set for every initialised event.
            let same_pmu = unsafe { (*member).pmu } == ctx.pmu;
            // INVARIANT: `member` is a live event of the group for this call.
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
            bindings::rpmu_visit_group(
                self.ptr.as_ptr(),
                Some(cb),
                core::ptr::from_mut(&mut ctx).cast(),
            )
        })
    }

    /// Moves the event to `cpu`, as uncore PMUs do to count on the one CPU
    /// that owns the device (the CPU in the PMU's `cpumask` file).
    pub fn set_cpu(&mut self, cpu: CpuId) {
        // SAFETY: By the type invariant the event is valid and not installed
        // yet; perf core lets `event_init` choose the CPU of a CPU-wide event
        // and looks the CPU's context up afterwards; `cpu` is below
        // `nr_cpu_ids` (`CpuId` invariant).
        unsafe { (*self.ptr.as_ptr()).cpu = i32::from(cpu) };
    }

    /// Whether the caller may use performance monitoring (`perfmon_capable()`:
    /// `CAP_PERFMON` or `CAP_SYS_ADMIN`).
    pub fn caller_perfmon_capable(&self) -> bool {
        // SAFETY: No preconditions; checks the current task's credentials.
        unsafe { bindings::rpmu_perfmon_capable() }
    }

    /// Turns a frequency-mode event into a fixed period, in the unit the
    /// driver uses (for timer-driven PMUs, nanoseconds): perf then skips its
    /// period-adjustment feedback loop, as the timer rate is fixed.
    pub fn set_fixed_period(&mut self, period: u64) {
        // SAFETY: By the type invariant the event is valid and not installed
        // yet, so perf core lets `event_init` rewrite the period fields;
        // `&mut self` rules out concurrent readers through `self`.
        unsafe { bindings::rpmu_event_fix_period(self.ptr.as_ptr(), period) }
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
