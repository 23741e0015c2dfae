// SPDX-License-Identifier: GPL-2.0

//! `dtl_check`: verifies a `vpa_dtl` capture end to end.
//!
//! Inputs: the output of stock `perf script` for the capture (one or more
//! files), the kernel log (for the simulator's `session:` and `clock:`
//! lines: what it injected per CPU, and when), the generator seed, and the
//! driver's loss counters for the run. Every decoded entry must be one the
//! simulator wrote (recomputed field by field from the shared generator),
//! each at most once and in order per CPU, and the identity injected =
//! captured + lost must hold exactly, with the missing sequence numbers
//! accounting for the loss. Prints KTAP case lines and a final
//! `injected=N captured=C lost=L` line.
//!
//! ```text
//! dtl_check --script perf-script.txt --dmesg dmesg.txt --seed 7 \
//!           --lost-overrun 0 --lost-aux 0 --captured 5190
//! ```
//!
//! `--captured auto` takes perf's count, for drivers that keep no counters.
//!
//! Options beyond those:
//!
//! - `--script` may be given several times (`perf record --switch-output`
//!   writes several files, each decoded separately; give them in recording
//!   order): no entry may appear in two of them, and their union is checked.
//! - `--clock`: every decoded entry's time is compared with the simulator's
//!   clock bracket of its session (see `clock.rs`), per file; the case
//!   `timestamps within 1000 ns of the simulator's clock` and a line
//!   `timestamp error: max X ns over N entries (bracket Y ns)`.
//!   `--tb-freq F` is the timebase frequency (default 512000000, QEMU's).
//! - `--window`: the reader shares the ring with other readers, so only the
//!   entries from each CPU's first to its last decoded sequence number are
//!   expected, and only those of the kinds `--keep-mask K` (default 7, the
//!   kinds the event asked for); `--write-mask M` is the enable mask in
//!   effect while they were written (default: each session's logged mask),
//!   used to recompute the fields (outside window mode too). Entries of
//!   other kinds must have been filtered: decoding one is a failure. The
//!   identity is then expected = captured + lost, where the final line's
//!   `injected=` is the expected count. Masks are decimal or `0x` hex.
//!   Entries lost before a CPU's first decoded one fall outside its window:
//!   a driver that counts them lost fails the identity.

mod check;
mod clock;
mod dmesg;
mod perf_data;
mod real;
mod script;

// `image` is the simulator's; the checker only recomputes the fields.
#[allow(dead_code)]
#[path = "../../dtl_sim/gen.rs"]
mod gen;

#[cfg(test)]
mod gen_tests;

/// Numbers KTAP cases and counts failures; collects the output.
#[derive(Default)]
struct Ktap {
    n: usize,
    failed: usize,
    out: String,
}

impl Ktap {
    fn line(&mut self, l: &str) {
        self.out.push_str(l);
        self.out.push('\n');
    }

    fn case(&mut self, ok: bool, name: &str, detail: &str) {
        self.n += 1;
        let l = format!("{}ok {} {}", if ok { "" } else { "not " }, self.n, name);
        self.line(&l);
        if !ok {
            self.failed += 1;
            self.line(&format!("# {detail}"));
        }
    }
}

