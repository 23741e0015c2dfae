// SPDX-License-Identifier: GPL-2.0

//! `--hypervisor`: a capture of entries a real hypervisor wrote (Linux
//! KVM-HV in the nested setup), which no generator can recompute. The
//! simulator runs with `rate=0`: it writes nothing, and its session lines
//! give, per registration, the index the hypervisor published (`published`),
//! the timebase window and a clock bracket. Checked:
//!
//! - the hypervisor published entries;
//! - with `--dispatch-reason NAME`, every decoded entry has that reason;
//! - per CPU, timebases strictly increase: no entry twice, none out of
//!   order;
//! - every entry lies in a session window of its CPU, and its decoded time
//!   is within [`clock::LIMIT_NS`] of that session's clock;
//! - perf decoded what the driver captured, and published = captured +
//!   reported lost, exactly; with `--shared` (the driver read the kernel's
//!   ring, which the simulator adopted before the event started and
//!   released after it ended) captured + reported lost <= published.
//!
//! - per CPU, where the simulator logged the hypervisor's stolen-time total
//!   (`hv_stolen`): the stolen time of the decoded entries is at most what
//!   the total grew by over the sessions, and equal to it (within the
//!   bracket the reads allow) on a CPU that lost no entry of an own ring.
//!
//! - with `--perf-data FILE`: the lost samples `perf record` wrote into
//!   the file (`PERF_RECORD_LOST_SAMPLES`, per event, so per CPU) add up to
//!   the driver's reported losses, and per CPU published = decoded + lost,
//!   exactly (with `--shared`, at most);
//!
//! - with `--partial-cpus LIST` (the CPUs whose AUX records perf flagged
//!   partial or truncated) and an own ring: a CPU lost entries (published
//!   more than perf decoded) exactly when it is in the list, so no CPU's
//!   loss is silent, whatever the totals say.
//!
//! Prints a line per CPU and a final `published=P captured=C lost=L`.

use crate::clock;
use crate::dmesg::Session;
use crate::script::Decoded;
use crate::Ktap;
use std::collections::{BTreeMap, BTreeSet};

/// What the caller read from the command line.
pub struct Inputs<'a> {
    /// Prefix of every case name.
    pub label: &'a str,
    /// The decoded entries, in `perf script` order.
    pub decoded: &'a [Decoded],
    /// The simulator's sessions.
    pub sessions: &'a [Session],
    /// `--dispatch-reason`.
    pub dispatch: Option<&'a str>,
    /// The driver's captured count.
    pub captured: u64,
    /// The driver's reported losses.
    pub lost: u64,
    /// The timebase frequency.
    pub tb_freq: u64,
    /// `--shared`: the event read within the sessions, not all of them.
    pub shared: bool,
    /// `--partial-cpus`: the CPUs with an AUX record flagged as a loss.
    pub partial_cpus: Option<BTreeSet<u32>>,
    /// `--perf-data`: the lost samples `perf record` wrote, per CPU (-1:
    /// an event whose CPU the file does not give).
    pub lost_per_cpu: Option<BTreeMap<i64, u64>>,
}

/// The session of `d`'s CPU whose window holds its timebase.
fn session_of<'a>(sessions: &'a [Session], d: &Decoded) -> Option<&'a Session> {
    sessions
        .iter()
        .find(|s| s.cpu == d.cpu && s.window.is_some_and(|(a, b)| (a..=b).contains(&d.timebase)))
}

/// The largest timebase step between consecutive decoded entries of `cpu`,
/// and the decoded time of the entry after it.
fn largest_gap(decoded: &[Decoded], cpu: u32) -> (u64, u64) {
    let mut prev: Option<u64> = None;
    let mut best = (0, 0);
    for d in decoded.iter().filter(|d| d.cpu == cpu) {
        if let Some(p) = prev {
            let step = d.timebase.saturating_sub(p);
            if step > best.0 {
                best = (step, d.time_ns);
            }
        }
        prev = Some(d.timebase);
    }
    best
}

/// A run of consecutive decoded entries of one CPU that resume the guest at
/// the same PC. At hundreds a millisecond, the hypervisor entering the vCPU
/// again and again without the guest making progress (an entry storm); at a
/// few, an idle vCPU woken by its decrementer.
#[derive(Default)]
struct Stall {
    entries: u64,
    ticks: u64,
    ip: u64,
}

