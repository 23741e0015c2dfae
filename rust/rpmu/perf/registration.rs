// SPDX-License-Identifier: GPL-2.0

//! Registration of a PMU with perf (`perf_pmu_register`).

use super::{attrs, AttrGroup, PmuDriver};
use crate::rpmu::{bindings, cpu::hotplug::Offline};
use core::{ffi::c_int, mem::ManuallyDrop};
use kernel::{cpu::CpuId, error::to_result, prelude::*, types::Opaque};

/// The registered PMU's storage. Never moves once registered.
///
/// # Invariants
///
/// `pmu` is registered with perf while the [`Registration`] that owns this
/// exists; `name` and the sysfs groups it points to live as long.
#[repr(C)]
#[pin_data]
pub(super) struct Inner<T: PmuDriver> {
    pub(super) pmu: Opaque<bindings::pmu>,
    name: KVec<u8>,
    groups: attrs::Groups<T>,
    #[pin]
    pub(super) driver: T,
}

impl<T: PmuDriver> Inner<T> {
    /// # Safety
    ///
    /// `pmu` must be the `pmu` field of a live `Inner<T>`.
    pub(super) unsafe fn from_pmu<'a>(pmu: *mut bindings::pmu) -> &'a Self {
        // SAFETY: Guaranteed by the caller; `Opaque<T>` has the layout of `T`.
        unsafe { &*kernel::container_of!(pmu.cast::<Opaque<bindings::pmu>>(), Self, pmu) }
    }
}

/// A PMU registered with perf; unregistered on drop.
///
/// The `struct pmu` perf sees is a copy of the constant [`Self::VTABLE`]:
/// the callbacks are associated functions of this type, and only the name,
/// the module and the attribute groups are written at run time.
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
    /// Whether `T` implements the transaction callbacks; a build error if
    /// it implements only some of them (perf needs all three or none).
    const HAS_TXN: bool = {
        assert!(
            T::HAS_START_TXN == T::HAS_COMMIT_TXN && T::HAS_START_TXN == T::HAS_CANCEL_TXN,
            "implement start_txn, commit_txn and cancel_txn together"
        );
        T::HAS_START_TXN
    };

    /// The `struct pmu` of every PMU of driver `T`, before registration.
    pub const VTABLE: bindings::pmu = bindings::pmu {
        capabilities: T::CAPABILITIES.bits() as c_int,
        task_ctx_nr: T::TASK_CONTEXT.raw(),
        event_init: Some(Self::event_init_callback),
        add: Some(Self::add_callback),
        del: Some(Self::del_callback),
        start: Some(Self::start_callback),
        stop: Some(Self::stop_callback),
        read: Some(Self::read_callback),
        check_period: if T::HAS_CHECK_PERIOD {
            Some(Self::check_period_callback)
        } else {
            None
        },
        pmu_enable: if T::HAS_PMU_ENABLE {
            Some(Self::pmu_enable_callback)
        } else {
            None
        },
        pmu_disable: if T::HAS_PMU_DISABLE {
            Some(Self::pmu_disable_callback)
        } else {
            None
        },
        start_txn: if Self::HAS_TXN {
            Some(Self::start_txn_callback)
        } else {
            None
        },
        commit_txn: if Self::HAS_TXN {
            Some(Self::commit_txn_callback)
        } else {
            None
        },
        cancel_txn: if Self::HAS_TXN {
            Some(Self::cancel_txn_callback)
        } else {
            None
        },
        setup_aux: if T::HAS_SETUP_AUX {
            Some(Self::setup_aux_callback)
        } else {
            None
        },
        free_aux: if T::HAS_SETUP_AUX {
            Some(Self::free_aux_callback)
        } else {
            None
        },
        // SAFETY: All-zero is a valid `struct pmu` (NULL pointers and
        // callbacks, zero counts); perf core fills in the rest on
        // registration.
        ..unsafe { core::mem::zeroed() }
    };

    /// Registers `driver` as the PMU `name`, with the sysfs attribute groups
    /// `groups` (for example `format`, `events` and `cpumask`). `module` is
    /// the driver's module: perf holds a reference on it while any event of
    /// the PMU exists, and the AUX areas hold one until they are freed.
    pub fn new(
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
                pmu: Opaque::new(Self::VTABLE),
                name: name_buf,
                groups,
                driver <- driver,
            }? Error),
            GFP_KERNEL,
        )?;

        let p = inner.pmu.get();
        // SAFETY: `p` is valid and not yet registered, so nothing else reads
        // it. What it points to lives in `inner`, which is pinned and
        // outlives the registration (see `Drop`).
        unsafe {
            (*p).module = module.as_ptr().cast();
            (*p).name = inner.name.as_ptr().cast();
            (*p).attr_groups = inner.groups.as_ptr();
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
        // SAFETY: `type` is written once by `perf_pmu_register`, before
        // `self` existed.
        unsafe { (*self.inner.pmu.get()).type_ as u32 }
    }

    /// Moves all events of this PMU from the CPU going offline to CPU `to`
    /// (`perf_pmu_migrate_context`), for uncore PMUs whose designated CPU
    /// goes offline. Does nothing, and returns `false`, if `to` is that CPU
    /// or is not online. Takes the hotplug context: perf takes both CPUs'
    /// context mutexes, so this sleeps.
    pub fn migrate_context(&self, cx: &Offline<'_>, to: CpuId) -> bool {
        let from = cx.cpu();
        // The same CPU: perf would take one mutex twice. An offline one:
        // perf would install the events with a cross-CPU call that fails,
        // leaving them in no context's lists. `cx` holds the hotplug lock,
        // so `to` stays online until this returns.
        if from == to || !crate::rpmu::cpu::is_online(to) {
            return false;
        }
        // SAFETY: The PMU is registered; both CPU numbers are below
        // `nr_cpu_ids` (`CpuId` invariant), so perf core's per-CPU lookups
        // stay in bounds; they differ, `to` is online for the whole call
        // (above), and `cx` shows process context, so taking the two context
        // mutexes neither deadlocks nor sleeps in atomic context.
        unsafe {
            bindings::perf_pmu_migrate_context(self.inner.pmu.get(), i32::from(from), i32::from(to))
        };
        true
    }
}

impl<T: PmuDriver> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: By the type invariant the PMU is registered. Perf core
        // detaches and destroys the remaining events before returning.
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
