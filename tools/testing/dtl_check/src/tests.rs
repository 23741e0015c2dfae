// SPDX-License-Identifier: GPL-2.0

//! The whole check on synthetic captures: what perf would print for entries
//! the simulator wrote, and the simulator's log lines.

use super::*;
use crate::script::{DISPATCH, PREEMPT};
use std::collections::BTreeMap;

const SEED: u64 = 9;
/// Timebase of sequence number 0; one entry per microsecond (512 ticks).
const TB0: u64 = 512_000_000;

fn tb(seq: u64) -> u64 {
    TB0 + 512 * seq
}

/// perf script's two lines for entry `seq` of `cpu` written under `mask`,
/// decoded `skew_ns` off the true time, printed in ns or us.
fn sample(cpu: u32, seq: u64, mask: u8, skew_ns: u64, ns: bool) -> String {
    let f = gen::fields(SEED, cpu, cpu as u16, seq, mask);
    // boot_tb 0: the true time is the timebase in ns.
    let t = tb(seq) * 1_000_000_000 / 512_000_000 + skew_ns;
    let time = if ns {
        format!("{}.{:09}", t / 1_000_000_000, t % 1_000_000_000)
    } else {
        format!("{}.{:06}", t / 1_000_000_000, t % 1_000_000_000 / 1000)
    };
    format!(
        "  swapper  0 [{cpu:03}]  {time}:  vpa-dtl: timebase: {} dispatch_reason:{}, preempt_reason:{},\n\
         enqueue_to_dispatch_time:{}, ready_to_enqueue_time:{},waiting_to_ready_time:{}, processor_id: {cpu} {:x} f+0x0 ([kernel.kallsyms])\n",
        tb(seq),
        DISPATCH[f.dispatch_reason as usize],
        PREEMPT[f.preempt_reason as usize],
        f.enqueue_to_dispatch_time,
        f.ready_to_enqueue_time,
        f.waiting_to_ready_time,
        f.srr0
    )
}

/// One session per CPU, seq `0..n`, under `mask`, with a clock bracket of 8
/// ticks around timebase `TB0` (local_clock = timebase in ns).
fn dmesg(cpus: u32, n: u64, mask: u8) -> String {
    let mut s = String::new();
    for cpu in 0..cpus {
        s += &format!(
            "[ 5.1] dtl_sim: cpu {cpu} session: injected {n} seq 0..{n} mask {mask} steal 123\n"
        );
        s += &format!(
            "[ 5.1] dtl_sim: cpu {cpu} clock: tb {}..{} ns 1000000004\n",
            TB0 - 4,
            TB0 + 4
        );
    }
    s
}

