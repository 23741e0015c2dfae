// SPDX-License-Identifier: GPL-2.0

//! SoC facilities for uncore PMU drivers: register windows ([`Mmio`]), the
//! firmware description of sub-blocks ([`ChildNode`], DT or ACPI), syscon
//! register maps ([`Syscon`]) and interrupt handlers ([`IrqRegistration`]).
//!
//! C headers: [`include/linux/io.h`](srctree/include/linux/io.h),
//! [`include/linux/property.h`](srctree/include/linux/property.h),
//! [`include/linux/mfd/syscon.h`](srctree/include/linux/mfd/syscon.h),
//! [`include/linux/interrupt.h`](srctree/include/linux/interrupt.h)
//!
//! Included by a driver crate next to `rust/pmu` (it uses
//! `crate::pmu::bindings`). The kernel's own `kernel::platform` and
//! `kernel::device::property` provide probing and properties; this module adds
//! what they do not (as of Linux 7.3): a window mapped from a child node's
//! `reg`/`_CRS`, the node's ACPI `_HID`, syscon lookup and a boxed IRQ
//! registration that is safe to create.

use crate::pmu::bindings;
use core::{
    ffi::{c_int, c_void},
    marker::PhantomPinned,
    ptr::NonNull,
};
use kernel::{device, device::property::FwNode, error::to_result, prelude::*, str::CStr};

/// A physical memory window (`struct resource` of type `IORESOURCE_MEM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemWindow {
    /// First byte.
    pub start: u64,
    /// Length in bytes.
    pub size: u64,
}

impl MemWindow {
    /// Reads a `struct resource`, if it describes memory.
    fn from_resource(res: &bindings::resource) -> Option<Self> {
        if (res.flags & bindings::IORESOURCE_MEM as usize) == 0 || res.end < res.start {
            return None;
        }
        Some(Self {
            start: res.start,
            size: res.end - res.start + 1,
        })
    }

    /// The memory resource `index` of a platform device (in resource order:
    /// DT `reg` entries, or ACPI `_CRS` memory descriptors).
    pub fn of_platform(pdev: &kernel::platform::Device, index: u32) -> Option<Self> {
        let mut n = 0;
        let mut i = 0;
        while let Some(res) = pdev.resource_by_index(i) {
            let mem = res
                .flags()
                .contains(kernel::io::resource::Flags::IORESOURCE_MEM);
            if mem {
                if n == index {
                    let size = res.size();
                    // `PhysAddr`/`ResourceSize` are 32-bit on some
                    // architectures; the conversion is a no-op on arm64.
                    #[allow(clippy::useless_conversion)]
                    return (size > 0).then(|| Self {
                        start: u64::from(res.start()),
                        size: u64::from(size),
                    });
                }
                n += 1;
            }
            i += 1;
        }
        None
    }
}

/// A mapped register window of 32-bit registers; unmapped on drop.
///
/// Accesses use `readl`/`writel`. An access outside the window or not 4-byte
/// aligned is refused (reads return 0) and reported once per window, so a
/// driver bug cannot reach memory beyond the mapping.
///
/// # Invariants
///
/// `base` is the `ioremap` mapping of `size` bytes, not yet unmapped.
pub struct Mmio {
    base: NonNull<c_void>,
    size: usize,
    window: MemWindow,
    complained: kernel::sync::atomic::Atomic<bool>,
}

// SAFETY: The mapping is not tied to a thread; `readl`/`writel` may be used
// from any context, and concurrent accesses are the device's business.
unsafe impl Send for Mmio {}
// SAFETY: As above; `&Mmio` only allows MMIO accesses.
unsafe impl Sync for Mmio {}

impl Mmio {
    /// Maps `window` (uncached device memory).
    pub fn map(window: MemWindow) -> Result<Self> {
        let size = usize::try_from(window.size).map_err(|_| EINVAL)?;
        if size == 0 {
            return Err(EINVAL);
        }
        // SAFETY: `ioremap` has no preconditions; the caller's window comes
        // from the firmware description of the device.
        let base = unsafe { bindings::rpmu_ioremap(window.start, size) };
        let base = NonNull::new(base).ok_or(ENOMEM)?;
        // INVARIANT: `base` maps `size` bytes.
        Ok(Self {
            base,
            size,
            window,
            complained: kernel::sync::atomic::Atomic::new(false),
        })
    }

