// SPDX-License-Identifier: GPL-2.0

//! The tool on synthetic `perf script` output in perf's two-line format:
//! the report, the errors, the command line.

use super::*;

/// perf script --ns's two lines for one entry.
fn sample(cpu: u32, t_ns: u64, dispatch: &str, preempt: &str, enqueue: u32) -> String {
    format!(
        "         swapper       0 [{cpu:03}] {}.{:09}:           vpa-dtl: timebase: {} dispatch_reason:{dispatch}, preempt_reason:{preempt},\n\
         enqueue_to_dispatch_time:{enqueue}, ready_to_enqueue_time:7,waiting_to_ready_time:3, processor_id: {cpu} c0000000001c389c synchronize_srcu+0x2cc ([kernel.kallsyms])\n",
        t_ns / 1_000_000_000,
        t_ns % 1_000_000_000,
        t_ns / 2,
    )
}

/// Two CPUs: CPU 0 with latencies 512, 1024, 5120 ticks (1, 2, 10 us);
/// CPU 2 with 256, 0.
fn two_cpus() -> String {
    [
        sample(0, 1_000_000_000, "H_PROD", "H_CEDE", 1024),
        sample(2, 1_000_100_000, "time_slice", "H_CEDE", 256),
        sample(0, 1_000_200_000, "decrementer_interrupt", "H_CEDE", 5120),
        sample(0, 1_000_300_000, "H_PROD", "time_slice", 512),
        sample(2, 1_500_000_000, "time_slice", "H_CEDE", 0),
    ]
    .concat()
}

#[test]
fn report_per_cpu_and_all() {
    let s = report(&two_cpus(), "t.script").unwrap();
    let out = table::render(&s, "t.script", 512_000_000);
    // By hand: CPU 0 sorted 512 1024 5120: p50 rank 2, p99 rank 3. CPU 2:
    // 0 256: p50 rank 1, p99 rank 2. All: 0 256 512 1024 5120: p50 rank 3,
    // p99 rank 5.
    let expected = "\
t.script: 5 vpa-dtl entries on 2 CPUs over 0.500 s (timebase 512000000 Hz)

enqueue_to_dispatch_time, nearest-rank percentiles: ticks (us)
CPU  entries          p50           p99           max
  0        3  1024 (2.00)  5120 (10.00)  5120 (10.00)
  2        2     0 (0.00)    256 (0.50)    256 (0.50)
all        5   512 (1.00)  5120 (10.00)  5120 (10.00)

dispatch_reason by CPU, most frequent first
  0  H_PROD 2, decrementer_interrupt 1
  2  time_slice 2
all  H_PROD 2, time_slice 2, decrementer_interrupt 1

preempt_reason by CPU, most frequent first
  0  H_CEDE 2, time_slice 1
  2  H_CEDE 2
all  H_CEDE 4, time_slice 1
";
    assert_eq!(out, expected, "\n{out}");
}

#[test]
fn other_tb_frequency() {
    let s = report(&sample(1, 5_000, "H_PROD", "H_CEDE", 3000), "x").unwrap();
    let out = table::render(&s, "x", 1_000_000_000);
    assert!(
        out.contains("  1        1  3000 (3.00)  3000 (3.00)  3000 (3.00)\n"),
        "{out}"
    );
    assert!(
        out.contains("on 1 CPU over 0.000 s (timebase 1000000000 Hz)"),
        "{out}"
    );
}

#[test]
fn truncated_input_names_the_line() {
    // The input ends after the first line of the third sample (line 5).
    let mut text = two_cpus();
    let cut = text.match_indices('\n').nth(4).unwrap().0 + 1;
    text.truncate(cut);
    let e = report(&text, "t.script").unwrap_err();
    assert_eq!(
        e,
        "t.script: line 5: truncated sample (first line of a vpa-dtl sample with no second line)"
    );
}

#[test]
fn garbled_field_names_the_line_and_field() {
    // The fourth sample's second line (line 8) has a bad latency.
    let text = two_cpus().replace(
        "enqueue_to_dispatch_time:512,",
        "enqueue_to_dispatch_time:5x2,",
    );
    let e = report(&text, "t.script").unwrap_err();
    assert!(
        e.starts_with("t.script: line 8: cannot parse `enqueue_to_dispatch_time` of a vpa-dtl sample: enqueue_to_dispatch_time:5x2,"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}

#[test]
fn no_samples_is_an_error() {
    let want = "no vpa-dtl samples in t.script: is this `perf script` output of a vpa_dtl capture?";
    assert_eq!(report("", "t.script").unwrap_err(), want);
    let other =
        "  perf  12 [000] 1.000000000: 1 cycles:  c0000000001c389c f+0x0 ([kernel.kallsyms])\n";
    assert_eq!(report(other, "t.script").unwrap_err(), want);
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

#[test]
fn command_lines() {
    let opts = |input: &str, svg: Option<&str>, tb_freq| {
        Ok(Command::Report(Options {
            input: input.into(),
            svg: svg.map(PathBuf::from),
            tb_freq,
        }))
    };
    assert_eq!(parse_args(&args(&["f"])), opts("f", None, 512_000_000));
    assert_eq!(parse_args(&args(&["-"])), opts("-", None, 512_000_000));
    assert_eq!(
        parse_args(&args(&["--svg", "o.svg", "--tb-freq", "1000", "f"])),
        opts("f", Some("o.svg"), 1000)
    );
    assert_eq!(
        parse_args(&args(&["f", "--svg=o.svg", "--tb-freq=7"])),
        opts("f", Some("o.svg"), 7)
    );
    assert_eq!(
        parse_args(&args(&["--", "-x"])),
        opts("-x", None, 512_000_000)
    );
    assert_eq!(parse_args(&args(&["--help"])), Ok(Command::Help));
    for (bad, msg) in [
        (&["f", "g"][..], "unexpected argument: g"),
        (&["--svg"], "--svg needs a value"),
        (
            &["--tb-freq", "0", "f"],
            "--tb-freq: not a frequency in Hz: 0",
        ),
        (
            &["--tb-freq", "fast", "f"],
            "--tb-freq: not a frequency in Hz: fast",
        ),
        (&["-v", "f"], "unknown option: -v"),
        (&[], "missing SCRIPT_FILE (or - for standard input)"),
    ] {
        assert_eq!(parse_args(&args(bad)), Err(msg.to_string()), "{bad:?}");
    }
}

#[test]
fn run_reads_a_file_and_draws() {
    let dir = std::env::temp_dir().join(format!("dtl-report-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.script");
    let svg = dir.join("out.svg");
    std::fs::write(&input, two_cpus()).unwrap();
    let o = Options {
        input: input.to_str().unwrap().into(),
        svg: Some(svg.clone()),
        tb_freq: 512_000_000,
    };
    let out = run(&o).unwrap();
    let picture = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.contains("all        5   512 (1.00)"), "{out}");
    assert!(picture.starts_with("<svg"));
    let missing = Options {
        input: "/nonexistent/in.script".into(),
        svg: None,
        tb_freq: 1,
    };
    assert!(run(&missing)
        .unwrap_err()
        .starts_with("/nonexistent/in.script: "));
}
