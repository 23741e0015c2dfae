// SPDX-License-Identifier: GPL-2.0

//! Bit fields of a 32-bit register, as data: `registers!` in [`super::hw`]
//! declares each register's fields as `const`s of [`Bit`] (one bit, read as
//! a `bool`) or [`BitField`] (bits `lo..=hi`, read as a `u32`), in the
//! spirit of `kernel::io::register!`. Their getters and setters never
//! panic: a field past bit 31, or with `lo > hi`, has no bits and reads 0.

/// Bits `lo..=hi` of a 64-bit word; 0 if `lo > hi` or `hi` is past bit 63.
pub const fn mask64(lo: u32, hi: u32) -> u64 {
    if lo > hi {
        return 0;
    }
    // The ones from bit `lo` up, cut above bit `hi`.
    match (u64::MAX.checked_shl(lo), 63u32.checked_sub(hi)) {
        (Some(from_lo), Some(above_hi)) => match u64::MAX.checked_shr(above_hi) {
            Some(to_hi) => from_lo & to_hi,
            None => 0,
        },
        _ => 0,
    }
}

/// One bit of a register.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Bit {
    n: u32,
}

impl Bit {
    /// Bit `n`.
    pub const fn new(n: u32) -> Self {
        Self { n }
    }

    /// The lowest bit of the field: `n`.
    pub const fn lo(self) -> u32 {
        self.n
    }

    /// The highest bit of the field: `n`.
    pub const fn hi(self) -> u32 {
        self.n
    }

    /// The bit in place (0 past bit 31).
    pub const fn mask(self) -> u32 {
        match 1u32.checked_shl(self.n) {
            Some(m) => m,
            None => 0,
        }
    }

    /// Whether the bit is set in `reg`.
    pub const fn get(self, reg: u32) -> bool {
        reg & self.mask() != 0
    }

    /// `reg` with the bit set to `on`.
    pub const fn set(self, reg: u32, on: bool) -> u32 {
        if on {
            reg | self.mask()
        } else {
            reg & !self.mask()
        }
    }
}

/// Bits `lo..=hi` of a register, read and written as a number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BitField {
    lo: u32,
    hi: u32,
}

impl BitField {
    /// Bits `lo..=hi` (inclusive).
    pub const fn new(lo: u32, hi: u32) -> Self {
        Self { lo, hi }
    }

    /// The lowest bit of the field.
    pub const fn lo(self) -> u32 {
        self.lo
    }

    /// The highest bit of the field.
    pub const fn hi(self) -> u32 {
        self.hi
    }

    /// The bits of the field in place (0 for a malformed field).
    pub const fn mask(self) -> u32 {
        if self.hi > 31 {
            return 0;
        }
        // Bits `lo..=hi` of a 64-bit word, all within the low 32.
        mask64(self.lo, self.hi) as u32
    }

    /// The field's value in `reg`.
    pub const fn get(self, reg: u32) -> u32 {
        match (reg & self.mask()).checked_shr(self.lo) {
            Some(v) => v,
            None => 0,
        }
    }

    /// `reg` with the field set to `value`; bits of `value` that do not fit
    /// the field are dropped.
    pub const fn set(self, reg: u32, value: u32) -> u32 {
        let v = match value.checked_shl(self.lo) {
            Some(v) => v,
            None => 0,
        };
        (reg & !self.mask()) | (v & self.mask())
    }
}
