// SPDX-License-Identifier: GPL-2.0

//! The parser on samples in perf's exact two-line format.

use super::*;

/// A sample as perf script prints it without `--ns`.
const SAMPLE: &str = "         swapper       0 [001]     3.667818:           vpa-dtl: timebase: 9814970217 dispatch_reason:system_reset, preempt_reason:H_CEDE,\nenqueue_to_dispatch_time:4113, ready_to_enqueue_time:2148,waiting_to_ready_time:12, processor_id: 1 c0000000001c389c synchronize_srcu+0x2cc ([kernel.kallsyms])\n";

fn garbled(e: ParseError) -> (usize, &'static str) {
    match e.kind {
        ParseErrorKind::Garbled { field, .. } => (e.line, field),
        k => panic!("not garbled: {k:?}"),
    }
}

#[test]
fn parses_a_sample() {
    let d = parse_script(SAMPLE).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].cpu, 1);
    assert_eq!((d[0].time_ns, d[0].time_res_ns), (3_667_818_000, 1000));
    assert_eq!(d[0].timebase, 9_814_970_217);
    assert_eq!(d[0].dispatch, "system_reset");
    assert_eq!(d[0].preempt, "H_CEDE");
    assert_eq!(
        (d[0].enqueue, d[0].ready, d[0].seq, d[0].processor_id),
        (4113, 2148, 12, 1)
    );
    assert_eq!(d[0].ip, 0xc000_0000_001c_389c);
}

#[test]
fn parses_ns_timestamps() {
    let s = SAMPLE.replace("3.667818:", "3.667818042:");
    let d = parse_script(&s).unwrap();
    assert_eq!((d[0].time_ns, d[0].time_res_ns), (3_667_818_042, 1));
    assert_eq!(parse_time("12.5"), Some((12_500_000_000, 100_000_000)));
    assert_eq!(parse_time("12."), None);
    assert_eq!(parse_time("12.1234567890"), None);
}

#[test]
fn skips_other_lines_and_takes_crlf() {
    let s = format!("# header\n  perf 12 [000] 1.0: cycles: ffff\n{SAMPLE}{SAMPLE}")
        .replace('\n', "\r\n");
    let d = parse_script(&s).unwrap();
    assert_eq!(d.len(), 2);
    assert_eq!(d[1].ip, 0xc000_0000_001c_389c);
}

#[test]
fn takes_negative_fields_back_as_u32() {
    // perf prints the u32 fields with %d.
    let d = parse_script(&SAMPLE.replace(":4113,", ":-5,")).unwrap();
    assert_eq!(d[0].enqueue, u32::MAX - 4);
}

#[test]
fn rejects_a_truncated_sample() {
    let first = SAMPLE.lines().next().unwrap();
    let e = parse_script(&format!("x\n{first}\n")).unwrap_err();
    assert_eq!((e.line, &e.kind), (2, &ParseErrorKind::Truncated));
    // The second line missing, another sample next.
    let e = parse_script(&format!("{SAMPLE}{first}\n{SAMPLE}")).unwrap_err();
    assert_eq!((e.line, &e.kind), (3, &ParseErrorKind::Truncated));
    // The second line cut short.
    let cut = &SAMPLE[..SAMPLE.find("waiting").unwrap()];
    let e = parse_script(&format!("{SAMPLE}{cut}")).unwrap_err();
    assert_eq!(garbled(e), (4, "waiting_to_ready_time"));
}

#[test]
fn names_the_garbled_field_and_its_line() {
    let two = format!("{SAMPLE}{SAMPLE}");
    let cases = [
        ("[001]", "[0x1]", 3, "cpu"),
        ("3.667818:", "3,667818:", 3, "time"),
        ("timebase: 9814970217", "timebase: 98z", 3, "timebase"),
        (
            "dispatch_reason:system_reset",
            "dispatch_reason:",
            3,
            "dispatch_reason",
        ),
        (
            "preempt_reason:H_CEDE",
            "preempt_reasn:H_CEDE",
            3,
            "preempt_reason",
        ),
        (":4113,", ":41x3,", 4, "enqueue_to_dispatch_time"),
        (":2148,", ":,", 4, "ready_to_enqueue_time"),
        ("waiting_to_ready_time", "w", 4, "waiting_to_ready_time"),
        ("processor_id: 1 ", "processor_id: one ", 4, "processor_id"),
        (" c0000000001c389c ", " xyz ", 4, "ip"),
    ];
    for (from, to, line, field) in cases {
        // Only the second sample is damaged.
        let i = SAMPLE.len() + two[SAMPLE.len()..].find(from).unwrap();
        let s = format!("{}{to}{}", &two[..i], &two[i + from.len()..]);
        assert_eq!(
            garbled(parse_script(&s).unwrap_err()),
            (line, field),
            "{from}"
        );
    }
}

#[test]
fn empty_input_has_no_samples() {
    assert_eq!(parse_script(""), Ok(vec![]));
    assert_eq!(parse_script("# only a comment\n\n"), Ok(vec![]));
}
