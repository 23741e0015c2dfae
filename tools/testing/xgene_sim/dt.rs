// SPDX-License-Identifier: GPL-2.0

//! What the device tree describes: the `apm,xgene-pmu[-v2]` node, its
//! children, the discovery syscons and the interrupt, every window checked
//! to lie in `no-map` reserved memory and mapped.

use crate::{
    kind::{Kind, Name},
    model::{Child, Model},
    rpmu::bindings as b,
    sim::{ModelPage, Target, MAX_PAGES},
    window::{map_window, Window, PAGE},
};
use core::ptr;
use kernel::{prelude::*, str::CStr};

/// An owned `of_node_get` reference.
struct Node(*mut b::device_node);

impl Drop for Node {
    fn drop(&mut self) {
        // SAFETY: We own one reference (NULL is accepted).
        unsafe { b::xgsim_of_put(self.0) };
    }
}

impl Node {
    fn reg(&self, idx: i32) -> Result<(u64, u64)> {
        let (mut start, mut size) = (0u64, 0u64);
        // SAFETY: `self.0` is a live node.
        let rc = unsafe { b::xgsim_of_reg(self.0, idx, &mut start, &mut size) };
        if rc != 0 {
            return Err(Error::from_errno(rc));
        }
        Ok((start, size))
    }

    fn compatible(&self, c: &CStr) -> bool {
        // SAFETY: `self.0` is a live node; `c` is NUL-terminated.
        unsafe { b::xgsim_of_is_compatible(self.0, c.as_char_ptr()) }
    }

    fn u32(&self, name: &CStr) -> Option<u32> {
        let mut v = 0u32;
        // SAFETY: `self.0` is a live node.
        (unsafe { b::xgsim_of_u32(self.0, name.as_char_ptr(), &mut v) } == 0).then_some(v)
    }

    fn flag(&self, name: &CStr) -> bool {
        // SAFETY: `self.0` is a live node.
        unsafe { b::xgsim_of_bool(self.0, name.as_char_ptr()) }
    }

    fn phandle(&self, name: &CStr) -> Option<Node> {
        // SAFETY: `self.0` is a live node; returns a new reference or NULL.
        let n = unsafe { b::xgsim_of_phandle(self.0, name.as_char_ptr()) };
        (!n.is_null()).then_some(Node(n))
    }

    /// The children (`available` ones only, or all).
    fn children(&self, available: bool) -> Children<'_> {
        Children {
            parent: self,
            prev: ptr::null_mut(),
            available,
        }
    }
}

struct Children<'a> {
    parent: &'a Node,
    prev: *mut b::device_node,
    available: bool,
}

impl Iterator for Children<'_> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        // SAFETY: The iterator functions drop the reference to `prev` and
        // return a new one to the next child, which we hand out with a new
        // reference of its own so `prev` stays owned by the iterator.
        let n = unsafe {
            if self.available {
                b::xgsim_of_next_available_child(self.parent.0, self.prev)
            } else {
                b::xgsim_of_next_child(self.parent.0, self.prev)
            }
        };
        self.prev = n;
        if n.is_null() {
            return None;
        }
        // SAFETY: `n` is live; the extra reference is the item's.
        Some(Node(unsafe { b::xgsim_of_get(n) }))
    }
}

impl Drop for Children<'_> {
    fn drop(&mut self) {
        // SAFETY: The reference the iteration holds (NULL is accepted).
        unsafe { b::xgsim_of_put(self.prev) };
    }
}

/// The `no-map` reserved-memory ranges.
fn reserved_nomap() -> Result<KVec<(u64, u64)>> {
    let mut v = KVec::new();
    // SAFETY: Looks a node up by path; returns a reference or NULL.
    let rm = Node(unsafe { b::xgsim_of_find_path(c"/reserved-memory".as_char_ptr()) });
    if rm.0.is_null() {
        return Ok(v);
    }
    for n in rm.children(true) {
        if n.flag(c"no-map") {
            if let Ok(r) = n.reg(0) {
                v.push(r, GFP_KERNEL)?;
            }
        }
    }
    Ok(v)
}

fn check_reserved(nomap: &[(u64, u64)], what: &str, pa: u64, size: u64) -> Result {
    if nomap
        .iter()
        .any(|&(s, l)| pa >= s && pa.saturating_add(size) <= s.saturating_add(l))
    {
        return Ok(());
    }
    pr_err!(
        "{} window {:#x}+{:#x} is not in a no-map reserved-memory region: it may be real RAM or a real device; refusing\n",
        what,
        pa,
        size
    );
    Err(EINVAL)
}

/// Adds the pages of the window `pa`+`size` to the address map.
pub(crate) fn add_pages(pages: &mut KVec<ModelPage>, pa: u64, size: u64, target: Target) -> Result {
    for p in 0..(size as usize).div_ceil(PAGE) {
        if pages.len() >= MAX_PAGES {
            pr_err!("more than {} register pages; refusing\n", MAX_PAGES);
            return Err(E2BIG);
        }
        pages.push(
            ModelPage {
                pa: pa + (p * PAGE) as u64,
                target,
                offset: p * PAGE,
            },
            GFP_KERNEL,
        )?;
    }
    Ok(())
}

