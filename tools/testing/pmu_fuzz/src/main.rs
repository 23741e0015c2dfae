// SPDX-License-Identifier: GPL-2.0

//! `pmu_fuzz`: a seeded, stateful `perf_event_open` fuzzer for one PMU.
//!
//! It opens events (mostly within the PMU's documented contract, some with
//! one rule broken, some mutated at random, and software siblings), maps
//! rings and AUX areas, issues every perf ioctl, reads with every
//! `read_format`, closes in any order, forks children that hold and use the
//! descriptors, takes CPUs offline and online, and tries to unload and reload
//! the module. Every answer is checked against the contract: an errno the
//! call may return, a refusal where the documentation requires one,
//! monotonic counts and times, stable ids, a module that never unloads under
//! an open event. The run is a function of the seed and the kernel's
//! answers; a failure prints the seed, the last operations and a replay line.
//!
//! ```text
//! pmu_fuzz --pmu l3c0 --kind counting --seed 1 --ops 100000 \
//!          [--hotplug] [--module xgene_pmu:/lib/modules/rpmu/xgene_pmu.ko] \
//!          [--unbind xgene_pmu:7e000000.pmu] \
//!          [--log /tmp/fuzz.log] [--core-bugs] [--event NAME]
//! ```
//!
//! `--event NAME` opens valid events of that `events/` alias only (vpa_dtl
//! in a KVM guest takes `dtl_all` alone; the other aliases are refused).

mod control;
mod fuzz;
mod kmsg;
mod rng;
mod state;
mod sys;
mod target;

use fuzz::{Fuzzer, Options};
use std::collections::BTreeMap;
use target::{Kind, Target};

