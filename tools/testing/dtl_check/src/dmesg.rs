// SPDX-License-Identifier: GPL-2.0

//! The simulator's kernel log lines:
//!
//! ```text
//! dtl_sim: cpu C session: injected N seq A..B mask M steal S published P window W1..W2 hv_stolen H1..H2
//! dtl_sim: cpu C clock: tb T1..T2 ns N
//! ```
//!
//! One session line per registration the simulator served (` steal S`,
//! ` published P` and ` window W1..W2` are absent from older simulators'
//! lines: `P` is the index the lppaca published, whoever wrote the entries,
//! and every entry of the session has a timebase in `W1..=W2`; the
//! stolen time of the published entries, as the hypervisor's lppaca total
//! counted it, is in `H1..=H2`), followed by
//! its clock line if the
//! session saw a tick: `local_clock()` read `N` between the timebase reads
//! `T1` and `T2`, the tightest such bracket of the session.

/// A reading of `local_clock()` bracketed by two timebase reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Timebase read just before.
    pub tb_before: u64,
    /// Timebase read just after.
    pub tb_after: u64,
    /// `local_clock()`, in ns.
    pub ns: u64,
}

/// One registration the simulator served: `cpu`, sequence numbers
/// `first..end`, the enable masks it saw, the steal time of its entries
/// (timebase ticks) and its clock bracket.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The CPU whose DTL it wrote.
    pub cpu: u32,
    /// First sequence number written.
    pub first: u64,
    /// One past the last sequence number written.
    pub end: u64,
    /// The union of the enable masks the entries were written under.
    pub mask: u8,
    /// Sum of `enqueue_to_dispatch_time + ready_to_enqueue_time`, if logged.
    pub steal: Option<u64>,
    /// Entries the lppaca's index says were written, if logged.
    pub published: Option<u64>,
    /// The session's timebase window, if logged.
    pub window: Option<(u64, u64)>,
    /// Bounds on the stolen time (timebase ticks) of the published
    /// entries, from the hypervisor's own total, if logged.
    pub hv_stolen: Option<(u64, u64)>,
    /// The session's clock bracket, if logged.
    pub clock: Option<Clock>,
}

impl Session {
    /// Whether this session wrote `seq` of `cpu`.
    pub fn holds(&self, cpu: u32, seq: u64) -> bool {
        self.cpu == cpu && (self.first..self.end).contains(&seq)
    }
}

fn after<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    s.find(key).map(|i| &s[i + key.len()..])
}

fn word<T: std::str::FromStr>(s: &str, key: &str) -> Option<T> {
    after(s, key)?.split_whitespace().next()?.parse().ok()
}

fn range(s: &str, key: &str) -> Option<(u64, u64)> {
    let w = after(s, key)?.split_whitespace().next()?;
    let (a, b) = w.split_once("..")?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn session(cpu: u32, r: &str) -> Option<Session> {
    let r = after(r, " session: injected ")?;
    let (first, end) = range(r, " seq ")?;
    Some(Session {
        cpu,
        first,
        end,
        mask: word(r, " mask ")?,
        steal: word(r, " steal "),
        published: word(r, " published "),
        window: range(r, " window "),
        hv_stolen: range(r, " hv_stolen "),
        clock: None,
    })
}

fn clock(r: &str) -> Option<Clock> {
    let r = after(r, " clock: ")?;
    let (tb_before, tb_after) = range(r, "tb ")?;
    Some(Clock {
        tb_before,
        tb_after,
        ns: word(r, " ns ")?,
    })
}

/// Parses the session lines, each with the clock line that follows it for
/// the same CPU (lines of other CPUs may come in between).
pub fn parse_sessions(dmesg: &str) -> Vec<Session> {
    let mut out: Vec<Session> = Vec::new();
    for l in dmesg.lines() {
        let Some(r) = after(l, "dtl_sim: cpu ") else {
            continue;
        };
        let Some(cpu) = r.split_whitespace().next().and_then(|c| c.parse().ok()) else {
            continue;
        };
        if let Some(s) = session(cpu, r) {
            out.push(s);
        } else if let Some(c) = clock(r) {
            if let Some(s) = out.iter_mut().rev().find(|s| s.cpu == cpu) {
                s.clock.get_or_insert(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sessions_without_steal() {
        let s = parse_sessions(
            "[ 4.7] dtl_sim: cpu 1 session: injected 2586 seq 10..2596 mask 5\nnoise\n",
        );
        assert_eq!(
            s,
            vec![Session {
                cpu: 1,
                first: 10,
                end: 2596,
                mask: 5,
                steal: None,
                published: None,
                window: None,
                hv_stolen: None,
                clock: None,
            }]
        );
    }

    #[test]
    fn parses_steal_and_clock_lines() {
        let log = "\
[ 4.7] dtl_sim: cpu 0 session: injected 3 seq 0..3 mask 2 steal 9000
[ 4.7] dtl_sim: cpu 1 session: injected 2 seq 5..7 mask 1 steal 100
[ 4.7] dtl_sim: cpu 0 clock: tb 1000..1040 ns 77
[ 4.7] dtl_sim: cpu 1 clock: tb 2000..2010 ns 88
[ 4.8] dtl_sim: cpu 0 session: injected 0 seq 3..3 mask 0 steal 0
[ 4.9] dtl_sim: cpu 0 total: injected 3 steal 9000
";
        let s = parse_sessions(log);
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].cpu, s[0].steal, s[0].mask), (0, Some(9000), 2));
        assert_eq!(
            s[0].clock,
            Some(Clock {
                tb_before: 1000,
                tb_after: 1040,
                ns: 77
            })
        );
        assert_eq!(s[1].clock.map(|c| c.ns), Some(88));
        assert_eq!((s[2].first, s[2].end, s[2].clock), (3, 3, None));
        assert!(s[1].holds(1, 6) && !s[1].holds(1, 7) && !s[1].holds(0, 6));
    }

    #[test]
    fn parses_published_and_window() {
        let s = parse_sessions(
            "dtl_sim: cpu 1 session: injected 0 seq 0..0 mask 0 steal 0 published 72066 window 500..900\n",
        );
        assert_eq!(
            (s[0].published, s[0].window),
            (Some(72066), Some((500, 900)))
        );
    }

    #[test]
    fn ignores_malformed_lines() {
        let s = parse_sessions(
            "dtl_sim: cpu x session: injected 1 seq 0..1 mask 1\n\
             dtl_sim: cpu 0 clock: tb 5..6 ns 7\n\
             dtl_sim: cpu 0 session: injected 1 seq 0-1 mask 1\n",
        );
        assert!(s.is_empty());
    }
}
