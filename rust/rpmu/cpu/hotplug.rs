// SPDX-License-Identifier: GPL-2.0

//! CPU hotplug callbacks for PMU drivers: a dynamic multi-instance hotplug
//! state (`CPUHP_AP_ONLINE_DYN`) and instances of it, the way uncore PMUs
//! move their events when their designated CPU goes offline.
//!
//! C header: [`include/linux/cpuhotplug.h`](srctree/include/linux/cpuhotplug.h)
//!
//! # Lifetime
//!
//! A state is shared: [`HotplugState::new`] returns an [`Arc`], and every
//! [`HotplugInstance`] holds a reference to its state. The state is removed
//! (`cpuhp_remove_multi_state`) only when the last reference goes, so it can
//! never be removed while one of its instances is still added.

use super::CpuId;
use crate::rpmu::bindings;
use core::marker::PhantomData;
use kernel::{
    error::{from_result, to_result},
    prelude::*,
    sync::Arc,
    types::{NotThreadSafe, Opaque},
};

/// What an instance does when a CPU comes online or goes offline. Both run
/// in process context on the CPU concerned (`CPUHP_AP_ONLINE_DYN`), and may
/// sleep.
pub trait HotplugCallbacks: Send + Sync + 'static {
    /// `cpu` is online (also called for every online CPU when the instance
    /// is added).
    fn online(&self, _cpu: CpuId) -> Result {
        Ok(())
    }

    /// `cx.cpu()` is going offline (also called for every online CPU when
    /// the instance is removed).
    fn offline(&self, _cx: &Offline<'_>) -> Result {
        Ok(())
    }
}

/// The context of [`HotplugCallbacks::offline`]: process context, with the
/// CPU hotplug lock held, while [`Self::cpu`] is still online. What must run
/// there, such as moving perf events off the CPU
/// ([`Registration::migrate_context`](crate::rpmu::perf::Registration::migrate_context)),
/// takes it, so it cannot be called from atomic context or for another CPU.
pub struct Offline<'a> {
    cpu: CpuId,
    _p: PhantomData<&'a ()>,
    _not_send: NotThreadSafe,
}

impl Offline<'_> {
    /// The CPU going offline.
    pub fn cpu(&self) -> CpuId {
        self.cpu
    }
}

/// A registered dynamic hotplug state; removed when the last reference
/// (the owner's or an instance's) goes.
///
/// # Invariants
///
/// `state` is a state number returned by `cpuhp_setup_state_multi` with the
/// callbacks of `T`, not yet removed.
pub struct HotplugState<T: HotplugCallbacks> {
    state: c_int,
    _p: PhantomData<T>,
}

impl<T: HotplugCallbacks> HotplugState<T> {
    /// Sets up a state named `name` (as shown in
    /// `/sys/devices/system/cpu/hotplug/states`).
    pub fn new(name: &'static CStr) -> Result<Arc<Self>> {
        // SAFETY: `name` is static; the callbacks match those of a
        // multi-instance state.
        let state = unsafe {
            bindings::rpmu_cpuhp_setup_multi(
                name.as_char_ptr(),
                Some(online_callback::<T>),
                Some(offline_callback::<T>),
            )
        };
        if state < 0 {
            return Err(Error::from_errno(state));
        }
        // INVARIANT: set up above.
        let this = Self {
            state,
            _p: PhantomData,
        };
        // On failure `this` is dropped, which removes the state again.
        Ok(Arc::new(this, GFP_KERNEL)?)
    }
}

impl<T: HotplugCallbacks> Drop for HotplugState<T> {
    fn drop(&mut self) {
        // SAFETY: The state is set up (invariant) and removed once, here;
        // no instance is left, as each holds a reference to `self`.
        unsafe { bindings::rpmu_cpuhp_remove_multi_state(self.state) };
    }
}

/// One instance of a [`HotplugState`]: its callbacks run for CPU changes
/// while it exists. Removed on drop; holds its state until then.
///
/// # Invariants
///
/// `node` is added to `state`; it is removed in `drop`, before the memory
/// goes and before the reference to `state` is released.
#[pin_data(PinnedDrop)]
pub struct HotplugInstance<T: HotplugCallbacks> {
    #[pin]
    node: Opaque<bindings::hlist_node>,
    state: Arc<HotplugState<T>>,
    data: T,
}

