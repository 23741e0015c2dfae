// SPDX-License-Identifier: GPL-2.0

//! The parser: two lines per vpa-dtl sample, every field checked.

use crate::error::{ParseError, ParseErrorKind};

/// What marks the first line of a vpa-dtl sample (the event name column).
const MARK: &str = "vpa-dtl:";

/// One entry as `perf script` printed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The CPU column.
    pub cpu: u32,
    /// The sample time, in ns, as printed (so truncated to `time_res_ns`).
    pub time_ns: u64,
    /// Resolution of the printed time: 1 ns with `--ns`, 1000 ns without.
    pub time_res_ns: u64,
    /// `timebase`.
    pub timebase: u64,
    /// `dispatch_reason`, by name.
    pub dispatch: String,
    /// `preempt_reason`, by name.
    pub preempt: String,
    /// `enqueue_to_dispatch_time`, in timebase ticks.
    pub enqueue: u32,
    /// `ready_to_enqueue_time`, in timebase ticks.
    pub ready: u32,
    /// `waiting_to_ready_time` (the simulator stores its sequence number
    /// there).
    pub seq: u32,
    /// `processor_id`.
    pub processor_id: u16,
    /// The sample IP (`srr0`).
    pub ip: u64,
}

fn after<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    s.find(key).map(|i| &s[i + key.len()..])
}

fn field<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    let rest = after(s, key)?.trim_start();
    let end = rest.find([',', ' ']).unwrap_or(rest.len());
    Some(&rest[..end]).filter(|v| !v.is_empty())
}

/// A 32-bit field: perf prints the big-endian `u32`s with `%d`, so a value
/// of 2^31 or more comes out negative; it is taken back as the raw `u32`.
fn num32(s: &str, key: &str) -> Option<u32> {
    let v = field(s, key)?;
    v.parse()
        .ok()
        .or_else(|| v.parse::<i32>().ok().map(|n| n as u32))
}

/// `sec.frac` as printed by perf (6 digits by default, 9 with `--ns`):
/// nanoseconds and the resolution (`None` unless 1 to 9 digits follow the
/// point).
pub fn parse_time(t: &str) -> Option<(u64, u64)> {
    let (s, frac) = t.split_once('.')?;
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let res = 10u64.pow(9 - frac.len() as u32);
    let ns = s.parse::<u64>().ok()? * 1_000_000_000 + frac.parse::<u64>().ok()? * res;
    Some((ns, res))
}

/// The `[cpu]` column and the time column after it (`sec.frac:`).
fn cpu_and_time(l: &str) -> (Option<u32>, Option<(u64, u64)>) {
    let mut words = l.split_whitespace();
    let cpu = words.by_ref().find_map(|w| {
        w.strip_prefix('[')?
            .strip_suffix(']')
            .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))?
            .parse()
            .ok()
    });
    let time = cpu
        .and(words.next())
        .and_then(|w| w.strip_suffix(':'))
        .and_then(parse_time);
    (cpu, time)
}

/// One sample from its two lines, `l1` at line `n1` and `l2` at `n1 + 1`.
fn sample(n1: usize, l1: &str, l2: &str) -> Result<Decoded, ParseError> {
    let bad = |line: usize, field: &'static str| ParseError {
        line,
        kind: ParseErrorKind::Garbled {
            field,
            text: if line == n1 { l1 } else { l2 }.to_string(),
        },
    };
    let first = |f: &'static str| bad(n1, f);
    let second = |f: &'static str| bad(n1 + 1, f);
    let (cpu, time) = cpu_and_time(l1);
    let cpu = cpu.ok_or_else(|| first("cpu"))?;
    let (time_ns, time_res_ns) = time.ok_or_else(|| first("time"))?;
    let timebase = field(l1, "timebase:")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| first("timebase"))?;
    let dispatch = field(l1, "dispatch_reason:").ok_or_else(|| first("dispatch_reason"))?;
    let preempt = field(l1, "preempt_reason:").ok_or_else(|| first("preempt_reason"))?;
    let enqueue =
        num32(l2, "enqueue_to_dispatch_time:").ok_or_else(|| second("enqueue_to_dispatch_time"))?;
    let ready =
        num32(l2, "ready_to_enqueue_time:").ok_or_else(|| second("ready_to_enqueue_time"))?;
    let seq = num32(l2, "waiting_to_ready_time:").ok_or_else(|| second("waiting_to_ready_time"))?;
    let mut words = after(l2, "processor_id:")
        .ok_or_else(|| second("processor_id"))?
        .split_whitespace();
    let processor_id = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| second("processor_id"))?;
    let ip = words
        .next()
        .and_then(|w| u64::from_str_radix(w, 16).ok())
        .ok_or_else(|| second("ip"))?;
    Ok(Decoded {
        cpu,
        time_ns,
        time_res_ns,
        timebase,
        dispatch: dispatch.to_string(),
        preempt: preempt.to_string(),
        enqueue,
        ready,
        seq,
        processor_id,
        ip,
    })
}

/// Parses `perf script` output: two lines per vpa-dtl sample; lines of
/// other events are skipped. An error names the (1-based) line: a first
/// line with no second line (end of input, or another sample's first line
/// next), or a field missing or not a number.
pub fn parse_script(text: &str) -> Result<Vec<Decoded>, ParseError> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((i, l1)) = lines.next() {
        if !l1.contains(MARK) {
            continue;
        }
        let l2 = match lines.peek() {
            Some(&(_, l2)) if !l2.contains(MARK) => l2,
            _ => {
                return Err(ParseError {
                    line: i + 1,
                    kind: ParseErrorKind::Truncated,
                })
            }
        };
        lines.next();
        out.push(sample(i + 1, l1, l2)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
