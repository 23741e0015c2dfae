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
//!   reported lost, exactly.
//!
//! Prints a line per CPU and a final `published=P captured=C lost=L`.

use crate::clock;
use crate::dmesg::Session;
use crate::script::Decoded;
use crate::Ktap;
use std::collections::BTreeMap;

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
}

/// The session of `d`'s CPU whose window holds its timebase.
fn session_of<'a>(sessions: &'a [Session], d: &Decoded) -> Option<&'a Session> {
    sessions
        .iter()
        .find(|s| s.cpu == d.cpu && s.window.is_some_and(|(a, b)| (a..=b).contains(&d.timebase)))
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
        k.line(&format!("cpu {cpu}: published {p}, decoded {n}"));
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
    k.case(
        published == i.captured + i.lost,
        &format!("{label}published = captured + reported lost"),
        &format!(
            "published {published}, captured {}, lost {}",
            i.captured, i.lost
        ),
    );
    k.line(&format!(
        "published={published} captured={} lost={}",
        i.captured, i.lost
    ));
}
