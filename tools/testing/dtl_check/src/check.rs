// SPDX-License-Identifier: GPL-2.0

//! The checks of decoded entries against the simulator's sessions: field by
//! field, order, kinds, and the accounting of what is missing.

use crate::dmesg::Session;
use crate::gen;
use crate::script::{kind_of, Decoded, DISPATCH, PREEMPT};
use std::collections::{BTreeMap, BTreeSet};

/// Every decoded entry must be one the simulator wrote, recomputed field by
/// field: under `write_mask` if given, else under its session's mask.
pub fn field_mismatches(
    decoded: &[Decoded],
    sessions: &[Session],
    seed: u64,
    write_mask: Option<u8>,
) -> Vec<String> {
    let mut out = Vec::new();
    for d in decoded {
        let seq = u64::from(d.seq);
        let Some(s) = sessions.iter().find(|s| s.holds(d.cpu, seq)) else {
            out.push(format!("cpu {} seq {}: not injected", d.cpu, seq));
            continue;
        };
        let mask = write_mask.unwrap_or(s.mask);
        let f = gen::fields(seed, d.cpu, d.processor_id, seq, mask);
        let ok = DISPATCH[f.dispatch_reason as usize] == d.dispatch
            && PREEMPT[f.preempt_reason as usize] == d.preempt
            && f.enqueue_to_dispatch_time == d.enqueue
            && f.ready_to_enqueue_time == d.ready
            && f.waiting_to_ready_time == d.seq
            && f.srr0 == d.ip
            && f.kind & mask != 0;
        if !ok {
            out.push(format!("cpu {} seq {}: {:?} != {:?}", d.cpu, seq, d, f));
        }
    }
    out
}

/// Decoded entries of a kind outside `keep` (the kinds the event asked for).
pub fn foreign_kinds(decoded: &[Decoded], keep: u8) -> Vec<String> {
    decoded
        .iter()
        .filter(|d| kind_of(&d.preempt).is_none_or(|k| k & keep == 0))
        .map(|d| format!("cpu {} seq {}: {}", d.cpu, d.seq, d.preempt))
        .collect()
}

/// Entries must appear once and in order per CPU, with increasing timebase
/// and non-decreasing timestamps.
pub fn order_problems(decoded: &[Decoded]) -> Vec<String> {
    let mut out = Vec::new();
    for (cpu, v) in per_cpu(decoded) {
        for w in v.windows(2) {
            if w[1].seq <= w[0].seq || w[1].timebase <= w[0].timebase || w[1].time_ns < w[0].time_ns
            {
                out.push(format!("cpu {cpu}: seq {} then {}", w[0].seq, w[1].seq));
            }
        }
    }
    out
}

/// Entries that appear in more than one of several `perf script` outputs.
pub fn duplicates_across(scripts: &[Vec<Decoded>]) -> Vec<String> {
    let mut seen: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, script) in scripts.iter().enumerate() {
        let mine: BTreeSet<(u32, u32)> = script.iter().map(|d| (d.cpu, d.seq)).collect();
        for key in mine {
            if let Some(j) = seen.insert(key, i) {
                out.push(format!(
                    "cpu {} seq {} in scripts {} and {}",
                    key.0,
                    key.1,
                    j + 1,
                    i + 1
                ));
            }
        }
    }
    out
}

fn per_cpu(decoded: &[Decoded]) -> BTreeMap<u32, Vec<&Decoded>> {
    let mut m: BTreeMap<u32, Vec<&Decoded>> = BTreeMap::new();
    for d in decoded {
        m.entry(d.cpu).or_default().push(d);
    }
    m
}

/// What the reader should have seen, and what it did not.
#[derive(Debug, Default, PartialEq)]
pub struct Accounting {
    /// Entries expected: all injected ones, or those of the asked kinds in
    /// the windows.
    pub expected: u64,
    /// Expected entries no script shows.
    pub missing: u64,
    /// Entries in the windows of kinds the event did not ask for.
    pub filtered: u64,
    /// One line per CPU window (window mode only).
    pub windows: Vec<String>,
}

/// Every entry the simulator injected is expected.
pub fn account_all(decoded: &[Decoded], sessions: &[Session]) -> Accounting {
    let seen = per_cpu(decoded);
    let mut a = Accounting::default();
    for s in sessions {
        let got = seen.get(&s.cpu).map_or(0, |v| {
            v.iter()
                .filter(|d| s.holds(s.cpu, u64::from(d.seq)))
                .count() as u64
        });
        a.expected += s.end - s.first;
        a.missing += (s.end - s.first).saturating_sub(got);
    }
    a
}

