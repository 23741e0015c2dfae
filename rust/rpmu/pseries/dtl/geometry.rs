// SPDX-License-Identifier: GPL-2.0

//! The geometry of a Dispatch Trace Log buffer (PAPR;
//! `arch/powerpc/include/asm/lppaca.h` and `asm/dtl.h`), defined once.
//!
//! Plain constants without kernel types: the `vpa_dtl` driver's `no_std`
//! logic crate includes this file too, so its host tests use the same
//! figures. `pseries::dtl` checks them against the kernel's headers at
//! compile time.

/// Bytes in the kernel's DTL buffers (`DISPATCH_LOG_BYTES`), the size every
/// hypervisor takes.
pub const DTL_BYTES: usize = 4096;
/// Bytes in a large DTL buffer: what KVM takes on a host with 64 KiB pages
/// (a DTL may fill the rest of the host page it starts in).
pub const DTL_LARGE_BYTES: usize = 65536;
/// Size of a DTL entry (`struct dtl_entry`).
pub const DTL_ENTRY_BYTES: usize = 48;
/// 8-byte words in a DTL entry.
pub const DTL_ENTRY_WORDS: usize = DTL_ENTRY_BYTES / 8;
/// Entries in a DTL buffer (`N_DISPATCH_LOG`): the hypervisor writes whole
/// entries and wraps before the 16 bytes left at the end.
pub const DTL_ENTRIES: usize = DTL_BYTES / DTL_ENTRY_BYTES;
/// Entries in a large DTL buffer (1365).
pub const DTL_LARGE_ENTRIES: usize = DTL_LARGE_BYTES / DTL_ENTRY_BYTES;