/// Maps the window of a `kind` child with `enable-bit-index` `index` at
/// `pa`+`size` and adds it to the model and the address map.
pub(crate) fn add_child(
    model: &mut Model<Window>,
    pages: &mut KVec<ModelPage>,
    kind: Kind,
    index: u32,
    pa: u64,
    size: u64,
) -> Result {
    let ci = model.children.len();
    model.children.push(
        Child::new(kind, index, pa, map_window(pa, size)?),
        GFP_KERNEL,
    )?;
    add_pages(pages, pa, size, Target::Child(ci))
}

/// The discovery registers, in the order the model knows them by
/// (`Target::Syscon` index): CSW CSWCR, MCB A and MCB B MCBADDRMR.
pub(crate) const SYSCON_NAMES: [&CStr; 3] = [c"csw_cswcr", c"mcba_mcbaddrmr", c"mcbb_mcbaddrmr"];

/// What the firmware describes, mapped.
pub(crate) struct Discovered {
    pub(crate) model: Model<Window>,
    pub(crate) pages: KVec<ModelPage>,
    pub(crate) syscons: KVec<(&'static CStr, Window)>,
    pub(crate) virq: u32,
}

/// Reads the device tree and maps every window.
pub(crate) fn discover() -> Result<Discovered> {
    let mut found = None;
    for (compat, version) in [(c"apm,xgene-pmu-v2", 2u32), (c"apm,xgene-pmu", 1)] {
        // SAFETY: Searches the whole tree; returns a reference or NULL.
        let n = unsafe { b::xgsim_of_find_compatible(ptr::null_mut(), compat.as_char_ptr()) };
        if !n.is_null() {
            found = Some((Node(n), version));
            break;
        }
    }
    let Some((pmu, version)) = found else {
        pr_err!("no apm,xgene-pmu or apm,xgene-pmu-v2 node in the device tree\n");
        return Err(ENODEV);
    };
    let nomap = reserved_nomap()?;
    let (pa, size) = pmu.reg(0).inspect_err(|e| {
        pr_err!("PMU node has no reg: {:?}\n", e);
    })?;
    check_reserved(&nomap, "PCP PMU", pa, size)?;
    let mut pages = KVec::new();
    let mut model = Model::new(version, map_window(pa, size)?)?;
    add_pages(&mut pages, pa, size, Target::Top)?;

    let kinds = [
        (c"apm,xgene-pmu-l3c", Kind::L3c),
        (c"apm,xgene-pmu-iob", Kind::Iob),
        (c"apm,xgene-pmu-mcb", Kind::Mcb),
        (c"apm,xgene-pmu-mc", Kind::Mc),
    ];
    for n in pmu.children(true) {
        let Some(&(_, kind)) = kinds.iter().find(|(c, _)| n.compatible(c)) else {
            continue;
        };
        let index = n.u32(c"enable-bit-index").unwrap_or(0);
        let Ok((cpa, csize)) = n.reg(0) else {
            pr_warn!("{} has no reg; not modelled\n", Name(kind, index));
            continue;
        };
        check_reserved(&nomap, kind.prefix(), cpa, csize)?;
        add_child(&mut model, &mut pages, kind, index, cpa, csize)?;
    }
    if model.children.is_empty() {
        pr_err!("the PMU node has no l3c/iob/mcb/mc children\n");
        return Err(ENODEV);
    }

    // The discovery syscons: plain memory holding reset values; mapped to
    // report them, and their pages known so that reads can be watched.
    let mut syscons = KVec::new();
    for (prop, name) in [c"regmap-csw", c"regmap-mcba", c"regmap-mcbb"]
        .into_iter()
        .zip(SYSCON_NAMES)
    {
        let Some(sn) = pmu.phandle(prop) else {
            pr_warn!("no {} phandle; the drivers will not find it either\n", prop);
            continue;
        };
        let Ok((spa, ssize)) = sn.reg(0) else {
            pr_warn!("{} node has no reg\n", prop);
            continue;
        };
        check_reserved(&nomap, "syscon", spa, ssize)?;
        add_pages(&mut pages, spa, ssize, Target::Syscon(syscons.len()))?;
        syscons.push((name, map_window(spa, ssize)?), GFP_KERNEL)?;
    }

    // SAFETY: `pmu.0` is live; maps (or finds) the Linux IRQ of interrupt 0.
    let virq = unsafe { b::xgsim_irq_of_map(pmu.0) };
    if virq == 0 {
        pr_err!("cannot map the PMU node's interrupt\n");
        return Err(ENODEV);
    }
    Ok(Discovered {
        model,
        pages,
        syscons,
        virq,
    })
}
