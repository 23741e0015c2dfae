// SPDX-License-Identifier: GPL-2.0

//! Timestamp accuracy: perf's decoded sample times against the simulator's
//! clock.
//!
//! Each session of the simulator logs a bracket: `local_clock()` (perf's
//! default clock) read `ns` between the timebase reads `T1` and `T2`. An
//! entry with timebase `tb` happened at `ns + (tb - tau) / f` for some
//! `tau` in `T1..=T2` (`f` the timebase frequency), so its true time lies
//! between `ns + (tb - T2) / f` and `ns + (tb - T1) / f`; the bracket's width
//! is that interval's. perf prints the decoded time truncated to 1 ns with
//! `--ns`, to 1 us without. The error of an entry is the distance between
//! what perf may have decoded and the true interval: zero when they overlap.

use crate::dmesg::{Clock, Session};
use crate::script::Decoded;

/// The largest error accepted, in ns.
pub const LIMIT_NS: u64 = 1000;

/// The outcome of checking one `perf script` output.
#[derive(Debug, Default)]
pub struct TimeCheck {
    /// The largest error found, in ns.
    pub max_err_ns: u64,
    /// Where it was found.
    pub worst: Option<String>,
    /// Entries checked.
    pub entries: usize,
    /// The widest bracket used, in ns.
    pub bracket_ns: u64,
    /// Entries that could not be checked (no clock line for their session).
    pub problems: Vec<String>,
}

impl TimeCheck {
    /// Whether every entry was checked and within [`LIMIT_NS`].
    pub fn ok(&self) -> bool {
        self.problems.is_empty() && self.max_err_ns <= LIMIT_NS
    }

    /// `timestamp error: max X ns over N entries (bracket Y ns)`.
    pub fn summary(&self) -> String {
        format!(
            "timestamp error: max {} ns over {} entries (bracket {} ns)",
            self.max_err_ns, self.entries, self.bracket_ns
        )
    }

    /// Why the check failed, briefly.
    pub fn detail(&self) -> String {
        let mut v: Vec<String> = self.problems.iter().take(3).cloned().collect();
        if self.problems.len() > 3 {
            v.push(format!("{} entries without a clock", self.problems.len()));
        }
        if let Some(w) = &self.worst {
            v.push(format!("worst: {w}"));
        }
        v.join("; ")
    }
}

/// `ticks * 1e9 / f`, rounded down and up.
fn ticks_to_ns(ticks: i128, tb_freq: u64) -> (i128, i128) {
    let num = ticks * 1_000_000_000;
    let f = i128::from(tb_freq);
    (num.div_euclid(f), -(-num).div_euclid(f))
}

/// Bounds (ns, inclusive) of the true time of timebase `tb` by the bracket.
pub fn true_bounds(c: &Clock, tb: u64, tb_freq: u64) -> (i128, i128) {
    let ns = i128::from(c.ns);
    let (lo, _) = ticks_to_ns(i128::from(tb) - i128::from(c.tb_after), tb_freq);
    let (_, hi) = ticks_to_ns(i128::from(tb) - i128::from(c.tb_before), tb_freq);
    (ns + lo, ns + hi)
}

/// How far (ns) what perf printed lies outside the true interval.
pub fn error_ns(d: &Decoded, bounds: (i128, i128)) -> u64 {
    let shown_lo = i128::from(d.time_ns);
    let shown_hi = shown_lo + i128::from(d.time_res_ns.max(1)) - 1;
    let err = (bounds.0 - shown_hi).max(shown_lo - bounds.1).max(0);
    u64::try_from(err).unwrap_or(u64::MAX)
}

/// Checks every decoded entry that a session wrote against that session's
/// clock bracket (entries no session wrote are the field check's concern).
pub fn check_timestamps(decoded: &[Decoded], sessions: &[Session], tb_freq: u64) -> TimeCheck {
    check_by(decoded, tb_freq, |d| {
        sessions.iter().find(|s| s.holds(d.cpu, u64::from(d.seq)))
    })
}