/// Window mode, for a reader sharing the ring with other readers: per CPU,
/// only the entries from its first to its last decoded sequence number are
/// expected, and of those only the kinds in `keep` (recomputed under
/// `write_mask` if given, else under each session's mask); the others must
/// have been filtered.
pub fn account_window(
    decoded: &[Decoded],
    sessions: &[Session],
    seed: u64,
    write_mask: Option<u8>,
    keep: u8,
) -> Accounting {
    let mut a = Accounting::default();
    for (cpu, v) in per_cpu(decoded) {
        let seqs: BTreeSet<u64> = v.iter().map(|d| u64::from(d.seq)).collect();
        let (Some(&lo), Some(&hi)) = (seqs.first(), seqs.last()) else {
            continue;
        };
        let (mut written, mut kept, mut filtered) = (0, 0, 0);
        for seq in lo..=hi {
            let Some(s) = sessions.iter().find(|s| s.holds(cpu, seq)) else {
                continue;
            };
            written += 1;
            // The kind does not depend on the hardware CPU id.
            let kind = gen::fields(seed, cpu, 0, seq, write_mask.unwrap_or(s.mask)).kind;
            if kind & keep == 0 {
                filtered += 1;
            } else {
                kept += 1;
                if !seqs.contains(&seq) {
                    a.missing += 1;
                }
            }
        }
        a.expected += kept;
        a.filtered += filtered;
        a.windows.push(format!(
            "window: cpu {cpu} seq {lo}..={hi} written {written} expected {kept} filtered {filtered}"
        ));
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: u64 = 5;

    fn session(cpu: u32, first: u64, end: u64, mask: u8) -> Session {
        Session {
            cpu,
            first,
            end,
            mask,
            steal: None,
            published: None,
            window: None,
            hv_stolen: None,
            clock: None,
        }
    }

    /// The entry as perf would decode it, at 1 us per sequence number.
    fn decode(cpu: u32, seq: u64, mask: u8) -> Decoded {
        let f = gen::fields(SEED, cpu, cpu as u16, seq, mask);
        Decoded {
            cpu,
            time_ns: 1000 * seq,
            time_res_ns: 1000,
            timebase: 512 * seq + 1,
            dispatch: DISPATCH[f.dispatch_reason as usize].into(),
            preempt: PREEMPT[f.preempt_reason as usize].into(),
            enqueue: f.enqueue_to_dispatch_time,
            ready: f.ready_to_enqueue_time,
            seq: f.waiting_to_ready_time,
            processor_id: cpu as u16,
            ip: f.srr0,
        }
    }

    #[test]
    fn fields_match_under_the_session_or_the_given_mask() {
        let sessions = [session(0, 0, 100, 3)];
        let d: Vec<_> = (0..100).map(|s| decode(0, s, 3)).collect();
        assert!(field_mismatches(&d, &sessions, SEED, None).is_empty());
        // Recomputed under another mask, some kinds differ.
        assert!(!field_mismatches(&d, &sessions, SEED, Some(4)).is_empty());
        let mut bad = decode(0, 7, 3);
        bad.enqueue += 1;
        assert_eq!(field_mismatches(&[bad], &sessions, SEED, None).len(), 1);
        let stray = decode(1, 7, 3);
        assert_eq!(
            field_mismatches(&[stray], &sessions, SEED, None),
            vec!["cpu 1 seq 7: not injected".to_string()]
        );
    }

    #[test]
    fn order_and_duplicates() {
        let a: Vec<_> = (0..5).map(|s| decode(0, s, 1)).collect();
        let b: Vec<_> = (5..9).map(|s| decode(0, s, 1)).collect();
        assert!(order_problems(&a).is_empty());
        assert!(duplicates_across(&[a.clone(), b.clone()]).is_empty());
        let c: Vec<_> = (8..10).map(|s| decode(0, s, 1)).collect();
        assert_eq!(
            duplicates_across(&[a, b, c.clone()]),
            vec!["cpu 0 seq 8 in scripts 2 and 3".to_string()]
        );
        let mut twice = c.clone();
        twice.extend(c);
        assert_eq!(order_problems(&twice).len(), 1);
    }

    #[test]
    fn all_injected_entries_are_expected() {
        let sessions = [
            session(0, 0, 10, 1),
            session(0, 10, 20, 1),
            session(1, 0, 5, 1),
        ];
        let d: Vec<_> = (0..20)
            .filter(|s| s % 4 != 0)
            .map(|s| decode(0, s, 1))
            .collect();
        let a = account_all(&d, &sessions);
        assert_eq!((a.expected, a.missing), (25, 5 + 5));
    }

    #[test]
    fn window_counts_only_asked_kinds_between_the_first_and_last_entry() {
        // The kernel reads preempts (0x2); the event asked for cedes (0x1):
        // the hypervisor wrote under 0x3, the reader kept the cedes.
        let sessions = [session(0, 0, 1000, 3)];
        let cedes: Vec<u64> = (0..1000)
            .filter(|&s| gen::fields(SEED, 0, 0, s, 3).kind == gen::KIND_CEDE)
            .collect();
        let window = &cedes[10..cedes.len() - 10];
        let (lo, hi) = (window[0], *window.last().unwrap());
        // Every fifth cede lost.
        let d: Vec<_> = window
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 5 != 1)
            .map(|(_, &s)| decode(0, s, 3))
            .collect();
        let a = account_window(&d, &sessions, SEED, None, gen::KIND_CEDE);
        let lost = window.len() as u64 - d.len() as u64;
        assert_eq!((a.expected, a.missing), (window.len() as u64, lost));
        assert_eq!(a.expected + a.filtered, hi - lo + 1);
        assert!(a.filtered > 0);
        assert!(a.windows[0].starts_with(&format!("window: cpu 0 seq {lo}..={hi} written")));
        assert!(foreign_kinds(&d, gen::KIND_CEDE).is_empty());
        // The session mask says 0x7 (the union seen), but the window was
        // written under 0x3: --write-mask recomputes the kinds.
        let wide = [session(0, 0, 1000, 7)];
        let a3 = account_window(&d, &wide, SEED, Some(3), gen::KIND_CEDE);
        assert_eq!(a3, a);
        assert!(field_mismatches(&d, &wide, SEED, Some(3)).is_empty());
        // A preempt captured by a cede-only event is a failure.
        let p = (lo..hi)
            .find(|&s| gen::fields(SEED, 0, 0, s, 3).kind == gen::KIND_PREEMPT)
            .unwrap();
        assert_eq!(foreign_kinds(&[decode(0, p, 3)], gen::KIND_CEDE).len(), 1);
    }
}