    /// The physical window.
    pub fn window(&self) -> MemWindow {
        self.window
    }

    fn addr(&self, offset: usize) -> Option<*mut c_void> {
        if offset % 4 != 0 || offset.checked_add(4).is_none_or(|end| end > self.size) {
            if !self.complained.xchg(true, kernel::sync::atomic::Relaxed) {
                pr_err!(
                    "MMIO access at offset {:#x} outside the {:#x}-byte window at {:#x} refused\n",
                    offset,
                    self.size,
                    self.window.start
                );
            }
            return None;
        }
        // SAFETY: `offset + 4 <= size`, so the result stays in the mapping.
        Some(unsafe { self.base.as_ptr().byte_add(offset) })
    }

    /// Reads the 32-bit register at `offset`.
    pub fn read32(&self, offset: usize) -> u32 {
        match self.addr(offset) {
            // SAFETY: `a` is an aligned address inside the mapping (type
            // invariant and `addr`).
            Some(a) => unsafe { bindings::rpmu_readl(a) },
            None => 0,
        }
    }

    /// Writes the 32-bit register at `offset`.
    pub fn write32(&self, offset: usize, value: u32) {
        if let Some(a) = self.addr(offset) {
            // SAFETY: As for `read32`.
            unsafe { bindings::rpmu_writel(value, a) }
        }
    }
}

impl Drop for Mmio {
    fn drop(&mut self) {
        // SAFETY: By the type invariant `base` is a live `ioremap` mapping;
        // it is unmapped once, here.
        unsafe { bindings::iounmap(self.base.as_ptr()) }
    }
}

fn fwnode_raw(node: &FwNode) -> *mut bindings::fwnode_handle {
    // CAST: `FwNode` is a `#[repr(transparent)]` wrapper of `struct
    // fwnode_handle` (kernel::device::property), so a reference to it is a
    // valid pointer to the C struct.
    core::ptr::from_ref(node).cast_mut().cast()
}

/// What the driver needs to know about a firmware node describing one
/// sub-block of a device (a DT child node or an ACPI child device).
pub struct ChildNode<'a>(&'a FwNode);

impl<'a> ChildNode<'a> {
    /// Wraps `node`.
    pub fn new(node: &'a FwNode) -> Self {
        Self(node)
    }

    /// Whether the node comes from a device tree (else ACPI).
    pub fn is_of(&self) -> bool {
        // SAFETY: `fwnode_raw` is a valid fwnode for `'a`.
        unsafe { bindings::rpmu_fwnode_is_of(fwnode_raw(self.0)) }
    }

    /// Whether the node is available (DT `status` okay, ACPI device present).
    pub fn is_available(&self) -> bool {
        // SAFETY: `fwnode_raw` is a valid fwnode for `'a`.
        unsafe { bindings::fwnode_device_is_available(fwnode_raw(self.0)) }
    }

    /// Whether a DT node has `compat` in its `compatible` list.
    pub fn is_compatible(&self, compat: &CStr) -> bool {
        self.0.property_match_string(c"compatible", compat).is_ok()
    }

    /// The ACPI `_HID` of an ACPI device node.
    pub fn acpi_hid(&self) -> Option<&'a CStr> {
        // SAFETY: `fwnode_raw` is a valid fwnode for `'a`.
        let hid = unsafe { bindings::rpmu_fwnode_acpi_hid(fwnode_raw(self.0)) };
        if hid.is_null() {
            return None;
        }
        // SAFETY: `acpi_device_hid` returns a NUL-terminated string owned by
        // the ACPI device, which lives at least as long as its fwnode
        // reference `'a`.
        Some(unsafe { CStr::from_char_ptr(hid) })
    }

    /// A `u32` property, if present and well formed.
    pub fn read_u32(&self, name: &CStr) -> Option<u32> {
        self.0.property_read::<u32>(name).optional()
    }

    /// The node's register window: `reg` index 0 (DT) or the first memory
    /// descriptor of `_CRS` (ACPI).
    pub fn mem_window(&self) -> Result<MemWindow> {
        let mut res = bindings::resource::default();
        // SAFETY: `fwnode_raw` is valid; `res` is a writable resource.
        to_result(unsafe { bindings::rpmu_fwnode_mem_resource(fwnode_raw(self.0), &mut res) })?;
        MemWindow::from_resource(&res).ok_or(EINVAL)
    }

    /// The node, for messages.
    pub fn name(&self) -> impl kernel::fmt::Display + '_ {
        self.0.display_name()
    }
}

