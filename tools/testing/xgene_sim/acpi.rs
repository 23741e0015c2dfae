// SPDX-License-Identifier: GPL-2.0

//! What ACPI describes: the top-level PMU device (`APMC0D5B` X-Gene 1,
//! `APMC0D5C` X-Gene 2, `APMC0D83` X-Gene 3), its children and their
//! `_CRS`/`_DSD`, mapped as the silicon.
//!
//! The layout is the one the upstream driver reads: the top-level `_CRS`
//! holds the PCP CSR window, the CSW window and (X-Gene 1/2) the MCB A and
//! MCB B windows, then the interrupt; each child one window, with an
//! optional `_DSD` `enable-bit-index`.
//!
//! ACPI has no `no-map` reserved memory: the windows must lie in RAM the
//! kernel was told not to use (`mem=`), which the harness names with the
//! `acpi_ram_start`/`acpi_ram_size` parameters; a window outside that range,
//! or overlapping the kernel's System RAM, is refused.

use crate::{
    dt::{add_child, add_pages, Discovered, SYSCON_NAMES},
    kind::{Kind, Name},
    model::Model,
    rpmu::bindings as b,
    sim::Target,
    window::map_window,
};
use core::ptr::NonNull;
use kernel::{prelude::*, str::CStr};

/// Top-level `_HID`s and their versions.
const TOP: [(&CStr, u32); 3] = [(c"APMC0D5B", 1), (c"APMC0D5C", 2), (c"APMC0D83", 3)];

/// Child `_HID`s and their kinds (X-Gene 1/2, then X-Gene 3).
const CHILDREN: [(&str, Kind); 9] = [
    ("APMC0D5D", Kind::L3c),
    ("APMC0D5E", Kind::Iob),
    ("APMC0D5F", Kind::Mcb),
    ("APMC0D60", Kind::Mc),
    ("APMC0D84", Kind::L3c),
    ("APMC0D85", Kind::Iob),
    ("APMC0D86", Kind::IobSlow),
    ("APMC0D87", Kind::Mcb),
    ("APMC0D88", Kind::Mc),
];

/// An owned `acpi_dev_get` reference.
struct Adev(NonNull<b::acpi_device>);

impl Drop for Adev {
    fn drop(&mut self) {
        // SAFETY: We own one reference.
        unsafe { b::xgsim_acpi_put(self.0.as_ptr()) };
    }
}

impl Adev {
    fn find(hid: &CStr) -> Option<Adev> {
        // SAFETY: `hid` is NUL-terminated; returns a reference or NULL.
        NonNull::new(unsafe { b::xgsim_acpi_find(hid.as_char_ptr()) }).map(Adev)
    }

    fn hid(&self) -> &CStr {
        // SAFETY: A live device's `_HID` string (or a static default),
        // valid as long as the device.
        unsafe { CStr::from_char_ptr(b::xgsim_acpi_hid(self.0.as_ptr())) }
    }

    fn child(&self, n: i32) -> Option<Adev> {
        // SAFETY: `self.0` is live; returns a new reference or NULL.
        NonNull::new(unsafe { b::xgsim_acpi_child(self.0.as_ptr(), n) }).map(Adev)
    }

    fn mem(&self, n: i32) -> Result<(u64, u64)> {
        let (mut start, mut size) = (0u64, 0u64);
        // SAFETY: `self.0` is live.
        let rc = unsafe { b::xgsim_acpi_mem(self.0.as_ptr(), n, &mut start, &mut size) };
        if rc != 0 {
            return Err(Error::from_errno(rc));
        }
        Ok((start, size))
    }

    fn u32(&self, name: &CStr) -> Option<u32> {
        let mut v = 0u32;
        // SAFETY: `self.0` is live; `name` is NUL-terminated.
        (unsafe { b::xgsim_acpi_u32(self.0.as_ptr(), name.as_char_ptr(), &mut v) } == 0)
            .then_some(v)
    }
}

