// SPDX-License-Identifier: GPL-2.0

//! The lost samples `perf record` wrote into a `perf.data` file, per CPU.
//!
//! When it ends, `perf record` reads each event's lost samples
//! (`PERF_FORMAT_LOST`) and writes a `PERF_RECORD_LOST_SAMPLES` for every
//! event that lost any, carrying the event's sample identifier (always
//! present with an AUX event: `PERF_SAMPLE_IDENTIFIER`, the last 8 bytes of
//! the record). Its `PERF_RECORD_ID_INDEX` maps each identifier to the
//! event's CPU. `perf script` and `perf report` only total the records, so
//! the file is read here: the header's data section, then its records.

use std::collections::BTreeMap;

const MAGIC: &[u8; 8] = b"PERFILE2";
const RECORD_LOST_SAMPLES: u32 = 13;
const RECORD_ID_INDEX: u32 = 69;
const RECORD_AUXTRACE: u32 = 71;
/// `PERF_RECORD_MISC_LOST_SAMPLES_BPF`: dropped by a BPF filter, not lost.
const MISC_LOST_SAMPLES_BPF: u16 = 1 << 15;

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// Per CPU, the samples `perf record` found lost (CPU -1: an identifier
/// without a CPU in the index, or no index).
pub fn lost_per_cpu(file: &[u8]) -> Result<BTreeMap<i64, u64>, String> {
    if file.get(..8) != Some(MAGIC) {
        return Err("not a little-endian perf.data file (magic)".into());
    }
    let field = |at| u64_at(file, at).ok_or("short header");
    let start = usize::try_from(field(40)?).map_err(|_| "data offset")?;
    let size = usize::try_from(field(48)?).map_err(|_| "data size")?;
    let data = start
        .checked_add(size)
        .and_then(|end| file.get(start..end))
        .ok_or("data section past the end of the file")?;
    let mut cpu_of: BTreeMap<u64, i64> = BTreeMap::new();
    let mut lost: Vec<(u64, u64)> = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        let rec = |len: usize| {
            data.get(at..at + len)
                .ok_or(format!("record at {at} cut off"))
        };
        let head = rec(8)?;
        let kind = u32::from_le_bytes(head[..4].try_into().unwrap_or_default());
        let misc = u16::from_le_bytes(head[4..6].try_into().unwrap_or_default());
        let len = usize::from(u16::from_le_bytes(
            head[6..8].try_into().unwrap_or_default(),
        ));
        if len < 8 {
            return Err(format!("record at {at}: size {len}"));
        }
        let r = rec(len)?;
        match kind {
            RECORD_ID_INDEX => {
                let nr = u64_at(r, 8).ok_or("short ID_INDEX")?;
                for e in 0..usize::try_from(nr).map_err(|_| "ID_INDEX nr")? {
                    let base = 16 + 32 * e;
                    let (Some(id), Some(cpu)) = (u64_at(r, base), u64_at(r, base + 16)) else {
                        return Err("ID_INDEX entry cut off".into());
                    };
                    cpu_of.insert(id, cpu as i64);
                }
            }
            RECORD_LOST_SAMPLES if misc & MISC_LOST_SAMPLES_BPF == 0 => {
                let n = u64_at(r, 8).ok_or("short LOST_SAMPLES")?;
                let id = u64_at(r, len - 8)
                    .filter(|_| len >= 24)
                    .ok_or("LOST_SAMPLES id")?;
                lost.push((id, n));
            }
            _ => {}
        }
        at += len;
        if kind == RECORD_AUXTRACE {
            // The AUX data follows the record, outside its size.
            let payload = u64_at(r, 8).ok_or("short AUXTRACE")?;
            at = usize::try_from(payload)
                .ok()
                .and_then(|p| at.checked_add(p))
                .ok_or("AUXTRACE size")?;
        }
    }
    let mut per_cpu = BTreeMap::new();
    for (id, n) in lost {
        *per_cpu.entry(*cpu_of.get(&id).unwrap_or(&-1)).or_default() += n;
    }
    Ok(per_cpu)
}
