// SPDX-License-Identifier: GPL-2.0

//! sysfs attribute groups of a PMU (`format/`, `events/`, `cpumask`, ...),
//! built from const tables.
//!
//! C header: [`include/linux/sysfs.h`](srctree/include/linux/sysfs.h)
//!
//! A driver describes its groups as a `static` slice of [`AttrGroup`]; the
//! [`Registration`](super::Registration) turns them into the
//! `struct attribute_group` arrays perf hands to sysfs, and owns them for as
//! long as the PMU is registered.
//!
//! ```ignore
//! static GROUPS: [AttrGroup<MyPmu>; 2] = [
//!     AttrGroup::fixed(c"format", &[(c"event", AttrValue::Fixed(c"config:0-7"))]),
//!     AttrGroup::fixed(c"events", &[(c"cycles", AttrValue::Fixed(c"event=0x1"))]),
//! ];
//! ```

use super::{registration::Inner, PmuDriver};
use crate::rpmu::bindings;
use core::{fmt, marker::PhantomData};
use kernel::{prelude::*, types::Opaque};

/// A `show` function for an attribute whose value the driver computes, such
/// as `cpumask`.
pub type ShowFn<T> = fn(&T, &mut SysfsWriter<'_>) -> fmt::Result;

/// An attribute's value.
pub enum AttrValue<T: 'static> {
    /// A constant string, printed followed by a newline.
    Fixed(&'static CStr),
    /// A value computed by the driver when the file is read.
    Show(ShowFn<T>),
}

/// One sysfs attribute group of a PMU.
pub struct AttrGroup<T: 'static> {
    /// Directory name, or `None` for files directly in the PMU's directory.
    pub name: Option<&'static CStr>,
    /// The files, in order.
    pub attrs: &'static [(&'static CStr, AttrValue<T>)],
}

impl<T: 'static> AttrGroup<T> {
    /// A group of constant files, e.g. `format` or `events`.
    pub const fn fixed(
        name: &'static CStr,
        attrs: &'static [(&'static CStr, AttrValue<T>)],
    ) -> Self {
        Self {
            name: Some(name),
            attrs,
        }
    }

    /// Files placed directly in the PMU's directory, e.g. `cpumask`.
    pub const fn top(attrs: &'static [(&'static CStr, AttrValue<T>)]) -> Self {
        Self { name: None, attrs }
    }
}

/// Formats into the `PAGE_SIZE` buffer sysfs passes to `show`; output beyond
/// the buffer is cut off.
pub struct SysfsWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl fmt::Write for SysfsWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let n = s.len().min(self.buf.len().saturating_sub(self.len));
        if let Some(dst) = self.buf.get_mut(self.len..self.len + n) {
            dst.copy_from_slice(&s.as_bytes()[..n]);
            self.len += n;
        }
        if n < s.len() {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }
}

/// One sysfs file.
#[repr(C)]
struct Node<T: PmuDriver> {
    dev_attr: Opaque<bindings::device_attribute>,
    value: &'static AttrValue<T>,
}

/// The attribute groups of a registered PMU, in the layout sysfs expects.
///
/// # Invariants
///
/// `group_ptrs` is NULL-terminated and points into `groups`; each group's
/// `attrs` points at a NULL-terminated run of `attr_ptrs`, which point into
/// `nodes`. None of the vectors is resized after [`Groups::new`].
pub(super) struct Groups<T: PmuDriver> {
    // The three vectors below are only held: sysfs reads them through
    // `group_ptrs`.
    _nodes: KVec<Node<T>>,
    _attr_ptrs: KVec<*mut bindings::attribute>,
    _groups: KVec<bindings::attribute_group>,
    group_ptrs: KVec<*const bindings::attribute_group>,
    _p: PhantomData<T>,
}

