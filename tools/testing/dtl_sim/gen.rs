// SPDX-License-Identifier: GPL-2.0

//! The simulated hypervisor's entry generator, shared by the simulator
//! module (which writes the entries into DTL buffers) and the checker (which
//! recomputes them to verify, field by field, what perf decoded).
//!
//! Entry number `seq` of CPU `cpu` is a pure function of `(seed, cpu, seq,
//! enable mask)`, except its timebase, which is the real timebase when the
//! entry is written. `seq` counts the entries written for that CPU since the
//! simulator was loaded and is stored in `waiting_to_ready_time` (low 31
//! bits), so the checker knows exactly which entries are missing.
//!
//! `enqueue_to_dispatch_time` and `ready_to_enqueue_time` are the two times
//! the kernel adds up as steal time (native cputime accounting reads the same
//! buffers); each is below [`STEAL_FIELD_LIMIT`] timebase ticks (10 us at
//! QEMU's 512 MHz), so that a simulated run shows realistic steal time.

/// Enable-mask bits: voluntary cede, time-slice preempt, page fault.
pub const KIND_CEDE: u8 = 0x1;
/// Time-slice preempt.
pub const KIND_PREEMPT: u8 = 0x2;
/// Page fault.
pub const KIND_FAULT: u8 = 0x4;

/// Bound (exclusive) of `enqueue_to_dispatch_time` and
/// `ready_to_enqueue_time`, in timebase ticks: 10 us at 512 MHz.
pub const STEAL_FIELD_LIMIT: u32 = 5120;

/// `preempt_reason` values perf's decoder names for each kind.
pub fn preempt_reason(kind: u8) -> u8 {
    match kind {
        KIND_CEDE => 2,    // H_CEDE
        KIND_PREEMPT => 4, // time_slice
        _ => 6,            // virtual_memory_page_fault
    }
}

/// splitmix64: a small, well-mixed hash.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn h(seed: u64, cpu: u32, seq: u64, field: u64) -> u64 {
    mix(mix(mix(seed ^ (u64::from(cpu) << 40)) ^ seq) ^ field)
}

/// The generated fields of one entry (everything but the timebase).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Fields {
    /// Which event kind (one bit of the enable mask).
    pub kind: u8,
    /// `dispatch_reason`, 0..=10.
    pub dispatch_reason: u8,
    /// `preempt_reason`, from the kind.
    pub preempt_reason: u8,
    /// `processor_id`: the CPU's hardware id.
    pub processor_id: u16,
    /// `enqueue_to_dispatch_time`, below [`STEAL_FIELD_LIMIT`].
    pub enqueue_to_dispatch_time: u32,
    /// `ready_to_enqueue_time`, below [`STEAL_FIELD_LIMIT`].
    pub ready_to_enqueue_time: u32,
    /// `waiting_to_ready_time`: the sequence number (low 31 bits; perf
    /// prints it as `%d`).
    pub waiting_to_ready_time: u32,
    /// `fault_addr`: non-zero for page faults only.
    pub fault_addr: u64,
    /// `srr0`: a kernel text address.
    pub srr0: u64,
    /// `srr1`.
    pub srr1: u64,
}

/// Generates entry `seq` of `cpu` for the enable mask `mask` (non-zero).
pub fn fields(seed: u64, cpu: u32, hwcpu: u16, seq: u64, mask: u8) -> Fields {
    // The kind is drawn until it is one the mask enables.
    let mut kind = 0;
    for attempt in 0..64 {
        let k = 1u8 << (h(seed, cpu, seq, 100 + attempt) % 3);
        if mask & k != 0 {
            kind = k;
            break;
        }
    }
    if kind == 0 {
        kind = mask & mask.wrapping_neg();
    }
    Fields {
        kind,
        dispatch_reason: (h(seed, cpu, seq, 1) % 11) as u8,
        preempt_reason: preempt_reason(kind),
        processor_id: hwcpu,
        enqueue_to_dispatch_time: (h(seed, cpu, seq, 3) % u64::from(STEAL_FIELD_LIMIT)) as u32,
        ready_to_enqueue_time: (h(seed, cpu, seq, 2) % u64::from(STEAL_FIELD_LIMIT)) as u32,
        waiting_to_ready_time: seq_field(seq),
        fault_addr: if kind == KIND_FAULT {
            h(seed, cpu, seq, 4) & !0xfff
        } else {
            0
        },
        srr0: 0xc000_0000_0000_0000 | (h(seed, cpu, seq, 5) & 0x00ff_fffc),
        srr1: h(seed, cpu, seq, 6),
    }
}

/// The value stored for sequence number `seq`: its low 31 bits.
pub fn seq_field(seq: u64) -> u32 {
    (seq & 0x7fff_ffff) as u32
}

/// The steal time an entry stands for, in timebase ticks: what the kernel's
/// native accounting adds up, `enqueue_to_dispatch_time +
/// ready_to_enqueue_time`.
pub fn steal_ticks(f: &Fields) -> u64 {
    u64::from(f.enqueue_to_dispatch_time) + u64::from(f.ready_to_enqueue_time)
}

/// The big-endian memory image of an entry with these fields and timebase.
///
/// Written here rather than taken from the driver's `logic/src/record.rs` on
/// purpose: the simulated hardware must not share the driver's idea of the
/// layout, or a mistake in it would pass unnoticed. perf's decoder is the
/// third, independent reading of the same bytes.
pub fn image(f: &Fields, timebase: u64) -> [u8; 48] {
    let mut b = [0u8; 48];
    b[0] = f.dispatch_reason;
    b[1] = f.preempt_reason;
    b[2..4].copy_from_slice(&f.processor_id.to_be_bytes());
    b[4..8].copy_from_slice(&f.enqueue_to_dispatch_time.to_be_bytes());
    b[8..12].copy_from_slice(&f.ready_to_enqueue_time.to_be_bytes());
    b[12..16].copy_from_slice(&f.waiting_to_ready_time.to_be_bytes());
    b[16..24].copy_from_slice(&timebase.to_be_bytes());
    b[24..32].copy_from_slice(&f.fault_addr.to_be_bytes());
    b[32..40].copy_from_slice(&f.srr0.to_be_bytes());
    b[40..48].copy_from_slice(&f.srr1.to_be_bytes());
    b
}