fn usage() -> ! {
    eprintln!("usage: pmu_fuzz --pmu NAME --kind aux|counting --seed N --ops N [--hotplug] [--module NAME:PATH] [--unbind DRIVER:DEVICE] [--params P] [--log FILE] [--core-bugs] [--no-kmsg] [--reference] [--event NAME]");
    std::process::exit(2)
}

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .unwrap_or_else(|_| usage())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mut pmu, mut kind, mut seed, mut ops, mut log) = (None, None, 1u64, 10_000u64, None);
    let mut no_kmsg = false;
    let mut o = Options {
        module: None,
        unbind: None,
        params: String::new(),
        hotplug: false,
        core_bugs: false,
        reference: false,
        only_event: None,
        diffs: Default::default(),
    };
    let mut i = 1;
    while i < args.len() {
        let val = || args.get(i + 1).cloned().unwrap_or_else(|| usage());
        match args[i].as_str() {
            "--pmu" => pmu = Some(val()),
            "--kind" => {
                kind = Some(match val().as_str() {
                    "aux" => Kind::AuxSampling,
                    "counting" => Kind::Counting,
                    _ => usage(),
                })
            }
            "--seed" => seed = num(&val()),
            "--ops" => ops = num(&val()),
            "--log" => log = Some(val()),
            "--params" => o.params = val(),
            "--module" => {
                let v = val();
                let (n, p) = v.split_once(':').unwrap_or_else(|| usage());
                o.module = Some((n.into(), p.into()));
            }
            "--unbind" => {
                let v = val();
                let (d, dev) = v.split_once(':').unwrap_or_else(|| usage());
                o.unbind = Some((d.into(), dev.into()));
            }
            "--hotplug" => {
                o.hotplug = true;
                i -= 1;
            }
            "--core-bugs" => {
                o.core_bugs = true;
                i -= 1;
            }
            "--reference" => {
                o.reference = true;
                i -= 1;
            }
            "--event" => o.only_event = Some(val()),
            "--no-kmsg" => {
                no_kmsg = true;
                i -= 1;
            }
            _ => usage(),
        }
        i += 2;
    }
    let (Some(pmu), Some(kind)) = (pmu, kind) else {
        usage()
    };
    let replay = {
        let mut r = format!(
            "pmu_fuzz --pmu {pmu} --kind {} --seed {seed:#x} --ops {ops}",
            if kind == Kind::AuxSampling {
                "aux"
            } else {
                "counting"
            }
        );
        if o.hotplug {
            r += " --hotplug";
        }
        if let Some((n, p)) = &o.module {
            r += &format!(" --module {n}:{p}");
        }
        if let Some((d, dev)) = &o.unbind {
            r += &format!(" --unbind {d}:{dev}");
        }
        if !o.params.is_empty() {
            r += &format!(" --params '{}'", o.params);
        }
        if o.core_bugs {
            r += " --core-bugs";
        }
        if no_kmsg {
            r += " --no-kmsg";
        }
        if let Some(e) = &o.only_event {
            r += &format!(" --event {e}");
        }
        r
    };
    let t = Target::load(&pmu, kind, o.only_event.as_deref()).unwrap_or_else(|e| {
        eprintln!("pmu_fuzz: {e}");
        std::process::exit(2)
    });
    let ncpus = std::fs::read_to_string("/sys/devices/system/cpu/present")
        .ok()
        .and_then(|s| {
            s.trim()
                .rsplit(['-', ','])
                .next()
                .and_then(|n| n.parse::<i32>().ok())
        })
        .map_or(1, |n| n + 1);
    let log = log.map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("log file")));
    let mut f = Fuzzer {
        t,
        r: rng::Rng::new(seed),
        s: state::State {
            ncpus,
            ..Default::default()
        },
        o: &o,
        pg: sys::page_size(),
        n: 0,
        tail: Vec::new(),
        log,
        violation: None,
        history: Default::default(),
        micros: BTreeMap::new(),
        last_op: "",
        kmsg: if no_kmsg {
            kmsg::Kmsg::none()
        } else {
            kmsg::Kmsg::open()
        },
        last_fd: None,
        tally: BTreeMap::new(),
    };
    let start = std::time::Instant::now();
    while f.n < ops && f.violation.is_none() {
        f.step();
    }
    if f.violation.is_none() {
        f.finish();
    } else {
        f.reap(true);
        f.online_all();
    }
    if f.violation.is_none() && ops >= 10_000 {
        f.coverage();
    }
    if let Some(w) = f.log.as_mut() {
        use std::io::Write;
        let _ = w.flush();
    }
    for (op, answers) in &f.tally {
        let a: Vec<String> = answers.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let n: u64 = answers.values().sum();
        let us = f.micros.get(op).copied().unwrap_or(0);
        println!(
            "pmu_fuzz: {op:>18}: {} ({} us/op)",
            a.join(" "),
            us / n.max(1)
        );
    }
    let secs = start.elapsed().as_secs_f64();
    match &f.violation {
        None => println!(
            "pmu_fuzz: ok pmu={pmu} seed={seed:#x} ops={} in {secs:.1} s{}",
            f.n,
            if o.reference {
                format!(
                    " (reference driver: {} departures from the contract)",
                    o.diffs.get()
                )
            } else {
                String::new()
            }
        ),
        Some(v) => {
            println!("pmu_fuzz: last operations:");
            for l in &f.tail {
                println!("pmu_fuzz:   {l}");
            }
            // The descriptor of the failing operation, and its group leader.
            let fd = f.last_fd.unwrap_or(-1);
            let leader = f.s.evs.iter().find(|e| e.fd == fd).map_or(fd, |e| e.leader);
            let mut fds = vec![fd];
            if leader != fd {
                fds.push(leader);
            }
            for fd in fds {
                if let Some(h) = f.history.get(&fd) {
                    println!("pmu_fuzz: history of fd {fd}:");
                    for l in h {
                        println!("pmu_fuzz:   {l}");
                    }
                }
            }
            println!("pmu_fuzz: FAIL pmu={pmu} seed={seed:#x} at {v}");
            println!("pmu_fuzz: replay: {replay}");
            std::process::exit(1);
        }
    }
}
