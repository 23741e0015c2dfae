// SPDX-License-Identifier: GPL-2.0

//! CPU hotplug callbacks for PMU drivers: a dynamic multi-instance hotplug
//! state (`CPUHP_AP_ONLINE_DYN`) and instances of it, the way uncore PMUs
//! move their events when their designated CPU goes offline.
//!
//! C header: [`include/linux/cpuhotplug.h`](srctree/include/linux/cpuhotplug.h)

use super::bindings;
use core::marker::PhantomData;
use kernel::{
    error::from_result,
    prelude::*,
    sync::atomic::{Atomic, Relaxed},
    types::Opaque,
};

/// What an instance does when a CPU comes online or goes offline. Both run
/// in process context on the CPU concerned (`CPUHP_AP_ONLINE_DYN`), and may
/// sleep.
pub trait HotplugCallbacks: Send + Sync + 'static {
    /// `cpu` is online (also called for every online CPU when the instance
    /// is added).
    fn online(&self, _cpu: u32) -> Result {
        Ok(())
    }

    /// `cpu` is going offline (also called for every online CPU when the
    /// instance is removed).
    fn offline(&self, _cpu: u32) -> Result {
        Ok(())
    }
}

/// A registered dynamic hotplug state; removed on drop. All its instances
/// must be dropped first.
///
/// # Invariants
///
/// `state` is a state number returned by `cpuhp_setup_state_multi` with the
/// trampolines of `T`, not yet removed.
pub struct HotplugState<T: HotplugCallbacks> {
    state: c_int,
    _p: PhantomData<T>,
}

impl<T: HotplugCallbacks> HotplugState<T> {
    /// Sets up a state named `name` (as shown in `/sys/devices/system/cpu/hotplug/states`).
    pub fn new(name: &'static CStr) -> Result<Self> {
        // SAFETY: `name` is static; the trampolines match the callbacks of
        // a multi-instance state.
        let state = unsafe {
            bindings::rpmu_cpuhp_setup_multi(
                name.as_char_ptr(),
                Some(online_trampoline::<T>),
                Some(offline_trampoline::<T>),
            )
        };
        if state < 0 {
            return Err(Error::from_errno(state));
        }
        // INVARIANT: set up above.
        Ok(Self {
            state,
            _p: PhantomData,
        })
    }
}

impl<T: HotplugCallbacks> Drop for HotplugState<T> {
    fn drop(&mut self) {
        // SAFETY: The state is set up (invariant) and removed once.
        unsafe { bindings::rpmu_cpuhp_remove_multi_state(self.state) };
    }
}

/// One instance of a [`HotplugState`]: its callbacks run for CPU changes
/// while it exists.
///
/// # Invariants
///
/// While `added` is true, `node` is added to state `state`.
#[pin_data(PinnedDrop)]
pub struct HotplugInstance<T: HotplugCallbacks> {
    #[pin]
    node: Opaque<bindings::hlist_node>,
    state: c_int,
    added: Atomic<bool>,
    data: T,
}

impl<T: HotplugCallbacks> HotplugInstance<T> {
    /// Adds an instance with `data` to `state`; `online` runs for every CPU
    /// online now before this returns. Fails with the first error `online`
    /// returned (the instance is then not added).
    pub fn new(state: &HotplugState<T>, data: T) -> Result<Pin<KBox<Self>>> {
        let inst = KBox::pin_init(
            pin_init!(Self {
                node <- Opaque::uninit(),
                state: state.state,
                added: Atomic::new(false),
                data,
            }),
            GFP_KERNEL,
        )?;
        // SAFETY: The node is pinned inside `inst` and stays added until
        // `drop`, which removes it before the memory goes away.
        let rc = unsafe { bindings::rpmu_cpuhp_add_instance(state.state, inst.node.get()) };
        if rc != 0 {
            // Not added, so dropping `inst` removes nothing.
            return Err(Error::from_errno(rc));
        }
        // INVARIANT: added above.
        inst.added.store(true, Relaxed);
        Ok(inst)
    }

    /// The instance's data.
    pub fn data(&self) -> &T {
        &self.data
    }
}

#[pinned_drop]
impl<T: HotplugCallbacks> PinnedDrop for HotplugInstance<T> {
    fn drop(self: Pin<&mut Self>) {
        if !self.added.load(Relaxed) {
            return;
        }
        // SAFETY: Added (invariant); removed once, here.
        unsafe { bindings::rpmu_cpuhp_remove_instance(self.state, self.node.get()) };
    }
}

/// Takes `cpu` offline (`remove_cpu`), running every state's teardown.
pub fn cpu_down(cpu: u32) -> Result {
    // SAFETY: No preconditions; takes the hotplug lock itself.
    kernel::error::to_result(unsafe { bindings::remove_cpu(cpu) })
}

/// Brings `cpu` online (`add_cpu`).
pub fn cpu_up(cpu: u32) -> Result {
    // SAFETY: As for `cpu_down`.
    kernel::error::to_result(unsafe { bindings::add_cpu(cpu) })
}

/// The state's `startup` callback.
///
/// # Safety
///
/// `node` must be the `node` of a live `HotplugInstance<T>`.
unsafe extern "C" fn online_trampoline<T: HotplugCallbacks>(
    cpu: c_uint,
    node: *mut bindings::hlist_node,
) -> c_int {
    // SAFETY: `node` is the first field of a live instance (caller).
    let inst = unsafe {
        &*kernel::container_of!(
            node.cast::<Opaque<bindings::hlist_node>>(),
            HotplugInstance<T>,
            node
        )
    };
    from_result(|| inst.data.online(cpu).map(|()| 0))
}

/// The state's `teardown` callback.
///
/// # Safety
///
/// As for [`online_trampoline`].
unsafe extern "C" fn offline_trampoline<T: HotplugCallbacks>(
    cpu: c_uint,
    node: *mut bindings::hlist_node,
) -> c_int {
    // SAFETY: As above.
    let inst = unsafe {
        &*kernel::container_of!(
            node.cast::<Opaque<bindings::hlist_node>>(),
            HotplugInstance<T>,
            node
        )
    };
    from_result(|| inst.data.offline(cpu).map(|()| 0))
}