fn arg(args: &[String], key: &str) -> Option<String> {
    args.iter()
        .position(|a| a == key)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// Every value of a repeatable option.
fn args_of(args: &[String], key: &str) -> Vec<String> {
    args.windows(2)
        .filter(|w| w[0] == key)
        .map(|w| w[1].clone())
        .collect()
}

/// A mask, decimal or `0x` hex.
fn parse_mask(s: &str) -> Option<u8> {
    match s.strip_prefix("0x") {
        Some(h) => u8::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn brief(v: &[String]) -> String {
    v.iter().take(5).cloned().collect::<Vec<_>>().join("; ")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {p}: {e}"));
    let k = run(&args, read);
    print!("{}", k.out);
    std::process::exit(i32::from(k.failed > 0));
}

/// The whole check; `read` gives a file's contents.
fn run(args: &[String], read: impl Fn(&str) -> String) -> Ktap {
    let need = |k: &str| arg(args, k).unwrap_or_else(|| panic!("missing {k}"));
    let flag = |k: &str| args.iter().any(|a| a == k);
    let mask_opt = |k: &str| arg(args, k).map(|m| parse_mask(&m).unwrap_or_else(|| panic!("{k}")));
    let paths = args_of(args, "--script");
    assert!(!paths.is_empty(), "missing --script");
    let dmesg = read(&need("--dmesg"));
    if flag("--hypervisor") {
        return run_real(args, &paths, &dmesg, read);
    }
    let seed: u64 = need("--seed").parse().expect("--seed");
    // "auto": the driver does not count (the upstream C reference).
    let captured_arg = need("--captured");
    let lost: u64 = need("--lost-overrun").parse::<u64>().expect("n")
        + need("--lost-aux").parse::<u64>().expect("n");
    let label = arg(args, "--label").unwrap_or_default();
    let tb_freq: u64 =
        arg(args, "--tb-freq").map_or(512_000_000, |f| f.parse().expect("--tb-freq"));
    let window = flag("--window");
    let write_mask = mask_opt("--write-mask");
    let keep = mask_opt("--keep-mask").unwrap_or(7);
    let mut k = Ktap::default();

    let mut scripts = Vec::new();
    for p in &paths {
        match script::parse_script(&read(p)) {
            Ok(d) => scripts.push(d),
            Err(e) => {
                let e = format!("{p}: {e}");
                k.case(false, &format!("{label}perf script output parses"), &e);
                return k;
            }
        }
    }
    let decoded: Vec<script::Decoded> = scripts.iter().flatten().cloned().collect();
    let sessions = dmesg::parse_sessions(&dmesg);
    let injected: u64 = sessions.iter().map(|s| s.end - s.first).sum();
    k.case(
        injected > 0,
        &format!("{label}the simulator injected entries"),
        "no session lines",
    );

    let mismatches = check::field_mismatches(&decoded, &sessions, seed, write_mask);
    k.case(
        mismatches.is_empty(),
        &format!("{label}every decoded entry matches the injected one field by field"),
        &brief(&mismatches),
    );
    if window {
        let foreign = check::foreign_kinds(&decoded, keep);
        k.case(
            foreign.is_empty(),
            &format!("{label}every decoded entry is of a kind the event asked for"),
            &brief(&foreign),
        );
    }
    let order = check::order_problems(&decoded);
    k.case(
        order.is_empty(),
        &format!("{label}entries appear once, in order, per CPU"),
        &brief(&order),
    );
    if scripts.len() > 1 {
        let dups = check::duplicates_across(&scripts);
        k.case(
            dups.is_empty(),
            &format!("{label}no entry appears in two perf.data files"),
            &brief(&dups),
        );
    }
    if flag("--clock") {
        for (i, d) in scripts.iter().enumerate() {
            let which = if scripts.len() > 1 {
                format!("{} ({}): ", i + 1, paths[i])
            } else {
                String::new()
            };
            let t = clock::check_timestamps(d, &sessions, tb_freq);
            k.line(&format!("{which}{}", t.summary()));
            k.case(
                t.ok(),
                &format!(
                    "{label}{which}timestamps within {} ns of the simulator's clock",
                    clock::LIMIT_NS
                ),
                &t.detail(),
            );
        }
    }

    let captured = decoded.len() as u64;
    let captured_driver = if captured_arg == "auto" {
        captured
    } else {
        captured_arg.parse().expect("--captured")
    };
    k.case(
        captured == captured_driver,
        &format!("{label}perf decoded what the driver captured"),
        &format!("perf {captured}, driver {captured_driver}"),
    );
    let (acc, what) = if window {
        let a = check::account_window(&decoded, &sessions, seed, write_mask, keep);
        (a, "entries of the asked kinds in the windows")
    } else {
        (check::account_all(&decoded, &sessions), "injected")
    };
    for w in &acc.windows {
        k.line(w);
    }
    let expected = acc.expected;
    k.case(
        expected == captured + lost,
        &format!("{label}{what} = captured + reported lost"),
        &format!("{what} {expected}, captured {captured}, lost {lost}"),
    );
    k.case(
        acc.missing == lost,
        &format!("{label}the missing entries are exactly the reported losses"),
        &format!("missing {}, reported {lost}", acc.missing),
    );
    if window && decoded.is_empty() {
        k.line("window: no decoded entries");
    }
    k.line(&format!(
        "injected={expected} captured={captured} lost={lost}"
    ));
    k
}

/// `--hypervisor` (see `real.rs`): `--captured`, `--lost-overrun` and
/// `--lost-aux` as in the simulator's mode, `--dispatch-reason`,
/// `--partial-cpus` (comma-separated, possibly empty) and `--perf-data FILE`
/// (the capture's `perf.data`, for the lost samples per CPU) optional.
fn run_real(args: &[String], paths: &[String], dmesg: &str, read: impl Fn(&str) -> String) -> Ktap {
    let num = |k: &str| -> u64 {
        arg(args, k)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{k}"))
    };
    let label = arg(args, "--label").unwrap_or_default();
    let dispatch = arg(args, "--dispatch-reason");
    let tb_freq = arg(args, "--tb-freq").map_or(512_000_000, |f| f.parse().expect("--tb-freq"));
    let mut k = Ktap::default();
    let mut decoded = Vec::new();
    for p in paths {
        match script::parse_script(&read(p)) {
            Ok(d) => decoded.extend(d),
            Err(e) => {
                k.case(
                    false,
                    &format!("{label}perf script output parses"),
                    &format!("{p}: {e}"),
                );
                return k;
            }
        }
    }
    let lost_per_cpu = match arg(args, "--perf-data").map(|p| {
        std::fs::read(&p)
            .map_err(|e| e.to_string())
            .and_then(|f| perf_data::lost_per_cpu(&f))
            .map_err(|e| format!("{p}: {e}"))
    }) {
        Some(Err(e)) => {
            k.case(false, &format!("{label}perf.data parses"), &e);
            return k;
        }
        Some(Ok(m)) => Some(m),
        None => None,
    };
    let sessions = dmesg::parse_sessions(dmesg);
    real::check(
        &mut k,
        &real::Inputs {
            label: &label,
            decoded: &decoded,
            sessions: &sessions,
            dispatch: dispatch.as_deref(),
            captured: num("--captured"),
            lost: num("--lost-overrun") + num("--lost-aux"),
            tb_freq,
            shared: args.iter().any(|a| a == "--shared"),
            partial_cpus: arg(args, "--partial-cpus").map(|l| {
                l.split(',')
                    .filter(|c| !c.is_empty())
                    .map(|c| c.parse().expect("--partial-cpus"))
                    .collect()
            }),
            lost_per_cpu,
        },
    );
    k
}

#[cfg(test)]
mod tests;