/// The longest [`Stall`] of `cpu`.
fn longest_stall(decoded: &[Decoded], cpu: u32) -> Stall {
    let mut best = Stall::default();
    let mut cur = Stall::default();
    let mut first_tb = 0;
    for d in decoded.iter().filter(|d| d.cpu == cpu) {
        if cur.entries > 0 && d.ip == cur.ip {
            cur.entries += 1;
            cur.ticks = d.timebase.saturating_sub(first_tb);
        } else {
            cur = Stall {
                entries: 1,
                ticks: 0,
                ip: d.ip,
            };
            first_tb = d.timebase;
        }
        if cur.entries > best.entries {
            best = Stall { ..cur };
        }
    }
    best
}

/// Entries decoded out of order or twice, per CPU.
fn order_problems(decoded: &[Decoded]) -> Vec<String> {
    let mut last: BTreeMap<u32, u64> = BTreeMap::new();
    let mut out = Vec::new();
    for d in decoded {
        if let Some(&prev) = last.get(&d.cpu) {
            if d.timebase <= prev {
                out.push(format!(
                    "cpu {}: timebase {} after {prev}",
                    d.cpu, d.timebase
                ));
            }
        }
        last.insert(d.cpu, d.timebase);
    }
    out
}

/// The stolen time (`enqueue_to_dispatch_time + ready_to_enqueue_time`,
/// timebase ticks) of the decoded entries of `cpu`.
fn decoded_stolen(decoded: &[Decoded], cpu: u32) -> u64 {
    decoded
        .iter()
        .filter(|d| d.cpu == cpu)
        .map(|d| u64::from(d.enqueue) + u64::from(d.ready))
        .sum()
}

/// The bounds on the stolen time of `cpu`'s published entries, summed over
/// its sessions, if every session of it logged them.
fn hv_stolen(sessions: &[Session], cpu: u32) -> Option<(u64, u64)> {
    let mut sum = (0, 0);
    let mut any = false;
    for s in sessions.iter().filter(|s| s.cpu == cpu) {
        let (lo, hi) = s.hv_stolen?;
        sum = (sum.0 + lo, sum.1 + hi);
        any = true;
    }
    any.then_some(sum)
}

/// The stolen-time cases, per CPU (`per_cpu`: published, decoded).
fn check_stolen(k: &mut Ktap, i: &Inputs<'_>, per_cpu: &BTreeMap<u32, (u64, u64)>) {
    let us = |t: u64| t * 1_000_000 / i.tb_freq.max(1);
    for (&cpu, &(p, n)) in per_cpu {
        let Some((lo, hi)) = hv_stolen(i.sessions, cpu) else {
            continue;
        };
        let got = decoded_stolen(i.decoded, cpu);
        let detail = format!(
            "decoded {} us ({got} ticks), the hypervisor's total grew {}..{} us ({lo}..{hi} ticks)",
            us(got),
            us(lo),
            us(hi)
        );
        k.line(&format!("cpu {cpu}: stolen time {detail}"));
        if !i.shared && p == n {
            k.case(
                (lo..=hi).contains(&got),
                &format!(
                    "{}cpu {cpu}: the stolen time decoded is the hypervisor's total (no entry lost)",
                    i.label
                ),
                &detail,
            );
        } else {
            k.case(
                got <= hi,
                &format!(
                    "{}cpu {cpu}: the stolen time decoded is at most the hypervisor's total",
                    i.label
                ),
                &detail,
            );
        }
    }
}

/// The per-CPU identity, from the lost samples `perf record` wrote: on each
/// CPU, published = decoded + lost (at most, with `--shared`), and the
/// lost samples add up to the driver's reported losses.
fn check_lost_per_cpu(
    k: &mut Ktap,
    i: &Inputs<'_>,
    per_cpu: &BTreeMap<u32, (u64, u64)>,
    lost: &BTreeMap<i64, u64>,
) {
    let label = i.label;
    let total: u64 = lost.values().sum();
    k.case(
        total == i.lost,
        &format!("{label}the lost samples perf recorded are the driver's reported losses"),
        &format!("perf.data {total} ({lost:?}), driver {}", i.lost),
    );
    let rel = if i.shared { ">=" } else { "=" };
    let mut bad = Vec::new();
    for (cpu, (p, n)) in per_cpu {
        let l = lost.get(&i64::from(*cpu)).copied().unwrap_or(0);
        k.line(&format!(
            "cpu {cpu}: published {p} {rel} decoded {n} + lost {l}?"
        ));
        let ok = if i.shared { n + l <= *p } else { n + l == *p };
        if !ok {
            bad.push(format!("cpu {cpu}: published {p}, decoded {n}, lost {l}"));
        }
    }
    let elsewhere: Vec<_> = lost
        .keys()
        .filter(|c| u32::try_from(**c).map_or(true, |c| !per_cpu.contains_key(&c)))
        .collect();
    if !elsewhere.is_empty() {
        bad.push(format!(
            "lost samples on CPUs without a session: {elsewhere:?}"
        ));
    }
    k.case(
        bad.is_empty(),
        &format!("{label}per CPU, published {rel} decoded + lost samples in perf.data"),
        &bad.join("; "),
    );
}

