// SPDX-License-Identifier: GPL-2.0

//! A window of an AUX transaction's granted space ([`AuxOutput::reserve`]),
//! written at offsets, for data checked as it is taken.

use super::{AuxOutput, PmuDriver};
use crate::rpmu::io::SharedWords;

impl<'a, T: PmuDriver> AuxOutput<'a, T> {
    /// Reserves the next `len` bytes of the granted space, for the driver
    /// to fill before it keeps a prefix of them ([`AuxWindow::keep`]); what
    /// it does not keep stays unwritten. This saves a staging copy when data
    /// is checked after it is taken (where it came from, not in the AUX
    /// area, which user space may write).
    /// `None` if `len` exceeds [`Self::space`] or the next byte is not
    /// 8-byte aligned.
    pub fn reserve(&mut self, len: usize) -> Option<AuxWindow<'_, 'a, T>> {
        let size = self.buffer().size;
        // As in `write`: `size` is never zero.
        let start = self.position().checked_rem(size as u64).unwrap_or(0) as usize;
        if len > self.space() || len > size || start % 8 != 0 {
            return None;
        }
        // INVARIANT: `start < size` (a remainder), 8-aligned; `len` is
        // within the free space and the buffer.
        Some(AuxWindow {
            out: self,
            start,
            len,
        })
    }
}

/// Reserved, uncommitted bytes of an AUX transaction ([`AuxOutput::reserve`]),
/// written at 8-byte aligned offsets; the window wraps at the end of the
/// AUX buffer as the data does.
///
/// User space can map the AUX area writable and so change these bytes at
/// any time: the window is write-only, so nothing a driver decides can
/// depend on them.
///
/// # Invariants
///
/// `start < size` and is 8-byte aligned, and `len` exceeds neither `size`
/// nor the transaction's free space, where `size` is the AUX buffer's size.
pub struct AuxWindow<'o, 'a, T: PmuDriver> {
    out: &'o mut AuxOutput<'a, T>,
    start: usize,
    len: usize,
}

impl<T: PmuDriver> AuxWindow<'_, '_, T> {
    /// Where the word at window offset `off` is in the buffer (a byte
    /// offset, 8-byte aligned, at most `size - 8`), if `off` is 8-byte
    /// aligned and the word within the window.
    #[inline]
    fn buf_offset(&self, off: usize) -> Option<usize> {
        if off % 8 != 0 || off.checked_add(8)? > self.len {
            return None;
        }
        let size = self.out.buffer().size;
        // `start + off < 2 * size`: `start < size` and `off < len <= size`,
        // so the sum does not overflow (`None` otherwise), and wraps at most
        // once: `at - size` past the end of the buffer, else `at`.
        let at = self.start.checked_add(off)?;
        Some(at.checked_sub(size).unwrap_or(at))
    }

    /// Writes `words` from byte offset `off` on, wrapping with the buffer;
    /// does nothing unless `off` is 8-byte aligned and all of them are
    /// within the window.
    #[inline]
    pub fn write_words<const N: usize>(&mut self, off: usize, words: &[u64; N]) {
        let Some(at) = self.buf_offset(off) else {
            return;
        };
        // An end past `usize::MAX` is past the window too.
        let end = N.checked_mul(8).and_then(|n| off.checked_add(n));
        if end.is_none_or(|end| end > self.len) {
            return;
        }
        let size = self.out.buffer().size;
        let base = self.out.buffer().base.as_ptr();
        // Words before the end of the buffer (`at < size`: exact).
        let before = size.saturating_sub(at) / 8;
        if before >= N {
            // SAFETY: `at + 8 * N <= size`, within the mapping, and aligned;
            // perf granted this space to the transaction, and user space
            // does not read it before commit.
            unsafe { base.add(at).cast::<[u64; N]>().write(*words) };
            return;
        }
        for (i, w) in words.iter().enumerate() {
            // Word `i` is word `i` from `at` while `i < before`, else word
            // `i - before` from the start of the buffer.
            let (from, k) = match i.checked_sub(before) {
                None => (at, i),
                Some(k) => (0, k),
            };
            // SAFETY: The first `before` words (`from = at`, `k = i`) end at
            // the end of the mapping; the rest (`from = 0`, `k = i - before`)
            // start at its beginning and end before `at` (the window is at
            // most `size` bytes). As above otherwise.
            unsafe { base.add(from).cast::<u64>().add(k).write(*w) };
        }
    }

