// SPDX-License-Identifier: GPL-2.0

//! Kernel-independent logic of the `vpa_dtl` PMU.
//!
//! These modules are `no_std` and free of kernel types: the kernel module
//! includes the same files (`#[path = ...] mod ...`), and `cargo test` runs
//! them on the host, with property tests, before KUnit runs the shared table
//! of cases ([`selftest`]) again inside the guest.

#![no_std]

pub mod aux_plan;
pub mod record;
pub mod ring;
pub mod selftest;
pub mod validate;