/// The RAM the harness set aside for the windows.
#[derive(Clone, Copy)]
pub(crate) struct SetAside {
    pub(crate) start: u64,
    pub(crate) size: u64,
}

impl SetAside {
    fn check(&self, what: &str, pa: u64, size: u64) -> Result {
        let inside =
            pa >= self.start && pa.saturating_add(size) <= self.start.saturating_add(self.size);
        // SAFETY: Only walks the resource tree.
        if inside && unsafe { b::xgsim_not_system_ram(pa, size) } {
            return Ok(());
        }
        pr_err!(
            "{} window {:#x}+{:#x} is not in the RAM set aside (acpi_ram_start {:#x}, acpi_ram_size {:#x}) or overlaps System RAM; refusing\n",
            what,
            pa,
            size,
            self.start,
            self.size
        );
        Err(EINVAL)
    }
}

/// Whether ACPI describes an X-Gene PMU.
pub(crate) fn present() -> bool {
    TOP.iter().any(|(hid, _)| Adev::find(hid).is_some())
}

/// Reads the ACPI namespace and maps every window.
pub(crate) fn discover(ram: SetAside) -> Result<Discovered> {
    let Some((top, version)) = TOP
        .iter()
        .find_map(|&(hid, v)| Adev::find(hid).map(|a| (a, v)))
    else {
        pr_err!("no APMC0D5B/APMC0D5C/APMC0D83 device in the ACPI namespace\n");
        return Err(ENODEV);
    };
    let (pa, size) = top.mem(0).inspect_err(|e| {
        pr_err!("{}: no PCP CSR window in _CRS: {:?}\n", top.hid(), e);
    })?;
    ram.check("PCP PMU", pa, size)?;
    let mut pages = KVec::new();
    let mut model = Model::new(version, map_window(pa, size)?)?;
    add_pages(&mut pages, pa, size, Target::Top)?;

    let mut n = 0;
    while let Some(c) = top.child(n) {
        n += 1;
        let hid = c.hid().to_str().unwrap_or("");
        let Some(&(_, kind)) = CHILDREN.iter().find(|(h, _)| *h == hid) else {
            continue;
        };
        let index = c.u32(c"enable-bit-index").unwrap_or(0);
        let Ok((cpa, csize)) = c.mem(0) else {
            pr_warn!(
                "{} ({}) has no memory window; not modelled\n",
                Name(kind, index),
                hid
            );
            continue;
        };
        ram.check(kind.prefix(), cpa, csize)?;
        add_child(&mut model, &mut pages, kind, index, cpa, csize)?;
    }
    if model.children.is_empty() {
        pr_err!("{} has no PMU children\n", top.hid());
        return Err(ENODEV);
    }

    // Top-level windows 1.. : CSW, and on X-Gene 1/2 MCB A and MCB B.
    let nsys = if version >= 3 { 1 } else { 3 };
    let mut syscons = KVec::new();
    for (i, name) in SYSCON_NAMES.into_iter().enumerate().take(nsys) {
        let Ok((spa, ssize)) = top.mem(i as i32 + 1) else {
            pr_warn!(
                "{}: no _CRS window {} ({}); the drivers will not find it either\n",
                top.hid(),
                i + 1,
                name.to_str().unwrap_or("?")
            );
            break;
        };
        ram.check("discovery", spa, ssize)?;
        add_pages(&mut pages, spa, ssize, Target::Syscon(syscons.len()))?;
        syscons.push((name, map_window(spa, ssize)?), GFP_KERNEL)?;
    }

    // SAFETY: `top.0` is live.
    let virq = unsafe { b::xgsim_acpi_irq(top.0.as_ptr()) };
    if virq <= 0 {
        pr_err!("{}: no interrupt in _CRS ({})\n", top.hid(), virq);
        return Err(ENODEV);
    }
    Ok(Discovered {
        model,
        pages,
        syscons,
        virq: virq as u32,
    })
}