    /// Copies the `N`-word records of `src` (its whole records, in order)
    /// from byte offset `off` on, wrapping with the buffer, for as long as
    /// `keep` accepts them: it sees each record's index in `src` and its
    /// word `KEY`, loaded as a big-endian value, before the record is
    /// copied. Stops at the first
    /// record refused, after the last one, or at the first one that would
    /// not be all within the window; does nothing unless `off` is 8-byte
    /// aligned and `KEY < N`. Returns how many were copied.
    ///
    /// This copies and checks in one pass what comes from memory another
    /// agent writes (a firmware log), each word loaded once but the key,
    /// where a `memcpy` and a second pass would load every record twice.
    #[inline]
    pub fn copy_records_while<const N: usize, const KEY: usize>(
        &mut self,
        off: usize,
        src: SharedWords<'_>,
        mut keep: impl FnMut(usize, u64) -> bool,
    ) -> usize {
        let Some(bytes) = N.checked_mul(8).filter(|_| KEY < N) else {
            return 0;
        };
        // `N > KEY >= 0`: never `None`.
        let records = src.len().checked_div(N).unwrap_or(0);
        let size = self.out.buffer().size;
        let base = self.out.buffer().base.as_ptr();
        let from = src.as_ptr();
        let mut off = off;
        let mut n: usize = 0;
        while n < records {
            let Some(at) = self.buf_offset(off) else {
                return n;
            };
            // Whole records left in the window, and before the end of the
            // buffer (`off < len`, `at < size`: exact).
            // `bytes > 0` (`N > 0`): never `None`.
            let in_window = self.len.saturating_sub(off).checked_div(bytes).unwrap_or(0);
            let before_end = size.saturating_sub(at).checked_div(bytes).unwrap_or(0);
            // `n < records`: exact.
            let left = records.saturating_sub(n);
            if in_window == 0 {
                return n;
            }
            // Record `n` of `src`, `n < records`: within it.
            let rec = from.wrapping_add(n.wrapping_mul(N));
            if before_end == 0 {
                // A record across the end of the buffer, word by word.
                // SAFETY: Word `KEY < N` of record `n < records`, within
                // `src` (invariant of `SharedWords`), which another agent
                // may write: a volatile load.
                let key = u64::from_be(unsafe { core::ptr::read_volatile(rec.wrapping_add(KEY)) });
                if !keep(n, key) {
                    return n;
                }
                let r: [u64; N] = core::array::from_fn(|w| {
                    // SAFETY: As above, word `w < N`.
                    unsafe { core::ptr::read_volatile(rec.wrapping_add(w)) }
                });
                self.write_words(off, &r);
                n = n.wrapping_add(1);
                off = off.wrapping_add(bytes);
                continue;
            }
            let run = in_window.min(before_end).min(left);
            let dst = base.wrapping_add(at).cast::<u64>();
            for k in 0..run {
                let s = rec.wrapping_add(k.wrapping_mul(N));
                // SAFETY: Word `KEY` of record `n + k < records` (`k < run
                // <= left`), within `src`: a volatile load, as above.
                let key = u64::from_be(unsafe { core::ptr::read_volatile(s.wrapping_add(KEY)) });
                let i = n.wrapping_add(k);
                if !keep(i, key) {
                    return i;
                }
                let d = dst.wrapping_add(k.wrapping_mul(N));
                for w in 0..N {
                    // SAFETY: Word `w < N` of record `n + k` of `src`, as
                    // above; its destination is word `w` of the `k`-th
                    // record from `at`, within the mapping (`k < run <=
                    // before_end`) and the window (`k < in_window`), 8-byte
                    // aligned (`at` is); perf granted this space to the
                    // transaction, and user space does not read it before
                    // commit.
                    unsafe {
                        d.wrapping_add(w)
                            .write(core::ptr::read_volatile(s.wrapping_add(w)));
                    }
                }
            }
            // At most a window of records: neither wraps.
            n = n.wrapping_add(run);
            off = off.wrapping_add(run.wrapping_mul(bytes));
        }
        n
    }

    /// The window's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the window is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keeps the first `n` bytes (at most the window's length) as written
    /// by the transaction; the rest is left free.
    pub fn keep(self, n: usize) {
        // `len` is within the free space (`reserve`), so `written` stays
        // within the space perf granted.
        self.out.add_written(n.min(self.len));
    }
}