fn check(files: &[(&str, String)], extra: &[&str]) -> Ktap {
    let fs: BTreeMap<String, String> = files
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let mut args: Vec<String> = vec!["dtl_check".into()];
    for (n, _) in files.iter().filter(|(n, _)| *n != "dmesg") {
        args.extend(["--script".into(), n.to_string()]);
    }
    args.extend(
        [
            "--dmesg",
            "dmesg",
            "--seed",
            "9",
            "--captured",
            "auto",
            "--lost-aux",
            "0",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    if !extra.contains(&"--lost-overrun") {
        args.extend(["--lost-overrun".into(), "0".into()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    run(&args, |p| fs[p].clone())
}

fn script(cpu: u32, seqs: impl Iterator<Item = u64>, mask: u8, skew: u64, ns: bool) -> String {
    seqs.map(|q| sample(cpu, q, mask, skew, ns)).collect()
}

#[test]
fn options() {
    let a: Vec<String> = ["x", "--script", "a", "--clock", "--script", "b"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(args_of(&a, "--script"), ["a", "b"]);
    assert_eq!(arg(&a, "--script").as_deref(), Some("a"));
    assert_eq!(
        (parse_mask("0x6"), parse_mask("5"), parse_mask("0xz")),
        (Some(6), Some(5), None)
    );
}

#[test]
fn complete_capture_with_clock() {
    let all = script(0, 0..100, 1, 0, true) + &script(1, 0..100, 1, 0, false);
    let k = check(
        &[("s", all.clone()), ("dmesg", dmesg(2, 100, 1))],
        &["--clock"],
    );
    assert_eq!(k.failed, 0, "{}", k.out);
    assert!(k
        .out
        .contains("\ntimestamp error: max 0 ns over 200 entries (bracket 16 ns)\n"));
    assert!(k
        .out
        .contains("ok 4 timestamps within 1000 ns of the simulator's clock\n"));
    assert!(
        k.out.ends_with("injected=200 captured=200 lost=0\n"),
        "{}",
        k.out
    );
    // Without --clock, the output is as before.
    let k = check(&[("s", all), ("dmesg", dmesg(2, 100, 1))], &[]);
    assert_eq!((k.failed, k.n), (0, 6));
    assert!(!k.out.contains("timestamp"));
}

#[test]
fn timestamps_off_by_more_than_a_microsecond_fail() {
    let k = check(
        &[
            ("s", script(0, 0..10, 1, 1500, true)),
            ("dmesg", dmesg(1, 10, 1)),
        ],
        &["--clock"],
    );
    assert_eq!(k.failed, 1, "{}", k.out);
    assert!(k.out.contains("not ok 4 timestamps within 1000 ns"));
    // 1500 ns late, the bracket reaching 12 ns past the true time.
    assert!(
        k.out
            .contains("timestamp error: max 1488 ns over 10 entries"),
        "{}",
        k.out
    );
}

#[test]
fn several_scripts() {
    let d = dmesg(1, 30, 1);
    let first = script(0, 0..10, 1, 0, true);
    // The second file decoded 5 us off (say, without its boot record).
    let second = script(0, 10..20, 1, 5000, true);
    let third = script(0, 20..30, 1, 0, false);
    let k = check(
        &[
            ("a", first.clone()),
            ("b", second),
            ("c", third.clone()),
            ("dmesg", d.clone()),
        ],
        &["--clock"],
    );
    assert!(
        k.out
            .contains("ok 4 no entry appears in two perf.data files\n"),
        "{}",
        k.out
    );
    assert!(k.out.contains("\nok 5 1 (a): timestamps within"));
    assert!(k.out.contains("\nnot ok 6 2 (b): timestamps within"));
    assert!(k.out.contains("\nok 7 3 (c): timestamps within"));
    assert!(k
        .out
        .contains("2 (b): timestamp error: max 4988 ns over 10 entries"));
    // In the union, time goes back from the second file to the third.
    assert!(k
        .out
        .contains("not ok 3 entries appear once, in order, per CPU\n# cpu 0: seq 19 then 20"));
    assert_eq!(k.failed, 2);
    // An entry in two files.
    let overlap = script(0, 9..20, 1, 0, true);
    let k = check(
        &[("a", first), ("b", overlap), ("c", third), ("dmesg", d)],
        &[],
    );
    assert!(
        k.out.contains(
            "not ok 4 no entry appears in two perf.data files\n# cpu 0 seq 9 in scripts 1 and 2"
        ),
        "{}",
        k.out
    );
}

#[test]
fn window_of_a_shared_ring() {
    // The hypervisor wrote cedes and preempts (0x3) from seq 0 to 400; the
    // event asked for cedes and read from the 50th entry to the 350th,
    // losing 7 of them.
    let cedes: Vec<u64> = (50..350)
        .filter(|&q| gen::fields(SEED, 0, 0, q, 3).kind == gen::KIND_CEDE)
        .collect();
    let (lo, hi) = (cedes[0], *cedes.last().unwrap());
    let kept = cedes
        .iter()
        .copied()
        .filter(|q| !(100..150).contains(q) || q % 7 != 0);
    let lost = cedes.len() - kept.clone().count();
    assert!(lost > 0);
    let s = script(0, kept.clone(), 3, 0, true);
    // The session logged 0x7: another reader enabled faults later on.
    let d = dmesg(1, 400, 7);
    let lost_s = lost.to_string();
    let opts = [
        "--window",
        "--keep-mask",
        "0x1",
        "--write-mask",
        "3",
        "--lost-overrun",
        &lost_s,
    ];
    let k = check(&[("s", s.clone()), ("dmesg", d.clone())], &opts);
    assert_eq!(k.failed, 0, "{}", k.out);
    assert!(k.out.contains(&format!(
        "window: cpu 0 seq {lo}..={hi} written {}",
        hi - lo + 1
    )));
    assert!(k
        .out
        .contains("ok 3 every decoded entry is of a kind the event asked for\n"));
    assert!(k.out.ends_with(&format!(
        "injected={} captured={} lost={lost}\n",
        cedes.len(),
        cedes.len() - lost
    )));
    // The whole-run identity does not hold for such a reader.
    let k = check(
        &[("s", s.clone()), ("dmesg", d.clone())],
        &["--write-mask", "3", "--lost-overrun", &lost_s],
    );
    assert!(
        k.out
            .contains("not ok 5 injected = captured + reported lost"),
        "{}",
        k.out
    );
    // A preempt in the capture of a cede event.
    let p = (lo..hi)
        .find(|&q| gen::fields(SEED, 0, 0, q, 3).kind == gen::KIND_PREEMPT)
        .unwrap();
    let mut seqs: Vec<u64> = kept.chain([p]).collect();
    seqs.sort();
    let k = check(
        &[("s", script(0, seqs.into_iter(), 3, 0, true)), ("dmesg", d)],
        &opts,
    );
    assert!(
        k.out
            .contains("not ok 3 every decoded entry is of a kind the event asked for"),
        "{}",
        k.out
    );
}

/// `--hypervisor`: KVM's entries (reason 7, no sequence numbers), one every
/// microsecond from `TB0` on each CPU, resuming at `ip(i)`.
fn kvm_script(cpus: u32, n: u64, ip: impl Fn(u64) -> u64) -> String {
    let mut s = String::new();
    for i in 0..n {
        for cpu in 0..cpus {
            let t = tb(i) * 1_000_000_000 / 512_000_000;
            s += &format!(
                "  swapper  0 [{cpu:03}]  {}.{:09}:  vpa-dtl: timebase: {} dispatch_reason:time_slice, preempt_reason:unused,\n\
                 enqueue_to_dispatch_time:0, ready_to_enqueue_time:0,waiting_to_ready_time:0, processor_id: 1 {:x} f+0x0 ([kernel.kallsyms])\n",
                t / 1_000_000_000,
                t % 1_000_000_000,
                tb(i),
                ip(i)
            );
        }
    }
    s
}

/// The observer's lines: `published` per CPU, the window around the
/// entries, and a clock bracket.
fn kvm_dmesg(published: &[u64]) -> String {
    let mut s = String::new();
    for (cpu, p) in published.iter().enumerate() {
        s += &format!(
            "dtl_sim: cpu {cpu} session: injected 0 seq 0..0 mask 0 steal 0 published {p} window {}..{}\n",
            TB0 - 10,
            tb(1000)
        );
        s += &format!(
            "dtl_sim: cpu {cpu} clock: tb {}..{} ns 1000000004\n",
            TB0 - 4,
            TB0 + 4
        );
    }
    s
}

fn kvm_check(script: String, dmesg: String, captured: u64, lost: u64, extra: &[&str]) -> Ktap {
    let fs: BTreeMap<String, String> =
        [("s".to_string(), script), ("dmesg".to_string(), dmesg)].into();
    let mut args: Vec<String> = [
        "dtl_check",
        "--hypervisor",
        "--script",
        "s",
        "--dmesg",
        "dmesg",
        "--dispatch-reason",
        "time_slice",
        "--lost-aux",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend([
        "--captured".into(),
        captured.to_string(),
        "--lost-overrun".into(),
        lost.to_string(),
    ]);
    args.extend(extra.iter().map(|s| s.to_string()));
    run(&args, |p| fs[p].clone())
}

#[test]
fn hypervisor_capture_accounted_exactly() {
    let k = kvm_check(
        kvm_script(2, 50, |_| 0xc000_0000_0000_4900),
        kvm_dmesg(&[60, 55]),
        100,
        15,
        &[],
    );
    assert_eq!(k.failed, 0, "{}", k.out);
    assert!(
        k.out.contains("published=115 captured=100 lost=15"),
        "{}",
        k.out
    );
    assert!(
        k.out
            .contains("cpu 0: longest run of entries resuming at one guest PC: 50 over 49 us"),
        "{}",
        k.out
    );
    // One entry unaccounted for: the identity fails.
    let k = kvm_check(kvm_script(2, 50, |_| 0), kvm_dmesg(&[60, 56]), 100, 15, &[]);
    assert!(
        k.out
            .contains("not ok 7 published = captured + reported lost"),
        "{}",
        k.out
    );
    // A shared ring: only a bound.
    let k = kvm_check(
        kvm_script(2, 50, |_| 0),
        kvm_dmesg(&[60, 56]),
        100,
        15,
        &["--shared"],
    );
    assert_eq!(k.failed, 0, "{}", k.out);
    let k = kvm_check(
        kvm_script(2, 50, |_| 0),
        kvm_dmesg(&[50, 50]),
        100,
        15,
        &["--shared"],
    );
    assert!(
        k.out
            .contains("not ok 7 captured + reported lost <= published"),
        "{}",
        k.out
    );
}

#[test]
fn hypervisor_entries_twice_or_outside_refused() {
    // The same entry twice: timebases do not increase.
    let one = kvm_script(1, 3, |i| i);
    let twice = one.clone() + &kvm_script(1, 1, |i| i);
    let k = kvm_check(twice, kvm_dmesg(&[4]), 4, 0, &[]);
    assert!(
        k.out
            .contains("not ok 3 entries appear once, in order, per CPU"),
        "{}",
        k.out
    );
    // An entry past the registration window.
    let late = kvm_script(1, 2000, |i| i);
    let k = kvm_check(late, kvm_dmesg(&[2000]), 2000, 0, &[]);
    assert!(
        k.out
            .contains("not ok 4 every entry lies in its CPU's registration window"),
        "{}",
        k.out
    );
    // Another dispatch reason than KVM's.
    let other = one.replace("time_slice", "H_PROD");
    let k = kvm_check(other, kvm_dmesg(&[3]), 3, 0, &[]);
    assert!(
        k.out
            .contains("not ok 2 every decoded entry has dispatch_reason time_slice"),
        "{}",
        k.out
    );
}

/// `kvm_dmesg` with the hypervisor's stolen-time bracket `hv` on each CPU.
fn kvm_dmesg_stolen(published: &[u64], hv: (u64, u64)) -> String {
    kvm_dmesg(published).replace(
        " window ",
        &format!(" hv_stolen {}..{} window ", hv.0, hv.1),
    )
}

#[test]
fn hypervisor_stolen_time_against_its_total() {
    // 50 entries of 7 + 2 ticks each on one CPU: 450 ticks.
    let script = kvm_script(1, 50, |_| 0)
        .replace("enqueue_to_dispatch_time:0", "enqueue_to_dispatch_time:7")
        .replace("ready_to_enqueue_time:0", "ready_to_enqueue_time:2");
    // `published` entries, 50 captured, the rest lost; the bracket `hv`.
    let run = |published: u64, hv: (u64, u64), extra: &[&str]| {
        kvm_check(
            script.clone(),
            kvm_dmesg_stolen(&[published], hv),
            50,
            published - 50,
            extra,
        )
    };
    let exact = "ok 8 cpu 0: the stolen time decoded is the hypervisor's total";
    let bound = "ok 8 cpu 0: the stolen time decoded is at most the hypervisor's total";
    // Nothing lost: the sum must lie in the bracket.
    let k = run(50, (440, 450), &[]);
    assert_eq!(k.failed, 0, "{}", k.out);
    assert!(
        k.out.contains(&format!("{exact} (no entry lost)")),
        "{}",
        k.out
    );
    let k = run(50, (451, 460), &[]);
    assert!(k.out.contains(&format!("not {exact}")), "{}", k.out);
    // Entries lost: only a bound, which a larger sum breaks.
    let k = run(60, (500, 900), &[]);
    assert_eq!(k.failed, 0, "{}", k.out);
    let k = run(60, (300, 449), &[]);
    assert!(k.out.contains(&format!("not {bound}")), "{}", k.out);
    // A shared ring: a bound even when nothing was lost.
    let k = run(50, (450, 2000), &["--shared"]);
    assert_eq!(k.failed, 0, "{}", k.out);
    assert!(k.out.contains(bound), "{}", k.out);
}

#[test]
fn hypervisor_loss_flagged_on_the_cpu_that_lost() {
    // cpu 0 published 60 and 50 were decoded: it lost 10; cpu 1 lost none.
    let run = |flagged: &str| {
        kvm_check(
            kvm_script(2, 50, |_| 0),
            kvm_dmesg(&[60, 50]),
            100,
            10,
            &["--partial-cpus", flagged],
        )
    };
    let k = run("0");
    assert_eq!(k.failed, 0, "{}", k.out);
    assert!(
        k.out
            .contains("ok 8 the CPUs that lost entries are the CPUs with AUX records flagged"),
        "{}",
        k.out
    );
    // The loss flagged on the wrong CPU, on both, or on none.
    for wrong in ["1", "0,1", ""] {
        let k = run(wrong);
        assert!(
            k.out.contains(
                "not ok 8 the CPUs that lost entries are the CPUs with AUX records flagged"
            ),
            "{wrong}: {}",
            k.out
        );
    }
}

/// A `perf.data` file: the header, then `records` as its data section.
fn perf_data(records: &[Vec<u8>]) -> Vec<u8> {
    let data: Vec<u8> = records.concat();
    let mut f = b"PERFILE2".to_vec();
    // size, attr_size, attrs, data (at 104), event_types, then features.
    for v in [104u64, 0, 0, 0, 104, data.len() as u64, 0, 0] {
        f.extend(v.to_le_bytes());
    }
    f.resize(104, 0);
    f.extend(data);
    f
}

/// A record: type, misc, then `body` (u64 words) and `extra` bytes.
fn record(kind: u32, misc: u16, body: &[u64], extra: &[u8]) -> Vec<u8> {
    let size = 8 + 8 * body.len() + extra.len();
    let mut r = kind.to_le_bytes().to_vec();
    r.extend(misc.to_le_bytes());
    r.extend((size as u16).to_le_bytes());
    for w in body {
        r.extend(w.to_le_bytes());
    }
    r.extend(extra);
    r
}

/// `PERF_RECORD_LOST_SAMPLES` of event `id` (TID, TIME, CPU 0, IDENTIFIER).
fn lost_record(id: u64, lost: u64, misc: u16) -> Vec<u8> {
    record(13, misc, &[lost, 0, 0, 0, id], &[])
}

/// `PERF_RECORD_ID_INDEX` of `(id, cpu)`.
fn id_index(ids: &[(u64, u64)]) -> Vec<u8> {
    let mut body = vec![ids.len() as u64];
    for (n, (id, cpu)) in ids.iter().enumerate() {
        body.extend([*id, n as u64, *cpu, u64::MAX]);
    }
    record(69, 0, &body, &[])
}

#[test]
fn perf_data_lost_samples_per_cpu() {
    // AUX data that looks like a LOST_SAMPLES record, which must be skipped.
    let fake = lost_record(10, 1000, 0);
    let aux = record(71, 0, &[fake.len() as u64, 0, 0, 0, 0], &[]);
    let f = perf_data(&[
        id_index(&[(10, 0), (11, 1), (20, 0)]),
        [aux, fake].concat(),
        lost_record(11, 7, 0),
        lost_record(11, 5, 1 << 15),
        lost_record(99, 1, 0),
    ]);
    let m = perf_data::lost_per_cpu(&f).unwrap();
    assert_eq!(m, BTreeMap::from([(-1, 1), (1, 7)]));
    assert!(perf_data::lost_per_cpu(&f[..f.len() - 3]).is_err());
    assert!(perf_data::lost_per_cpu(b"PERFILE1").is_err());
}

#[test]
fn hypervisor_loss_per_cpu_from_perf_data() {
    // cpu 0 published 60 and 50 were decoded; cpu 1 published and decoded 50.
    let run = |lost: &[(u64, u64, u64)], name: &str| {
        let ids: Vec<(u64, u64)> = lost.iter().map(|(id, cpu, _)| (*id, *cpu)).collect();
        let mut recs = vec![id_index(&ids)];
        recs.extend(lost.iter().map(|(id, _, n)| lost_record(*id, *n, 0)));
        let path = std::env::temp_dir().join(format!("dtl_check-{}-{name}", std::process::id()));
        std::fs::write(&path, perf_data(&recs)).unwrap();
        let p = path.to_str().unwrap().to_string();
        let k = kvm_check(
            kvm_script(2, 50, |_| 0),
            kvm_dmesg(&[60, 50]),
            100,
            10,
            &["--perf-data", &p],
        );
        std::fs::remove_file(&path).unwrap();
        k
    };
    let same = "the lost samples perf recorded are the driver's reported losses";
    let per_cpu = "per CPU, published = decoded + lost samples in perf.data";
    let k = run(&[(4, 0, 10), (5, 1, 0)], "right");
    assert_eq!(k.failed, 0, "{}", k.out);
    assert!(k.out.contains(&format!("ok 8 {same}")), "{}", k.out);
    assert!(k.out.contains(&format!("ok 9 {per_cpu}")), "{}", k.out);
    // The right total on the wrong CPU, or split over both.
    for (name, lost) in [
        ("wrong", [(4, 1, 10), (5, 0, 0)]),
        ("split", [(4, 0, 5), (5, 1, 5)]),
    ] {
        let k = run(&lost, name);
        assert!(k.out.contains(&format!("ok 8 {same}")), "{}", k.out);
        assert!(k.out.contains(&format!("not ok 9 {per_cpu}")), "{}", k.out);
    }
    // Fewer lost samples than the driver reported.
    let k = run(&[(4, 0, 9)], "short");
    assert!(k.out.contains(&format!("not ok 8 {same}")), "{}", k.out);
    assert!(k.out.contains(&format!("not ok 9 {per_cpu}")), "{}", k.out);
}
