// SPDX-License-Identifier: GPL-2.0

//! What [`super::DtlBuffer`] reports: whose ring it reads, how another DTL
//! user showed up, why registering failed, and where reading starts.

/// Whose ring a [`super::DtlBuffer`] reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// A ring this module allocated and registers.
    Own,
    /// The kernel's accounting ring (native cputime accounting), read
    /// alongside the kernel.
    Shared,
}

/// What a reader found out about another DTL user taking the CPU's log.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Displacement {
    /// The enable mask changed under us: another user is taking the DTL,
    /// and may or may not have registered its buffer yet.
    MaskChanged,
    /// The published index went back or the ring stopped being written:
    /// another buffer is registered in place of ours.
    Reregistered,
}

/// A failed hypervisor call; holds the `H_*` return code.
#[derive(Debug, Clone, Copy)]
pub struct HcallError(pub i64);

/// Why [`super::DtlBuffer::register`] did not register.
#[derive(Debug, Clone, Copy)]
pub enum RegisterError {
    /// Another DTL user (debugfs `dtl`, `vcpudispatch_stats`) has the CPU's
    /// log.
    Busy,
    /// The hypervisor refused.
    Hcall(HcallError),
}

/// Where reading starts after [`super::DtlBuffer::register`].
#[derive(Debug, Clone, Copy)]
pub struct Start {
    /// The published index to read from.
    pub index: u64,
    /// A timebase no later than any entry logged from `index` on.
    pub timebase: u64,
    /// Entries in the ring as registered: the hypervisor writes entry `i`
    /// into slot `i % entries`.
    pub entries: usize,
}

/// The size of the ring a [`super::DtlBuffer`] of [`Mode::Own`] allocates
/// and registers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RingSize {
    /// 4 KiB ([`super::DTL_BYTES`], 85 entries), as the kernel's own
    /// buffers: what every hypervisor takes.
    Standard,
    /// 64 KiB ([`super::DTL_LARGE_BYTES`], 1365 entries), aligned to
    /// 64 KiB. A hypervisor that refuses it (`H_PARAMETER`) gets its first
    /// 4 KiB registered instead.
    Large,
}
