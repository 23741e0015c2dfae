// SPDX-License-Identifier: GPL-2.0

//! The driver's sysfs `format` and `events` tables (`../sysfs.rs`) against
//! the logic's tables they must show.

use crate::{
    block::Child,
    logic::{
        events,
        hw::{PmuType, Version},
    },
    rpmu::perf::AttrValue,
    sysfs::attr_groups,
};
use kernel::prelude::*;

const TYPES: [PmuType; 5] = PmuType::ALL;
const VERSIONS: [Version; 3] = Version::ALL;

fn fixed(v: &AttrValue<Child>) -> Option<&'static CStr> {
    match v {
        AttrValue::Fixed(s) => Some(s),
        AttrValue::Show(_) => None,
    }
}

/// The driver's `format` files are the logic's format table, in order.
pub(crate) fn formats_match() -> bool {
    for t in TYPES {
        for v in VERSIONS {
            let want = events::formats(t, v);
            let Some(groups) = attr_groups(t, v) else {
                if !want.is_empty() {
                    pr_err!("{:?}/{:?}: formats exist but no PMU groups\n", t, v);
                    return false;
                }
                continue;
            };
            let got = groups[0].attrs;
            if got.len() != want.len() {
                pr_err!(
                    "{:?}/{:?}: {} format files, want {}\n",
                    t,
                    v,
                    got.len(),
                    want.len()
                );
                return false;
            }
            for ((name, val), f) in got.iter().zip(want) {
                let same = name.to_str() == Ok(f.name)
                    && fixed(val).and_then(|s| s.to_str().ok()) == Some(f.spec);
                if !same {
                    pr_err!(
                        "{:?}/{:?}: format {:?} differs from {}\n",
                        t,
                        v,
                        name,
                        f.name
                    );
                    return false;
                }
            }
        }
    }
    true
}

/// `config=0x<hex>` (lower case, no padding) into `buf`; returns the length.
fn config_spec(code: u64, buf: &mut [u8; 24]) -> usize {
    let prefix = b"config=0x";
    buf[..prefix.len()].copy_from_slice(prefix);
    let digits = if code == 0 {
        1
    } else {
        (64 - code.leading_zeros() as usize).div_ceil(4)
    };
    for i in 0..digits {
        let nib = ((code >> (4 * (digits - 1 - i))) & 0xf) as u8;
        buf[prefix.len() + i] = if nib < 10 {
            b'0' + nib
        } else {
            b'a' + nib - 10
        };
    }
    prefix.len() + digits
}

/// The generated `events` files are the logic's event table: same names,
/// `config=0x<code>` in the upstream spelling.
pub(crate) fn events_match() -> bool {
    for t in TYPES {
        for v in VERSIONS {
            let Some(groups) = attr_groups(t, v) else {
                continue;
            };
            let got = groups[1].attrs;
            let want = events::events(t, v);
            if got.len() != want.len() || want.is_empty() {
                pr_err!(
                    "{:?}/{:?}: {} event files, want {}\n",
                    t,
                    v,
                    got.len(),
                    want.len()
                );
                return false;
            }
            for ((name, val), e) in got.iter().zip(want) {
                let mut buf = [0u8; 24];
                let n = config_spec(u64::from(e.code), &mut buf);
                let spec = fixed(val).map(|s| s.to_bytes());
                if name.to_str() != Ok(e.name) || spec != Some(&buf[..n]) {
                    pr_err!(
                        "{:?}/{:?}: event {:?} differs from {}\n",
                        t,
                        v,
                        name,
                        e.name
                    );
                    return false;
                }
            }
        }
    }
    true
}