// SAFETY: `node` is written by the CPU hotplug core only, under its own
// lock, between `new` and `drop`; this type reads nothing of it and passes
// only its address. Moving the instance to another thread (it is pinned, so
// only the box moves) leaves that unchanged; `state` and `data` (`T` is
// `Send`) may move.
unsafe impl<T: HotplugCallbacks> Send for HotplugInstance<T> {}

// SAFETY: `&HotplugInstance` gives access to `data` only (`T` is `Sync`),
// never to `node`.
unsafe impl<T: HotplugCallbacks> Sync for HotplugInstance<T> {}

impl<T: HotplugCallbacks> HotplugInstance<T> {
    /// Adds an instance with `data` to `state`; `online` runs for every CPU
    /// online now before this returns. Fails with the first error `online`
    /// returned (the instance is then not added).
    pub fn new(state: &Arc<HotplugState<T>>, data: T) -> Result<Pin<KBox<Self>>> {
        let state = state.clone();
        let nr = state.state;
        KBox::pin_init(
            try_pin_init!(&this in Self {
                node <- Opaque::uninit(),
                state,
                data,
                // The last step: if it fails, the value never existed and
                // `PinnedDrop` does not run.
                _: {
                    // SAFETY: All fields are initialised, so the callbacks
                    // may run at once; `node` is pinned in the box and stays
                    // added until `PinnedDrop` removes it.
                    to_result(unsafe {
                        bindings::rpmu_cpuhp_add_instance(
                            nr,
                            Opaque::cast_into(&raw const (*this.as_ptr()).node),
                        )
                    })?;
                },
            }? Error),
            GFP_KERNEL,
        )
    }

    /// The instance's data.
    pub fn data(&self) -> &T {
        &self.data
    }
}

#[pinned_drop]
impl<T: HotplugCallbacks> PinnedDrop for HotplugInstance<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: Added (invariant), removed once, here; the state is still
        // alive, as `self.state` is only released after this.
        unsafe { bindings::rpmu_cpuhp_remove_instance(self.state.state, self.node.get()) };
    }
}

/// Finds the instance of a hotplug callback's node.
///
/// # Safety
///
/// `node` must be the `node` of a live `HotplugInstance<T>`.
unsafe fn instance<'a, T: HotplugCallbacks>(
    node: *mut bindings::hlist_node,
) -> &'a HotplugInstance<T> {
    // SAFETY: Guaranteed by the caller.
    unsafe {
        &*kernel::container_of!(
            node.cast::<Opaque<bindings::hlist_node>>(),
            HotplugInstance<T>,
            node
        )
    }
}

/// Runs `f` on the instance of `node` for `cpu`, for the C callbacks.
///
/// # Safety
///
/// `node` must be the `node` of a live `HotplugInstance<T>`.
unsafe fn run<T: HotplugCallbacks>(
    cpu: c_uint,
    node: *mut bindings::hlist_node,
    f: fn(&T, CpuId) -> Result,
) -> c_int {
    // SAFETY: Guaranteed by the caller.
    let inst = unsafe { instance::<T>(node) };
    from_result(|| {
        let cpu = CpuId::from_u32(cpu).ok_or(EINVAL)?;
        f(&inst.data, cpu)?;
        Ok(0)
    })
}

fn offline<T: HotplugCallbacks>(data: &T, cpu: CpuId) -> Result {
    // Only `offline_callback` gets here: the teardown callback of a
    // `CPUHP_AP_ONLINE_DYN` state, which the hotplug core runs in process
    // context with the hotplug lock held, before `cpu` goes.
    let cx = Offline {
        cpu,
        _p: PhantomData,
        _not_send: NotThreadSafe,
    };
    data.offline(&cx)
}

/// The state's `startup` callback.
///
/// # Safety
///
/// `node` must be the `node` of a live `HotplugInstance<T>`.
unsafe extern "C" fn online_callback<T: HotplugCallbacks>(
    cpu: c_uint,
    node: *mut bindings::hlist_node,
) -> c_int {
    // SAFETY: Guaranteed by the caller.
    unsafe { run::<T>(cpu, node, T::online) }
}

/// The state's `teardown` callback.
///
/// # Safety
///
/// As for [`online_callback`].
unsafe extern "C" fn offline_callback<T: HotplugCallbacks>(
    cpu: c_uint,
    node: *mut bindings::hlist_node,
) -> c_int {
    // SAFETY: Guaranteed by the caller.
    unsafe { run::<T>(cpu, node, offline::<T>) }
}
