// SPDX-License-Identifier: GPL-2.0

//! The text report: a latency table with a row per CPU and one for all
//! CPUs, then the dispatch and preempt reasons per CPU.

use crate::stats::{ticks_to_us, Group, Summary};

/// Reason lists wrap at this many columns.
const WIDTH: usize = 100;

/// A latency cell: ticks, then microseconds in parentheses.
fn ticks_us(ticks: u32, tb_freq: u64) -> String {
    format!("{ticks} ({:.2})", ticks_to_us(ticks, tb_freq))
}

/// The groups to print: each CPU, then all together.
fn rows(s: &Summary) -> Vec<(String, &Group)> {
    let mut v: Vec<(String, &Group)> = s.cpus.iter().map(|(c, g)| (c.to_string(), g)).collect();
    v.push(("all".to_string(), &s.all));
    v
}

/// Right-aligned columns, two spaces apart.
fn aligned(table: &[Vec<String>]) -> String {
    let ncol = table.iter().map(Vec::len).max().unwrap_or(0);
    let w: Vec<usize> = (0..ncol)
        .map(|i| {
            table
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in table {
        let cells: Vec<String> = r.iter().zip(&w).map(|(c, &w)| format!("{c:>w$}")).collect();
        out += cells.join("  ").trim_end();
        out.push('\n');
    }
    out
}

/// `name count` items after a label column, wrapped at [`WIDTH`] with a
/// hanging indent.
fn reason_lines(label: &str, label_w: usize, items: &[(String, usize)]) -> String {
    let indent = label_w + 2;
    let mut out = format!("{label:>label_w$}  ");
    let mut col = indent;
    for (i, (name, n)) in items.iter().enumerate() {
        let item = format!("{name} {n}{}", if i + 1 < items.len() { "," } else { "" });
        if col > indent && col + 1 + item.len() > WIDTH {
            out.push('\n');
            out += &" ".repeat(indent);
            col = indent;
        } else if col > indent {
            out.push(' ');
            col += 1;
        }
        out += &item;
        col += item.len();
    }
    out.push('\n');
    out
}

/// The whole report for `s`, read from `source`, with a timebase of
/// `tb_freq` Hz.
pub fn render(s: &Summary, source: &str, tb_freq: u64) -> String {
    let rows = rows(s);
    let mut out = format!(
        "{source}: {} vpa-dtl entries on {} CPU{} over {:.3} s (timebase {tb_freq} Hz)\n\n",
        s.all.entries,
        s.cpus.len(),
        if s.cpus.len() == 1 { "" } else { "s" },
        s.span_ns as f64 / 1e9,
    );
    out += "enqueue_to_dispatch_time, nearest-rank percentiles: ticks (us)\n";
    let mut table = vec![["CPU", "entries", "p50", "p99", "max"]
        .map(String::from)
        .to_vec()];
    for (label, g) in &rows {
        let mut r = vec![label.clone(), g.entries.to_string()];
        if let Some(l) = g.latency() {
            r.extend([l.p50, l.p99, l.max].map(|t| ticks_us(t, tb_freq)));
        }
        table.push(r);
    }
    out += &aligned(&table);
    let label_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(3).max(3);
    out += "\ndispatch_reason by CPU, most frequent first\n";
    for (label, g) in &rows {
        out += &reason_lines(label, label_w, &g.dispatch);
    }
    out += "\npreempt_reason by CPU, most frequent first\n";
    for (label, g) in &rows {
        out += &reason_lines(label, label_w, &g.preempt);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_right_aligned() {
        let t = [
            vec!["CPU".to_string(), "n".to_string()],
            vec!["0".to_string(), "1234".to_string()],
        ];
        assert_eq!(aligned(&t), "CPU     n\n  0  1234\n");
    }

    #[test]
    fn reason_lists_wrap_with_a_hanging_indent() {
        let items: Vec<(String, usize)> = (0..12)
            .map(|i| (format!("reason_number_{i:02}"), 100 - i))
            .collect();
        let s = reason_lines("all", 3, &items);
        let lines: Vec<&str> = s.lines().collect();
        assert!(lines.len() > 1);
        assert!(lines[0].starts_with("all  reason_number_00 100, reason_number_01 99,"));
        for l in &lines[1..] {
            assert!(l.starts_with("     reason_number_"), "{l}");
        }
        assert!(lines.iter().all(|l| l.len() <= WIDTH));
        assert!(s.ends_with("reason_number_11 89\n"));
    }
}
