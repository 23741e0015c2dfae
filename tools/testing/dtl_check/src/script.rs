// SPDX-License-Identifier: GPL-2.0

//! `perf script` output: two lines per vpa-dtl sample, as
//! tools/perf/util/powerpc-vpadtl.c prints them.

use crate::gen;

/// perf's names for `dispatch_reason` values.
pub const DISPATCH: [&str; 11] = [
    "external_interrupt",
    "firmware_internal_event",
    "H_PROD",
    "decrementer_interrupt",
    "system_reset",
    "firmware_internal_event",
    "conferred_cycles",
    "time_slice",
    "virtual_memory_page_fault",
    "expropriated_adjunct",
    "priv_doorbell",
];

/// perf's names for `preempt_reason` values.
pub const PREEMPT: [&str; 10] = [
    "unused",
    "firmware_internal_event",
    "H_CEDE",
    "H_CONFER",
    "time_slice",
    "migration_hibernation_page_fault",
    "virtual_memory_page_fault",
    "H_CONFER_ADJUNCT",
    "hcall_adjunct",
    "HDEC_adjunct",
];

/// The entry kind (enable-mask bit) a decoded `preempt_reason` stands for
/// in the simulator's entries.
pub fn kind_of(preempt: &str) -> Option<u8> {
    [gen::KIND_CEDE, gen::KIND_PREEMPT, gen::KIND_FAULT]
        .into_iter()
        .find(|&k| PREEMPT[gen::preempt_reason(k) as usize] == preempt)
}

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
    /// `enqueue_to_dispatch_time`.
    pub enqueue: u32,
    /// `ready_to_enqueue_time`.
    pub ready: u32,
    /// `waiting_to_ready_time`: the simulator's sequence number.
    pub seq: u32,
    /// `processor_id`.
    pub processor_id: u16,
    /// The sample IP (`srr0`).
    pub ip: u64,
}

fn after<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    s.find(key).map(|i| &s[i + key.len()..])
}

fn field(s: &str, key: &str) -> Option<String> {
    let rest = after(s, key)?.trim_start();
    let end = rest.find([',', ' ']).unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

fn num<T: std::str::FromStr>(s: &str, key: &str) -> Option<T> {
    field(s, key)?.parse().ok()
}

/// `sec.frac` as printed by perf (6 digits by default, 9 with `--ns`):
/// nanoseconds and the resolution.
fn parse_time(t: &str) -> Option<(u64, u64)> {
    let (s, frac) = t.split_once('.')?;
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let res = 10u64.pow(9 - frac.len() as u32);
    let ns = s.parse::<u64>().ok()? * 1_000_000_000 + frac.parse::<u64>().ok()? * res;
    Some((ns, res))
}

/// Parses `perf script` output: two lines per vpa-dtl sample.
pub fn parse_script(text: &str) -> Result<Vec<Decoded>, String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if !l.contains("vpa-dtl:") {
            continue;
        }
        let l2 = lines.next().ok_or("truncated sample")?;
        let bad = || format!("cannot parse sample: {l} / {l2}");
        let cpu = after(l, "[")
            .and_then(|r| r.split(']').next())
            .and_then(|c| c.parse().ok())
            .ok_or_else(bad)?;
        let t = l[l.find(']').ok_or_else(bad)? + 1..].trim_start();
        let t = &t[..t.find(':').ok_or_else(bad)?];
        let (time_ns, time_res_ns) = parse_time(t).ok_or_else(bad)?;
        let pid = after(l2, "processor_id:").ok_or_else(bad)?.trim_start();
        let mut words = pid.split_whitespace();
        let processor_id = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
        let ip = words
            .next()
            .and_then(|w| u64::from_str_radix(w, 16).ok())
            .ok_or_else(bad)?;
        out.push(Decoded {
            cpu,
            time_ns,
            time_res_ns,
            timebase: num(l, "timebase:").ok_or_else(bad)?,
            dispatch: field(l, "dispatch_reason:").ok_or_else(bad)?,
            preempt: field(l, "preempt_reason:").ok_or_else(bad)?,
            enqueue: num(l2, "enqueue_to_dispatch_time:").ok_or_else(bad)?,
            ready: num(l2, "ready_to_enqueue_time:").ok_or_else(bad)?,
            seq: num(l2, "waiting_to_ready_time:").ok_or_else(bad)?,
            processor_id,
            ip,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample as perf script prints it without `--ns`.
    pub(crate) const SAMPLE: &str = "         swapper       0 [001]     3.667818:           vpa-dtl: timebase: 9814970217 dispatch_reason:system_reset, preempt_reason:H_CEDE,\nenqueue_to_dispatch_time:4113, ready_to_enqueue_time:2148,waiting_to_ready_time:12, processor_id: 1 c0000000001c389c synchronize_srcu+0x2cc ([kernel.kallsyms])\n";

    #[test]
    fn parses_a_sample() {
        let d = parse_script(SAMPLE).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].cpu, 1);
        assert_eq!((d[0].time_ns, d[0].time_res_ns), (3_667_818_000, 1000));
        assert_eq!(d[0].timebase, 9_814_970_217);
        assert_eq!(d[0].dispatch, "system_reset");
        assert_eq!(d[0].preempt, "H_CEDE");
        assert_eq!(
            (d[0].enqueue, d[0].ready, d[0].seq, d[0].processor_id),
            (4113, 2148, 12, 1)
        );
        assert_eq!(d[0].ip, 0xc000_0000_001c_389c);
    }

    #[test]
    fn parses_ns_timestamps() {
        let s = SAMPLE.replace("3.667818:", "3.667818042:");
        let d = parse_script(&s).unwrap();
        assert_eq!((d[0].time_ns, d[0].time_res_ns), (3_667_818_042, 1));
        assert_eq!(parse_time("12.5"), Some((12_500_000_000, 100_000_000)));
        assert_eq!(parse_time("12."), None);
        assert_eq!(parse_time("12.1234567890"), None);
    }

    #[test]
    fn rejects_a_truncated_sample() {
        assert!(parse_script(SAMPLE.lines().next().unwrap()).is_err());
        assert!(parse_script(&SAMPLE.replace("waiting_to_ready_time", "w")).is_err());
    }

    #[test]
    fn kinds_from_preempt_reasons() {
        assert_eq!(kind_of("H_CEDE"), Some(gen::KIND_CEDE));
        assert_eq!(kind_of("time_slice"), Some(gen::KIND_PREEMPT));
        assert_eq!(kind_of("virtual_memory_page_fault"), Some(gen::KIND_FAULT));
        assert_eq!(kind_of("H_CONFER"), None);
    }
}