fn device_raw(dev: &device::Device) -> *mut bindings::device {
    // CAST: `kernel::device::Device` is a `#[repr(transparent)]` wrapper of
    // `struct device`.
    core::ptr::from_ref(dev).cast_mut().cast()
}

/// A syscon register map found through a phandle property of a device's DT
/// node (`syscon_regmap_lookup_by_phandle`). The syscon core owns the map for
/// the life of the system, so holding it needs no reference.
///
/// # Invariants
///
/// `map` is a regmap returned by `syscon_regmap_lookup_by_phandle`.
pub struct Syscon {
    map: NonNull<bindings::regmap>,
}

// SAFETY: regmap operations take the map's own lock; the pointer is not tied
// to a thread.
unsafe impl Send for Syscon {}
// SAFETY: As above.
unsafe impl Sync for Syscon {}

impl Syscon {
    /// Looks up the syscon that `dev`'s DT property `property` points to.
    pub fn by_phandle(dev: &device::Device, property: &CStr) -> Result<Self> {
        // SAFETY: `device_raw` is a valid device.
        let np = unsafe { bindings::rpmu_dev_of_node(device_raw(dev)) };
        if np.is_null() {
            return Err(ENODEV);
        }
        // SAFETY: `np` is the device's live DT node; `property` is
        // NUL-terminated.
        let map = unsafe { bindings::syscon_regmap_lookup_by_phandle(np, property.as_char_ptr()) };
        let map = kernel::error::from_err_ptr(map)?;
        // INVARIANT: returned by `syscon_regmap_lookup_by_phandle`.
        Ok(Self {
            map: NonNull::new(map).ok_or(ENODEV)?,
        })
    }

    /// Reads the register at `offset`.
    pub fn read(&self, offset: u32) -> Result<u32> {
        let mut val = 0;
        // SAFETY: By the type invariant `map` is a live regmap.
        to_result(unsafe { bindings::regmap_read(self.map.as_ptr(), offset, &mut val) })?;
        Ok(val)
    }
}

/// What an interrupt handler returns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IrqReturn {
    /// The interrupt was not from this device.
    None,
    /// The interrupt was handled.
    Handled,
}

/// An interrupt handler. Runs in hard interrupt context.
pub trait IrqHandler: Send + Sync + 'static {
    /// Handles interrupt `irq`.
    fn handle(&self, irq: u32) -> IrqReturn;
}

/// `request_irq` flags.
#[derive(Clone, Copy, Debug)]
pub struct IrqFlags(u32);

impl IrqFlags {
    /// No flags.
    pub const NONE: Self = Self(0);
    /// Never balanced across CPUs (`IRQF_NOBALANCING`): the driver chooses
    /// the CPU, as for uncore PMUs.
    pub const NO_BALANCING: Self = Self(bindings::IRQF_NOBALANCING);
    /// Never threaded (`IRQF_NO_THREAD`), even with `threadirqs`.
    pub const NO_THREAD: Self = Self(bindings::IRQF_NO_THREAD);

