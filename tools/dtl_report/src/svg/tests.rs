// SPDX-License-Identifier: GPL-2.0

//! Bins against their float edges; the picture written to a file.

use super::*;
use crate::stats::summarise;
use dtl_script::Decoded;

#[test]
fn bins_by_hand() {
    // 2^(k/4): 1, 1.19, 1.41, 1.68, 2, 2.38, 2.83, 3.36, 4, ...
    let cases = [
        (0, 0),
        (1, 0),
        (2, 4),
        (3, 6),
        (4, 8),
        (5, 9),
        (7, 11),
        (8, 12),
        (512, 36),
    ];
    for (ticks, bin) in cases {
        assert_eq!(bin_of(ticks), bin, "{ticks} ticks");
    }
    assert_eq!(bin_of(u32::MAX), 127);
}

#[test]
fn bins_hold_their_edges() {
    for ticks in (2..5000).chain([65535, 65536, 1 << 20, u32::MAX - 1]) {
        let k = bin_of(ticks) as f64;
        let t = f64::from(ticks);
        assert!(2f64.powf(k / 4.0) <= t * (1.0 + 1e-12), "{ticks}");
        assert!(t < 2f64.powf((k + 1.0) / 4.0), "{ticks}");
    }
}

#[test]
fn histogram_counts_per_bin() {
    assert_eq!(histogram(&[]), Vec::<usize>::new());
    // bins 0, 0, 4, 8, 8
    assert_eq!(histogram(&[0, 1, 2, 4, 4]), [2, 0, 0, 0, 1, 0, 0, 0, 2]);
}

#[test]
fn axis_labels() {
    assert_eq!(us_label(10.0), "10");
    assert_eq!(us_label(0.01), "0.01");
    assert_eq!(us_label(2.5), "2.5");
}

fn entry(cpu: u32, enqueue: u32) -> Decoded {
    Decoded {
        cpu,
        time_ns: u64::from(enqueue),
        time_res_ns: 1,
        timebase: 0,
        dispatch: "H_PROD".into(),
        preempt: "H_CEDE".into(),
        enqueue,
        ready: 0,
        seq: 0,
        processor_id: 0,
        ip: 0,
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dtl-report-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn writes_an_svg_file() {
    let d: Vec<Decoded> = (0..40).map(|i| entry(i % 2, i * 97)).collect();
    let path = scratch("two.svg");
    write_svg(&path, &summarise(&d), "t.script", 512_000_000).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    for text in [
        "all CPUs: 40 entries",
        "CPU 0: 20 entries",
        "CPU 1: 20 entries",
        "p99",
    ] {
        assert!(svg.contains(text), "{text}");
    }
    assert!(svg.contains("<rect"));
}

#[test]
fn one_cpu_and_all_zero_latencies() {
    let d: Vec<Decoded> = (0..3).map(|_| entry(5, 0)).collect();
    let path = scratch("zero.svg");
    write_svg(&path, &summarise(&d), "z", 512_000_000).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains("CPU 5: 3 entries"));
    assert!(!svg.contains("all CPUs"));
}

#[test]
fn unwritable_path_is_an_error() {
    let d = [entry(0, 10)];
    let path = Path::new("/nonexistent-dir/x/out.svg");
    let e = write_svg(path, &summarise(&d), "t", 512_000_000).unwrap_err();
    assert!(e.starts_with("/nonexistent-dir/x/out.svg: "), "{e}");
}