/// All the checks.
pub fn check(k: &mut Ktap, i: &Inputs<'_>) {
    let label = i.label;
    let published: u64 = i.sessions.iter().filter_map(|s| s.published).sum();
    k.case(
        published > 0,
        &format!("{label}the hypervisor published entries"),
        "no session line with a published count",
    );
    let mut per_cpu: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for s in i.sessions {
        per_cpu.entry(s.cpu).or_default().0 += s.published.unwrap_or(0);
    }
    for d in i.decoded {
        per_cpu.entry(d.cpu).or_default().1 += 1;
    }
    for (cpu, (p, n)) in &per_cpu {
        let gap = largest_gap(i.decoded, *cpu);
        k.line(&format!(
            "cpu {cpu}: published {p}, decoded {n}, largest gap {} us before {} ns",
            gap.0 * 1_000_000 / i.tb_freq.max(1),
            gap.1
        ));
        let r = longest_stall(i.decoded, *cpu);
        if r.entries > 1 {
            let us = r.ticks * 1_000_000 / i.tb_freq.max(1);
            k.line(&format!(
                "cpu {cpu}: longest run of entries resuming at one guest PC: {} over {us} us ({} a ms), at {:#x}",
                r.entries,
                r.entries * 1000 / us.max(1),
                r.ip
            ));
        }
    }
    if let Some(want) = i.dispatch {
        let other: Vec<String> = i
            .decoded
            .iter()
            .filter(|d| d.dispatch != want)
            .take(3)
            .map(|d| format!("cpu {} timebase {}: {}", d.cpu, d.timebase, d.dispatch))
            .collect();
        k.case(
            other.is_empty(),
            &format!("{label}every decoded entry has dispatch_reason {want}"),
            &other.join("; "),
        );
    }
    let order = order_problems(i.decoded);
    k.case(
        order.is_empty(),
        &format!("{label}entries appear once, in order, per CPU"),
        &order.iter().take(3).cloned().collect::<Vec<_>>().join("; "),
    );
    let outside: Vec<String> = i
        .decoded
        .iter()
        .filter(|d| session_of(i.sessions, d).is_none())
        .take(3)
        .map(|d| format!("cpu {} timebase {}", d.cpu, d.timebase))
        .collect();
    k.case(
        outside.is_empty(),
        &format!("{label}every entry lies in its CPU's registration window"),
        &outside.join("; "),
    );
    let t = clock::check_by(i.decoded, i.tb_freq, |d| session_of(i.sessions, d));
    k.line(&t.summary());
    k.case(
        t.ok() && t.entries == i.decoded.len(),
        &format!(
            "{label}timestamps within {} ns of the guest's clock",
            clock::LIMIT_NS
        ),
        &t.detail(),
    );
    let decoded = i.decoded.len() as u64;
    k.case(
        decoded == i.captured,
        &format!("{label}perf decoded what the driver captured"),
        &format!("perf {decoded}, driver {}", i.captured),
    );
    let (ok, rel) = if i.shared {
        (
            i.captured + i.lost <= published,
            "captured + reported lost <= published",
        )
    } else {
        (
            i.captured + i.lost == published,
            "published = captured + reported lost",
        )
    };
    k.case(
        ok,
        &format!("{label}{rel}"),
        &format!(
            "published {published}, captured {}, lost {}",
            i.captured, i.lost
        ),
    );
    if let (Some(flagged), false) = (&i.partial_cpus, i.shared) {
        let lossy: BTreeSet<u32> = per_cpu
            .iter()
            .filter(|(_, (p, n))| p > n)
            .map(|(c, _)| *c)
            .collect();
        k.case(
            &lossy == flagged,
            &format!("{label}the CPUs that lost entries are the CPUs with AUX records flagged"),
            &format!("lost entries on {lossy:?}, flagged on {flagged:?}"),
        );
    }
    if let Some(lost) = &i.lost_per_cpu {
        check_lost_per_cpu(k, i, &per_cpu, lost);
    }
    check_stolen(k, i, &per_cpu);
    k.line(&format!(
        "published={published} captured={} lost={}",
        i.captured, i.lost
    ));
}
