// SPDX-License-Identifier: GPL-2.0

//! CPUs: the online mask, and hotplug callbacks ([`hotplug`]).
//!
//! C header: [`include/linux/cpumask.h`](srctree/include/linux/cpumask.h)
//!
//! Every CPU number is a [`CpuId`], whose invariant (below `nr_cpu_ids`) is
//! what lets the C side index its per-CPU arrays with it.

pub mod hotplug;
mod online;

pub use kernel::cpu::CpuId;
pub use online::{first_online, is_online, is_possible, other_online};
