// SPDX-License-Identifier: GPL-2.0

//! The firmware description of a device's sub-blocks: child nodes (DT or
//! ACPI) and syscon register maps.
//!
//! C headers: [`include/linux/property.h`](srctree/include/linux/property.h),
//! [`include/linux/mfd/syscon.h`](srctree/include/linux/mfd/syscon.h)
//!
//! The kernel crate's `kernel::device::property` provides properties; this
//! module adds what it does not (as of Linux 7.3): a child node's memory
//! window from `reg`/`_CRS`, its ACPI `_HID`, and syscon lookup.

use crate::rpmu::{bindings, io::MemWindow};
use core::{marker::PhantomData, ptr::NonNull};
use kernel::{
    device::{property::FwNode, Bound, Device},
    error::to_result,
    prelude::*,
    str::CStr,
    sync::aref::ARef,
};

fn fwnode_raw(node: &FwNode) -> *mut bindings::fwnode_handle {
    // CAST: `FwNode` is a `#[repr(transparent)]` wrapper of `struct
    // fwnode_handle` (kernel::device::property), so a reference to it is a
    // valid pointer to the C struct.
    core::ptr::from_ref(node).cast_mut().cast()
}

/// Whether the bound device `dev` is described by a device tree (else by
/// ACPI, or by nothing).
pub fn is_of(dev: &Device<Bound>) -> bool {
    dev.fwnode().is_some_and(|n| {
        // SAFETY: `fwnode_raw` is a valid fwnode for the borrow of `dev`.
        unsafe { bindings::rpmu_fwnode_is_of(fwnode_raw(n)) }
    })
}

/// A firmware child node of a bound device (a DT child node or an ACPI
/// child device), describing one of its sub-blocks.
///
/// Only [`ChildNode::children_of`] makes one, so a register window mapped
/// from it ([`Mmio::of_child`](crate::rpmu::io::Mmio::of_child)) is always
/// one the bound device's own firmware description gives.
///
/// # Invariants
///
/// `node` is a child of the firmware node of a device bound for `'a`.
pub struct ChildNode<'a> {
    node: ARef<FwNode>,
    _dev: PhantomData<&'a Device<Bound>>,
}

impl<'a> ChildNode<'a> {
    /// The child nodes of the bound device `dev` (none if it has no
    /// firmware node).
    pub fn children_of(dev: &'a Device<Bound>) -> impl Iterator<Item = ChildNode<'a>> + 'a {
        dev.fwnode().into_iter().flat_map(|n| {
            // INVARIANT: children of `dev`'s node, `dev` bound for `'a`.
            n.children().map(|node| ChildNode {
                node,
                _dev: PhantomData,
            })
        })
    }

    /// Whether the node is available (DT `status` okay, ACPI device present).
    pub fn is_available(&self) -> bool {
        // SAFETY: `fwnode_raw` is a valid fwnode while `self` holds its
        // reference.
        unsafe { bindings::fwnode_device_is_available(fwnode_raw(&self.node)) }
    }

    /// Whether a DT node has `compat` in its `compatible` list.
    pub fn is_compatible(&self, compat: &CStr) -> bool {
        self.node
            .property_match_string(c"compatible", compat)
            .is_ok()
    }

    /// The ACPI `_HID` of an ACPI device node.
    pub fn acpi_hid(&self) -> Option<&CStr> {
        // SAFETY: `fwnode_raw` is a valid fwnode while `self` holds its
        // reference.
        let hid = unsafe { bindings::rpmu_fwnode_acpi_hid(fwnode_raw(&self.node)) };
        if hid.is_null() {
            return None;
        }
        // SAFETY: `acpi_device_hid` returns a NUL-terminated string owned by
        // the ACPI device, which lives at least as long as `self`'s
        // reference on its fwnode.
        Some(unsafe { CStr::from_char_ptr(hid) })
    }

    /// A `u32` property, if present and well formed.
    pub fn read_u32(&self, name: &CStr) -> Option<u32> {
        self.node.property_read::<u32>(name).optional()
    }

    /// The node's register window: `reg` index 0 (DT) or the first memory
    /// descriptor of `_CRS` (ACPI).
    pub fn mem_window(&self) -> Result<MemWindow> {
        let mut res = bindings::resource::default();
        // SAFETY: `fwnode_raw` is valid while `self` holds its reference;
        // `res` is a writable resource.
        to_result(unsafe { bindings::rpmu_fwnode_mem_resource(fwnode_raw(&self.node), &mut res) })?;
        MemWindow::from_resource(&res).ok_or(EINVAL)
    }

    /// The node, for messages.
    pub fn name(&self) -> impl kernel::fmt::Display + '_ {
        self.node.display_name()
    }
}

fn device_raw(dev: &Device<Bound>) -> *mut bindings::device {
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
    pub fn by_phandle(dev: &Device<Bound>, property: &CStr) -> Result<Self> {
        // SAFETY: `device_raw` is a valid device.
        let np = unsafe { bindings::rpmu_dev_of_node(device_raw(dev)) };
        if np.is_null() {
            return Err(ENODEV);
        }
        // SAFETY: `np` is the device's live DT node; `property` is
        // NUL-terminated.
        let map = unsafe { bindings::rpmu_syscon_by_phandle(np, property.as_char_ptr()) };
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
        to_result(unsafe { bindings::rpmu_regmap_read(self.map.as_ptr(), offset, &mut val) })?;
        Ok(val)
    }
}
