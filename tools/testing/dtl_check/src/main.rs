// SPDX-License-Identifier: GPL-2.0

//! `dtl_check`: verifies a `vpa_dtl` capture end to end.
//!
//! Inputs: the output of stock `perf script` for the capture, the kernel log
//! (for the simulator's `session:` lines: what it injected per CPU), the
//! generator seed, and the driver's loss counters for the run. Every decoded
//! entry must be one the simulator wrote (recomputed field by field from the
//! shared generator), each at most once and in order per CPU, and the
//! identity injected = captured + lost must hold exactly, with the missing
//! sequence numbers accounting for the loss. Prints KTAP case lines and a
//! final `injected=N captured=C lost=L` line.
//!
//! ```text
//! dtl_check --script perf-script.txt --dmesg dmesg.txt --seed 7 \
//!           --lost-overrun 0 --lost-aux 0 --captured 5190
//! ```
//!
//! `--captured auto` takes perf's count, for drivers that keep no counters.

use std::collections::BTreeMap;

// `image` is the simulator's; the checker only recomputes the fields.
#[allow(dead_code)]
#[path = "../../dtl_sim/gen.rs"]
mod gen;

/// perf's names for `dispatch_reason` and `preempt_reason` values
/// (tools/perf/util/powerpc-vpadtl.c).
const DISPATCH: [&str; 11] = [
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
const PREEMPT: [&str; 10] = [
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

/// One entry as `perf script` printed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub cpu: u32,
    pub time_ns: u64,
    pub timebase: u64,
    pub dispatch: String,
    pub preempt: String,
    pub enqueue: u32,
    pub ready: u32,
    pub seq: u32,
    pub processor_id: u16,
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
        let (s, frac) = t.split_once('.').ok_or_else(bad)?;
        let time_ns = s.parse::<u64>().map_err(|_| bad())? * 1_000_000_000
            + format!("{frac:0<9}")[..9]
                .parse::<u64>()
                .map_err(|_| bad())?;
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

/// One registration the simulator served: `cpu`, sequence numbers
/// `first..end`, the enable masks it saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub cpu: u32,
    pub first: u64,
    pub end: u64,
    pub mask: u8,
}

/// Parses `dtl_sim: cpu C session: injected N seq A..B mask M` lines.
pub fn parse_sessions(dmesg: &str) -> Vec<Session> {
    dmesg
        .lines()
        .filter_map(|l| {
            let r = after(l, "dtl_sim: cpu ")?;
            let cpu = r.split_whitespace().next()?.parse().ok()?;
            let r = after(r, " session: injected ")?;
            let seq = after(r, " seq ")?.split_whitespace().next()?;
            let (a, b) = seq.split_once("..")?;
            let mask = after(r, " mask ")?.trim().parse().ok()?;
            Some(Session {
                cpu,
                first: a.parse().ok()?,
                end: b.parse().ok()?,
                mask,
            })
        })
        .collect()
}

struct Ktap {
    n: usize,
    failed: usize,
}

impl Ktap {
    fn case(&mut self, ok: bool, name: &str, detail: &str) {
        self.n += 1;
        println!("{}ok {} {}", if ok { "" } else { "not " }, self.n, name);
        if !ok {
            self.failed += 1;
            println!("# {detail}");
        }
    }
}

fn arg(args: &[String], key: &str) -> Option<String> {
    args.iter()
        .position(|a| a == key)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let need = |k: &str| arg(&args, k).unwrap_or_else(|| panic!("missing {k}"));
    let script = std::fs::read_to_string(need("--script")).expect("read --script");
    let dmesg = std::fs::read_to_string(need("--dmesg")).expect("read --dmesg");
    let seed: u64 = need("--seed").parse().expect("--seed");
    // "auto": the driver does not count (the upstream C reference).
    let captured_arg = need("--captured");
    let lost: u64 = need("--lost-overrun").parse::<u64>().expect("n")
        + need("--lost-aux").parse::<u64>().expect("n");
    let label = arg(&args, "--label").unwrap_or_default();
    let mut k = Ktap { n: 0, failed: 0 };

    let decoded = match parse_script(&script) {
        Ok(d) => d,
        Err(e) => {
            k.case(false, &format!("{label}perf script output parses"), &e);
            std::process::exit(1);
        }
    };
    let sessions = parse_sessions(&dmesg);
    let injected: u64 = sessions.iter().map(|s| s.end - s.first).sum();
    k.case(
        injected > 0,
        &format!("{label}the simulator injected entries"),
        "no session lines",
    );

    // Field by field, against the generator.
    let mut mismatches = Vec::new();
    let mut per_cpu: BTreeMap<u32, Vec<&Decoded>> = BTreeMap::new();
    for d in &decoded {
        per_cpu.entry(d.cpu).or_default().push(d);
        let seq = u64::from(d.seq);
        let Some(s) = sessions
            .iter()
            .find(|s| s.cpu == d.cpu && (s.first..s.end).contains(&seq))
        else {
            mismatches.push(format!("cpu {} seq {}: not injected", d.cpu, seq));
            continue;
        };
        let f = gen::fields(seed, d.cpu, d.processor_id, seq, s.mask);
        let ok = DISPATCH[f.dispatch_reason as usize] == d.dispatch
            && PREEMPT[f.preempt_reason as usize] == d.preempt
            && f.enqueue_to_dispatch_time == d.enqueue
            && f.ready_to_enqueue_time == d.ready
            && f.waiting_to_ready_time == d.seq
            && f.srr0 == d.ip
            && f.kind & s.mask != 0;
        if !ok {
            mismatches.push(format!("cpu {} seq {}: {:?} != {:?}", d.cpu, seq, d, f));
        }
    }
    k.case(
        mismatches.is_empty(),
        &format!("{label}every decoded entry matches the injected one field by field"),
        &mismatches
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("; "),
    );

    // Order and uniqueness per CPU, increasing timebase and timestamps.
    let mut order = Vec::new();
    for (cpu, v) in &per_cpu {
        for w in v.windows(2) {
            if w[1].seq <= w[0].seq || w[1].timebase <= w[0].timebase || w[1].time_ns < w[0].time_ns
            {
                order.push(format!("cpu {cpu}: seq {} then {}", w[0].seq, w[1].seq));
            }
        }
    }
    k.case(
        order.is_empty(),
        &format!("{label}entries appear once, in order, per CPU"),
        &order.iter().take(5).cloned().collect::<Vec<_>>().join("; "),
    );

    let captured = decoded.len() as u64;
    let captured_driver = if captured_arg == "auto" {
        captured
    } else {
        captured_arg.parse().expect("--captured")
    };
    k.case(
        captured == captured_driver,
        &format!("{label}perf decoded what the driver captured"),
        &format!("perf {captured}, driver {captured_driver}"),
    );
    k.case(
        injected == captured + lost,
        &format!("{label}injected = captured + reported lost"),
        &format!("injected {injected}, captured {captured}, lost {lost}"),
    );
    let missing: u64 = sessions
        .iter()
        .map(|s| {
            (s.end - s.first)
                - per_cpu.get(&s.cpu).map_or(0, |v| {
                    v.iter()
                        .filter(|d| (s.first..s.end).contains(&u64::from(d.seq)))
                        .count() as u64
                })
        })
        .sum();
    k.case(
        missing == lost,
        &format!("{label}the missing entries are exactly the reported losses"),
        &format!("missing {missing}, reported {lost}"),
    );
    println!("injected={injected} captured={captured} lost={lost}");
    std::process::exit(i32::from(k.failed > 0));
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "         swapper       0 [001]     3.667818:           vpa-dtl: timebase: 9814970217 dispatch_reason:system_reset, preempt_reason:H_CEDE,\nenqueue_to_dispatch_time:4113, ready_to_enqueue_time:2148,waiting_to_ready_time:12, processor_id: 1 c0000000001c389c synchronize_srcu+0x2cc ([kernel.kallsyms])\n";

    #[test]
    fn parses_a_sample() {
        let d = parse_script(SAMPLE).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].cpu, 1);
        assert_eq!(d[0].time_ns, 3_667_818_000);
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
    fn parses_sessions() {
        let s = parse_sessions(
            "[ 4.7] dtl_sim: cpu 1 session: injected 2586 seq 10..2596 mask 5\nnoise\n",
        );
        assert_eq!(
            s,
            vec![Session {
                cpu: 1,
                first: 10,
                end: 2596,
                mask: 5
            }]
        );
    }

    #[test]
    fn generator_is_stable() {
        // Pins the generator: a change would silently desynchronise the
        // simulator module from a checker built at another commit.
        let f = gen::fields(7, 0, 0, 0, 1);
        assert_eq!(f.kind, gen::KIND_CEDE);
        assert_eq!(f.waiting_to_ready_time, 0);
        assert_eq!(DISPATCH[f.dispatch_reason as usize], "system_reset");
        assert_eq!(f.enqueue_to_dispatch_time, 2912);
        assert_eq!(f.ready_to_enqueue_time, 3172);
        assert_eq!(gen::steal_ticks(&f), 6084);
    }

    #[test]
    fn kinds_follow_the_mask() {
        for seq in 0..500 {
            for mask in 1..8u8 {
                let f = gen::fields(3, 1, 1, seq, mask);
                assert!(f.kind & mask != 0);
                assert_eq!(f.fault_addr != 0, f.kind == gen::KIND_FAULT);
            }
        }
    }
}
