// SPDX-License-Identifier: GPL-2.0
// A register window mapped from any firmware node (the syscon a phandle
// points to, say) rather than a child of the bound device.
// EXPECT: error[E0599]: no function or associated item named `new` found for struct `ChildNode<'a>`

use crate::rpmu::{firmware::ChildNode, io::Mmio};
use kernel::{device::property::FwNode, prelude::*};

/// Maps whatever `node` describes.
pub fn misuse(node: &FwNode) -> Result<Mmio> {
    Mmio::of_child(&ChildNode::new(node))
}