/// Checks every decoded entry against the clock bracket of the session
/// `session_of` finds for it (none: not checked).
pub fn check_by<'a>(
    decoded: &[Decoded],
    tb_freq: u64,
    session_of: impl Fn(&Decoded) -> Option<&'a Session>,
) -> TimeCheck {
    let mut out = TimeCheck::default();
    for d in decoded {
        let seq = u64::from(d.seq);
        let Some(s) = session_of(d) else {
            continue;
        };
        let Some(c) = s.clock else {
            out.problems.push(format!(
                "cpu {} seq {seq}: its session logged no clock",
                d.cpu
            ));
            continue;
        };
        let bounds = true_bounds(&c, d.timebase, tb_freq);
        let err = error_ns(d, bounds);
        out.entries += 1;
        let width = ticks_to_ns(i128::from(c.tb_after) - i128::from(c.tb_before), tb_freq).1;
        out.bracket_ns = out.bracket_ns.max(u64::try_from(width).unwrap_or(0));
        if err > out.max_err_ns || out.worst.is_none() {
            out.max_err_ns = out.max_err_ns.max(err);
            out.worst = Some(format!(
                "cpu {} seq {seq} timebase {}: perf {} ns (+{}), true {}..={} ns",
                d.cpu, d.timebase, d.time_ns, d.time_res_ns, bounds.0, bounds.1
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: u64 = 512_000_000;

    fn entry(cpu: u32, seq: u32, tb: u64, time_ns: u64, res: u64) -> Decoded {
        Decoded {
            cpu,
            time_ns,
            time_res_ns: res,
            timebase: tb,
            dispatch: String::new(),
            preempt: String::new(),
            enqueue: 0,
            ready: 0,
            seq,
            processor_id: 0,
            ip: 0,
        }
    }

    fn session(cpu: u32, first: u64, end: u64, clock: Option<Clock>) -> Session {
        Session {
            cpu,
            first,
            end,
            mask: 1,
            steal: None,
            published: None,
            window: None,
            hv_stolen: None,
            clock,
        }
    }

    // local_clock() read 1_000_000 ns between timebase 512_000 and 512_010
    // (a bracket of 10 ticks, 19.53 ns).
    const C: Clock = Clock {
        tb_before: 512_000,
        tb_after: 512_010,
        ns: 1_000_000,
    };

    #[test]
    fn bounds_follow_the_bracket() {
        // 512 ticks later is exactly 1000 ns later.
        assert_eq!(true_bounds(&C, 512_512, F), (1_000_980, 1_001_000));
        // Before the bracket.
        assert_eq!(true_bounds(&C, 511_488, F), (998_980, 999_000));
    }

    #[test]
    fn errors_beyond_the_bracket_and_the_resolution() {
        let b = (1_000_980, 1_001_000);
        assert_eq!(error_ns(&entry(0, 0, 0, 1_000_990, 1), b), 0);
        assert_eq!(error_ns(&entry(0, 0, 0, 1_001_250, 1), b), 250);
        assert_eq!(error_ns(&entry(0, 0, 0, 1_000_000, 1), b), 980);
        // Printed in us: 1001 us covers 1_001_000..=1_001_999.
        assert_eq!(error_ns(&entry(0, 0, 0, 1_001_000, 1000), b), 0);
        assert_eq!(error_ns(&entry(0, 0, 0, 1_000_000, 1000), b), 0);
        assert_eq!(error_ns(&entry(0, 0, 0, 999_000, 1000), b), 981);
    }

    #[test]
    fn checks_per_session() {
        let c2 = Clock {
            tb_before: 1_024_000,
            tb_after: 1_024_001,
            ns: 3_000_000,
        };
        let sessions = [
            session(0, 0, 10, Some(C)),
            session(0, 10, 20, Some(c2)),
            session(1, 0, 10, None),
        ];
        // Within 1 us of each session's own clock.
        let good = [
            entry(0, 1, 512_512, 1_001_000, 1),
            entry(0, 11, 1_024_512, 3_001_000, 1),
        ];
        let t = check_timestamps(&good, &sessions, F);
        assert!(t.ok(), "{t:?}");
        assert_eq!((t.entries, t.max_err_ns, t.bracket_ns), (2, 0, 20));
        assert!(t
            .summary()
            .starts_with("timestamp error: max 0 ns over 2 entries"));
        // The second entry judged by the first session's clock is 1 ms off:
        // the bracket of its own session is the one used.
        let bad = [entry(0, 11, 1_024_512, 2_001_000, 1)];
        let t = check_timestamps(&bad, &sessions, F);
        assert!(!t.ok());
        assert_eq!(t.max_err_ns, 999_998);
        // 1001 ns off fails, 1000 ns passes.
        let t = check_timestamps(&[entry(0, 1, 512_512, 1_002_001, 1)], &sessions, F);
        assert_eq!((t.max_err_ns, t.ok()), (1001, false));
        let t = check_timestamps(&[entry(0, 1, 512_512, 1_002_000, 1)], &sessions, F);
        assert_eq!((t.max_err_ns, t.ok()), (1000, true));
        // A session without a clock line cannot be checked; an entry no
        // session wrote is skipped.
        let t = check_timestamps(&[entry(1, 1, 0, 0, 1), entry(2, 1, 0, 0, 1)], &sessions, F);
        assert_eq!((t.entries, t.problems.len(), t.ok()), (0, 1, false));
    }
}
