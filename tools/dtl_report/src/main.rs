// SPDX-License-Identifier: GPL-2.0

//! `dtl-report`: summarises `perf script` output of a POWER `vpa_dtl`
//! (Dispatch Trace Log) capture.
//!
//! ```text
//! perf record -a -e vpa_dtl/dtl_cede/ -- sleep 1
//! perf script > dtl.script
//! dtl-report [--svg OUT.svg] [--tb-freq HZ] dtl.script     # or - for stdin
//! ```
//!
//! Prints per CPU, then for all CPUs together: the number of entries, the
//! `enqueue_to_dispatch_time` latency p50/p99/max (nearest-rank
//! percentiles, in timebase ticks and microseconds), and the entries by
//! `dispatch_reason` and by `preempt_reason`, most frequent first.
//! `--svg` also draws a latency histogram per CPU. A truncated or garbled
//! sample, or an input with no vpa-dtl samples, is a one-line error and
//! exit status 1; a bad command line is exit status 2.

mod stats;
mod svg;
mod table;

use std::io::{Read, Write};
use std::path::PathBuf;

/// POWER's timebase frequency (and QEMU pseries'), in Hz.
const DEFAULT_TB_FREQ: u64 = 512_000_000;

const USAGE: &str = "usage: dtl-report [--svg OUT.svg] [--tb-freq HZ] SCRIPT_FILE|-

Summarises `perf script` output of a vpa_dtl capture (perf record -e
vpa_dtl/.../), read from SCRIPT_FILE or, for -, standard input: entries,
enqueue_to_dispatch_time p50/p99/max (nearest-rank) and dispatch and
preempt reasons, per CPU and for all CPUs.

  --svg OUT.svg   also draw a latency histogram per CPU into OUT.svg
  --tb-freq HZ    timebase frequency for ticks -> us (default 512000000)";

/// The command line.
#[derive(Debug, PartialEq)]
struct Options {
    input: String,
    svg: Option<PathBuf>,
    tb_freq: u64,
}

/// What a command line asks for.
#[derive(Debug, PartialEq)]
enum Command {
    Help,
    Report(Options),
}

fn parse_args(args: &[String]) -> Result<Command, String> {
    let mut input = None;
    let mut svg = None;
    let mut tb_freq = DEFAULT_TB_FREQ;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or(format!("{key} needs a value"))
        };
        match key {
            "-h" | "--help" => return Ok(Command::Help),
            "--svg" => svg = Some(PathBuf::from(value()?)),
            "--tb-freq" => {
                let v = value()?;
                tb_freq = v
                    .parse()
                    .ok()
                    .filter(|&f| f > 0)
                    .ok_or(format!("--tb-freq: not a frequency in Hz: {v}"))?;
            }
            "--" => {
                input = it.next().cloned().or(input);
                if let Some(extra) = it.next() {
                    return Err(format!("unexpected argument: {extra}"));
                }
            }
            k if k.starts_with('-') && k != "-" => return Err(format!("unknown option: {k}")),
            _ if input.is_some() => return Err(format!("unexpected argument: {a}")),
            _ => input = Some(a.clone()),
        }
    }
    let input = input.ok_or("missing SCRIPT_FILE (or - for standard input)")?;
    Ok(Command::Report(Options {
        input,
        svg,
        tb_freq,
    }))
}

/// The summary of the `perf script` output `text`, read from `source`.
fn report(text: &str, source: &str) -> Result<stats::Summary, String> {
    let decoded = dtl_script::parse_script(text).map_err(|e| format!("{source}: {e}"))?;
    if decoded.is_empty() {
        return Err(format!(
            "no vpa-dtl samples in {source}: is this `perf script` output of a vpa_dtl capture?"
        ));
    }
    Ok(stats::summarise(&decoded))
}

fn read_input(input: &str) -> Result<(String, String), String> {
    let mut bytes = Vec::new();
    let source = if input == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("standard input: {e}"))?;
        "standard input".to_string()
    } else {
        bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
        input.to_string()
    };
    // Symbol names need not be UTF-8; the fields parsed are ASCII.
    Ok((String::from_utf8_lossy(&bytes).into_owned(), source))
}

/// The whole run for options `o`: the report text, and the picture
/// written if asked for.
fn run(o: &Options) -> Result<String, String> {
    let (text, source) = read_input(&o.input)?;
    let s = report(&text, &source)?;
    if let Some(path) = &o.svg {
        svg::write_svg(path, &s, &source, o.tb_freq)?;
    }
    Ok(table::render(&s, &source, o.tb_freq))
}

/// Writes the report to standard output; a reader that went away (`|
/// head`) is no error. The exit status.
fn print(text: &str) -> i32 {
    match std::io::stdout().write_all(text.as_bytes()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("dtl-report: standard output: {e}");
            1
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match parse_args(&args) {
        Ok(Command::Help) => {
            println!("{USAGE}");
            0
        }
        Ok(Command::Report(o)) => match run(&o) {
            Ok(text) => print(&text),
            Err(e) => {
                eprintln!("dtl-report: {e}");
                1
            }
        },
        Err(e) => {
            eprintln!("dtl-report: {e}\n{USAGE}");
            2
        }
    };
    std::process::exit(code);
}

#[cfg(test)]
mod tests;