    /// Both sets of flags.
    pub const fn with(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

/// An interrupt handler registered with `request_irq`; freed on drop.
///
/// It is only handed out pinned in a box: forgetting the box leaks the
/// handler's memory together with the registration, so the cookie the kernel
/// holds never dangles. That is what makes creation safe.
///
/// # Invariants
///
/// `request_irq(irq, trampoline::<T>, .., self)` succeeded and `free_irq` has
/// not been called.
#[pin_data(PinnedDrop)]
pub struct IrqRegistration<T: IrqHandler> {
    irq: u32,
    handler: T,
    #[pin]
    _pin: PhantomPinned,
}

// SAFETY: The handler is `Send + Sync`; the registration itself only holds
// the IRQ number.
unsafe impl<T: IrqHandler> Send for IrqRegistration<T> {}
// SAFETY: As above.
unsafe impl<T: IrqHandler> Sync for IrqRegistration<T> {}

impl<T: IrqHandler> IrqRegistration<T> {
    /// Requests `irq` for `handler`, named `name` in `/proc/interrupts`.
    pub fn new(
        irq: u32,
        flags: IrqFlags,
        name: &'static CStr,
        handler: T,
    ) -> Result<Pin<KBox<Self>>> {
        let irq_num = irq;
        KBox::pin_init(
            try_pin_init!(&this in Self {
                irq,
                handler,
                _pin: PhantomPinned,
                // The last step: if it fails the initialiser fails and, the
                // value never having existed, `PinnedDrop` does not run.
                _: {
                    // SAFETY: `this` is the final, pinned address of the box,
                    // which lives until `PinnedDrop` frees the IRQ (or forever
                    // if leaked); all fields are initialised, so the handler
                    // may run at once; the trampoline matches the cookie's
                    // type; `name` is static.
                    to_result(unsafe {
                        bindings::rpmu_request_irq(
                            irq_num,
                            Some(trampoline::<T>),
                            flags.0 as usize,
                            name.as_char_ptr(),
                            this.as_ptr().cast::<c_void>(),
                        )
                    })?;
                },
            }),
            GFP_KERNEL,
        )
        // INVARIANT: the initialiser only succeeds if `request_irq` did.
    }

    /// The handler.
    pub fn handler(&self) -> &T {
        &self.handler
    }
}

#[pinned_drop]
impl<T: IrqHandler> PinnedDrop for IrqRegistration<T> {
    fn drop(self: Pin<&mut Self>) {
        let cookie = core::ptr::from_ref::<Self>(&self)
            .cast_mut()
            .cast::<c_void>();
        // SAFETY: By the type invariant the IRQ is requested with this
        // cookie; `free_irq` waits for a running handler to finish, so the
        // handler is not running once the memory goes away.
        unsafe { bindings::free_irq(self.irq, cookie) };
    }
}

/// The C interrupt callback.
///
/// # Safety
///
/// `cookie` must be the pinned `IrqRegistration<T>` passed to `request_irq`.
unsafe extern "C" fn trampoline<T: IrqHandler>(
    irq: c_int,
    cookie: *mut c_void,
) -> bindings::irqreturn {
    // SAFETY: Guaranteed by the caller; the registration outlives the
    // handler (see `PinnedDrop`).
    let this = unsafe { &*cookie.cast::<IrqRegistration<T>>() };
    match this.handler.handle(irq as u32) {
        IrqReturn::None => bindings::irqreturn_IRQ_NONE,
        IrqReturn::Handled => bindings::irqreturn_IRQ_HANDLED,
    }
}

/// Routes interrupt `irq` to `cpu` (`irq_set_affinity`). The kernel checks
/// both numbers; a driver uses it for the interrupt it requested.
pub fn set_irq_affinity(irq: u32, cpu: u32) -> Result {
    // SAFETY: No preconditions.
    if cpu >= unsafe { bindings::rpmu_nr_cpu_ids() } {
        return Err(EINVAL);
    }
    // SAFETY: `cpu` is a valid CPU number (so `cpumask_of` stays in its
    // array); `irq_set_affinity` validates the IRQ number.
    to_result(unsafe { bindings::rpmu_irq_set_affinity(irq, cpu) })
}

/// An online CPU other than `cpu`, if any.
pub fn other_online_cpu(cpu: u32) -> Option<u32> {
    // SAFETY: Reads the online mask; no preconditions.
    let other = unsafe { bindings::rpmu_first_online_cpu_except(cpu) };
    // SAFETY: As above.
    (other < unsafe { bindings::rpmu_nr_cpu_ids() }).then_some(other)
}

/// Whether `cpu` is online.
pub fn cpu_online(cpu: u32) -> bool {
    // SAFETY: Reads the online mask; no preconditions.
    unsafe { bindings::rpmu_cpu_online(cpu as c_int) }
}

/// The lowest-numbered online CPU.
pub fn first_online_cpu() -> u32 {
    // SAFETY: Reads the online mask; no preconditions.
    unsafe { bindings::rpmu_first_online_cpu() }
}