impl<T: PmuDriver> Groups<T> {
    /// Builds the C structures for `specs`.
    pub(super) fn new(specs: &'static [AttrGroup<T>]) -> Result<Self> {
        let n_attrs: usize = specs.iter().map(|g| g.attrs.len()).sum();
        let mut nodes = KVec::with_capacity(n_attrs, GFP_KERNEL)?;
        for g in specs {
            for (name, value) in g.attrs {
                let mut da = bindings::device_attribute::default();
                da.attr.name = name.as_char_ptr();
                da.attr.mode = 0o444;
                da.__bindgen_anon_1.show = Some(show_trampoline::<T>);
                nodes.push(
                    Node {
                        dev_attr: Opaque::new(da),
                        value,
                    },
                    GFP_KERNEL,
                )?;
            }
        }
        // Each group's attribute array is NULL-terminated.
        let mut attr_ptrs = KVec::with_capacity(n_attrs + specs.len(), GFP_KERNEL)?;
        let mut groups = KVec::with_capacity(specs.len(), GFP_KERNEL)?;
        let mut i = 0;
        for g in specs {
            let first = attr_ptrs.len();
            for _ in g.attrs {
                let node: &Node<T> = &nodes[i];
                let a = node.dev_attr.get();
                // SAFETY: `a` points into `nodes`, which is not resized after
                // this; lockdep needs a key on dynamically allocated attributes.
                unsafe { bindings::rpmu_sysfs_attr_init(&raw mut (*a).attr) };
                // SAFETY: As above; a pointer to the embedded `attribute`.
                attr_ptrs.push(unsafe { &raw mut (*a).attr }, GFP_KERNEL)?;
                i += 1;
            }
            attr_ptrs.push(core::ptr::null_mut(), GFP_KERNEL)?;
            let grp = bindings::attribute_group {
                name: g.name.map_or(core::ptr::null(), |n| n.as_char_ptr()),
                // The index for now; the address once `attr_ptrs` is final.
                __bindgen_anon_2: bindings::attribute_group__bindgen_ty_2 {
                    attrs: first as *mut *mut bindings::attribute,
                },
                ..Default::default()
            };
            groups.push(grp, GFP_KERNEL)?;
        }
        for grp in groups.iter_mut() {
            // SAFETY: `attrs` holds the index stored above; reading either
            // union member as a pointer-sized value is the same bits.
            let first = unsafe { grp.__bindgen_anon_2.attrs } as usize;
            // SAFETY: `first` is an index into `attr_ptrs`, which has its
            // final capacity (no reallocation happens after this point).
            grp.__bindgen_anon_2.attrs = unsafe { attr_ptrs.as_mut_ptr().add(first) };
        }
        let mut group_ptrs = KVec::with_capacity(groups.len() + 1, GFP_KERNEL)?;
        for grp in groups.iter() {
            group_ptrs.push(core::ptr::from_ref(grp), GFP_KERNEL)?;
        }
        group_ptrs.push(core::ptr::null(), GFP_KERNEL)?;
        // INVARIANT: built above; the vectors are never pushed to again.
        Ok(Self {
            _nodes: nodes,
            _attr_ptrs: attr_ptrs,
            _groups: groups,
            group_ptrs,
            _p: PhantomData,
        })
    }

    /// The NULL-terminated array for `pmu::attr_groups`.
    pub(super) fn as_ptr(&self) -> *mut *const bindings::attribute_group {
        self.group_ptrs.as_ptr().cast_mut()
    }
}

/// sysfs `show` callback of every attribute built here.
///
/// # Safety
///
/// `attr` must be the `dev_attr` of a live `Node<T>`, `buf` a `PAGE_SIZE`
/// buffer, and `dev` the device of the PMU registered with these groups.
unsafe extern "C" fn show_trampoline<T: PmuDriver>(
    dev: *mut bindings::device,
    attr: *mut bindings::device_attribute,
    buf: *mut c_char,
) -> isize {
    // SAFETY: sysfs calls `show` with one of our `device_attribute`s, which is
    // the first field of a `Node<T>` (`repr(C)`), and a `PAGE_SIZE` buffer.
    let node = unsafe { &*attr.cast::<Node<T>>() };
    // SAFETY: As above.
    let page =
        unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), kernel::page::PAGE_SIZE) };
    let mut w = SysfsWriter { buf: page, len: 0 };
    let _ = match node.value {
        AttrValue::Fixed(s) => {
            use fmt::Write;
            w.write_str(s.to_str().unwrap_or(""))
                .and_then(|()| w.write_str("\n"))
        }
        AttrValue::Show(f) => {
            // SAFETY: `dev` is the PMU's device, whose driver data perf core
            // sets to the `struct pmu` (the `pmu` field of our `Inner<T>`);
            // sysfs removes the files before `perf_pmu_unregister` returns,
            // so the `Inner<T>` outlives this call.
            let driver = unsafe {
                let pmu = bindings::rpmu_dev_get_drvdata(dev).cast::<bindings::pmu>();
                &Inner::<T>::from_pmu(pmu).driver
            };
            f(driver, &mut w)
        }
    };
    w.len as isize
}
