// SPDX-License-Identifier: GPL-2.0

//! Aggregation of decoded entries per CPU, and nearest-rank percentiles.

use dtl_script::Decoded;
use std::collections::BTreeMap;

/// The nearest-rank `p`-th percentile (`p` in 1..=100) of `sorted`, which
/// is sorted ascending: the value of rank `ceil(p / 100 * N)` (1-based),
/// that is the smallest value with at least `p`% of the values at or below
/// it. It is always one of the values (no interpolation). `None` for no
/// values.
pub fn percentile(sorted: &[u32], p: u32) -> Option<u32> {
    debug_assert!((1..=100).contains(&p));
    debug_assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
    let rank = (p as usize * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// Latency summary of one group, in timebase ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latency {
    /// Nearest-rank median.
    pub p50: u32,
    /// Nearest-rank 99th percentile.
    pub p99: u32,
    /// Largest value.
    pub max: u32,
}

/// The entries of one CPU, or of all CPUs together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    /// Number of entries.
    pub entries: usize,
    /// Entries by `dispatch_reason` name, most frequent first (ties by
    /// name).
    pub dispatch: Vec<(String, usize)>,
    /// Entries by `preempt_reason` name, most frequent first (ties by
    /// name).
    pub preempt: Vec<(String, usize)>,
    /// Every `enqueue_to_dispatch_time`, in ticks, sorted ascending.
    pub enqueue: Vec<u32>,
}

impl Group {
    fn of<'a>(entries: impl Iterator<Item = &'a Decoded>) -> Group {
        let mut dispatch = BTreeMap::new();
        let mut preempt = BTreeMap::new();
        let mut enqueue = Vec::new();
        for d in entries {
            *dispatch.entry(d.dispatch.as_str()).or_insert(0) += 1;
            *preempt.entry(d.preempt.as_str()).or_insert(0) += 1;
            enqueue.push(d.enqueue);
        }
        enqueue.sort_unstable();
        Group {
            entries: enqueue.len(),
            dispatch: by_count(dispatch),
            preempt: by_count(preempt),
            enqueue,
        }
    }

    /// The `enqueue_to_dispatch_time` summary; `None` for no entries.
    pub fn latency(&self) -> Option<Latency> {
        Some(Latency {
            p50: percentile(&self.enqueue, 50)?,
            p99: percentile(&self.enqueue, 99)?,
            max: *self.enqueue.last()?,
        })
    }
}

/// Counts by name, most frequent first, ties in name order.
fn by_count(counts: BTreeMap<&str, usize>) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    // Stable: names stay in order among equal counts.
    v.sort_by_key(|c| std::cmp::Reverse(c.1));
    v
}

/// A whole capture, summarised.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// One group per CPU, by CPU number.
    pub cpus: Vec<(u32, Group)>,
    /// All CPUs together.
    pub all: Group,
    /// Time from the first sample to the last, in ns (as perf printed the
    /// sample times).
    pub span_ns: u64,
}

/// Summarises decoded entries per CPU and all together.
pub fn summarise(decoded: &[Decoded]) -> Summary {
    let mut per_cpu: BTreeMap<u32, Vec<&Decoded>> = BTreeMap::new();
    for d in decoded {
        per_cpu.entry(d.cpu).or_default().push(d);
    }
    let times = decoded.iter().map(|d| d.time_ns);
    let span_ns = match (times.clone().min(), times.max()) {
        (Some(a), Some(b)) => b - a,
        _ => 0,
    };
    Summary {
        cpus: per_cpu
            .into_iter()
            .map(|(cpu, ds)| (cpu, Group::of(ds.into_iter())))
            .collect(),
        all: Group::of(decoded.iter()),
        span_ns,
    }
}

/// Ticks of a `tb_freq` Hz timebase in microseconds.
pub fn ticks_to_us(ticks: u32, tb_freq: u64) -> f64 {
    f64::from(ticks) * 1e6 / tb_freq as f64
}

#[cfg(test)]
mod tests;
