// SPDX-License-Identifier: GPL-2.0

//! The operations and the oracle. Each operation draws its arguments from
//! the generator, makes the call, logs one line, and checks the answer
//! against what the perf core contract and the PMU's documentation allow.

use crate::rng::Rng;
use crate::state::{Ev, Map, State};
use crate::sys::{self, errname, page, Res};
use crate::target::{Class, Kind, Target};
use libc::{E2BIG, EACCES, EBUSY, EINVAL, EMFILE, ENODEV, ENOENT, ENOMEM, EOPNOTSUPP, EPERM};
use std::collections::BTreeMap;

/// Errnos any refused open may carry under the perf core contract.
const OPEN_REFUSALS: &[i32] = &[
    EINVAL, ENOENT, EOPNOTSUPP, EACCES, EPERM, E2BIG, EBUSY, ENODEV, EMFILE,
];
const MAX_EVENTS: usize = 48;
pub(crate) const MAX_CHILDREN: usize = 4;

pub struct Options {
    pub module: Option<(String, String)>,
    /// The platform driver and device of the PMU, for unbind attempts.
    pub unbind: Option<(String, String)>,
    pub params: String,
    pub hotplug: bool,
    /// Also provoke a Linux 7.3.4 perf core defect that is not the PMU's
    /// (off by default): AUX-mapping through a SET_OUTPUT alias with no ring
    /// mapping of its own (a refcount WARN).
    pub core_bugs: bool,
    /// Fuzzing a reference driver: see `Fuzzer::fail`.
    pub reference: bool,
    /// `--event NAME`: the only `events/` alias opened as valid.
    pub only_event: Option<String>,
    pub diffs: std::cell::Cell<u64>,
}

pub struct Fuzzer<'a> {
    pub t: Target,
    pub r: Rng,
    pub s: State,
    pub o: &'a Options,
    pub pg: usize,
    pub n: u64,
    pub tail: Vec<String>,
    pub log: Option<std::io::BufWriter<std::fs::File>>,
    pub violation: Option<String>,
    /// The last operations on each descriptor, and the last descriptor used.
    pub history: std::collections::HashMap<i32, Vec<String>>,
    pub last_fd: Option<i32>,
    /// Per operation: answers seen (`ok` or an errno name) and their counts.
    pub tally: BTreeMap<&'static str, BTreeMap<&'static str, u64>>,
    /// Per operation: microseconds spent, and the last operation noted.
    pub micros: BTreeMap<&'static str, u64>,
    pub last_op: &'static str,
    pub kmsg: crate::kmsg::Kmsg,
}

impl Fuzzer<'_> {
    pub(crate) fn note(&mut self, op: &'static str, what: String, res: &Res) {
        let ans = match res {
            Ok(_) => "ok",
            Err(e) => errname(*e),
        };
        *self.tally.entry(op).or_default().entry(ans).or_default() += 1;
        self.last_op = op;
        let line = format!("{} {} {} -> {}", self.n, op, what, ans);
        // The history of the descriptor the operation used (or opened).
        let fd = match (op, res) {
            ("open", Ok(fd)) => Some(*fd as i32),
            _ => what
                .strip_prefix("fd=")
                .and_then(|w| w.split(' ').next())
                .and_then(|n| n.parse().ok()),
        };
        self.last_fd = fd;
        if let Some(fd) = fd {
            let h = self.history.entry(fd).or_default();
            if op == "open" {
                h.clear();
            }
            if h.len() == 24 {
                h.remove(0);
            }
            h.push(line.clone());
        }
        if let Some(w) = self.log.as_mut() {
            use std::io::Write;
            let _ = writeln!(w, "{line}");
        }
        if self.tail.len() == 64 {
            self.tail.remove(0);
        }
        self.tail.push(line);
    }

    pub(crate) fn fail(&mut self, why: String) {
        // A reference driver (the upstream C one) is held to the kernel's
        // memory-safety detectors only; its departures from our contract,
        // and its warnings, are counted.
        if self.o.reference && (!why.starts_with("kernel report") || why.contains("WARNING:")) {
            if self.o.diffs.get() < 10 {
                println!("DIFF pmu_fuzz op {}: {why}", self.n);
            }
            self.o.diffs.set(self.o.diffs.get() + 1);
            return;
        }
        if self.violation.is_none() {
            self.violation = Some(format!("op {}: {}", self.n, why));
        }
    }

    pub(crate) fn expect(&mut self, op: &str, res: &Res, allowed: &[i32]) {
        if let Err(e) = res {
            if !allowed.contains(e) {
                self.fail(format!(
                    "{op} returned {} ({e}), outside the contract {:?}",
                    errname(*e),
                    allowed.iter().map(|e| errname(*e)).collect::<Vec<_>>()
                ));
            }
        }
    }

    pub(crate) fn pick_ev(&mut self) -> Option<usize> {
        if self.s.evs.is_empty() {
            None
        } else {
            Some(self.r.below(self.s.evs.len() as u64) as usize)
        }
    }

    /// One random operation, timed.
    pub fn step(&mut self) {
        let t = std::time::Instant::now();
        self.last_op = "";
        self.step_untimed();
        if !self.last_op.is_empty() {
            *self.micros.entry(self.last_op).or_default() += t.elapsed().as_micros() as u64;
        }
        if let Some(r) = self.kmsg.report() {
            self.fail(format!("kernel report after this operation: {r}"));
        }
    }

    fn step_untimed(&mut self) {
        self.n += 1;
        let full = self.s.evs.len() >= MAX_EVENTS;
        // The system-wide operations are slow (a CPU hotplug cycle takes
        // tens of milliseconds): a few per thousand.
        if self.o.hotplug && self.r.below(1000) < 3 {
            return self.hotplug();
        }
        if self.o.module.is_some() && self.r.below(1000) < 2 {
            return self.module();
        }
        if self.o.unbind.is_some() && self.r.below(1000) < 2 {
            return self.unbind();
        }
        match self.r.below(100) {
            0..=24 if !full => self.open(),
            0..=24 => self.close(),
            25..=34 => self.mmap_ring(),
            35..=42 => self.mmap_aux(),
            43..=46 => self.munmap(),
            47..=51 => self.consume(),
            52..=71 => self.ioctl(),
            72..=81 => self.read(),
            82..=89 => self.close(),
            90 => self.fork(),
            91..=92 => self.reap(false),
            _ => self.read(),
        }
    }

    fn open(&mut self) {
        let cpus = self.s.online();
        let mut o = match self.r.below(100) {
            0..=44 => self.t.valid(&mut self.r, &cpus),
            45..=59 => self.t.invalid(&mut self.r, &cpus),
            60..=84 => self.t.random(&mut self.r, &cpus),
            _ => self.t.software(&mut self.r, &cpus),
        };
        let ours = o.attr.type_ == self.t.ty;
        let mut group = -1;
        if self.r.chance(30) {
            if let Some(i) = self.pick_ev() {
                // A leader whose CPU went offline may be out of its
                // context: joining it fails with ENODEV (patches/0004).
                let l = &self.s.evs[i];
                group = l.leader;
                if matches!(o.class, Class::Valid) {
                    o.cpu = self.s.evs[self.s.find(l.leader).unwrap_or(i)].cpu;
                }
            }
        }
        let res = sys::perf_event_open(
            &o.attr, o.pid, o.cpu, group, 8, /* PERF_FLAG_FD_CLOEXEC */
        );
        self.note("open", format!("{:?} type={} config={:#x} config1={:#x} period={} st={:#x} rf={:#x} flags={:#x} size={} aux_wm={} aux_ss={} aux_act={} cpu={} pid={} group={}",
            o.class, o.attr.type_, o.attr.config, o.attr.config1, o.attr.sample_period, o.attr.sample_type,
            o.attr.read_format, o.attr.flags, o.attr.size, o.attr.aux_watermark, o.attr.aux_sample_size,
            o.attr.aux_action, o.cpu, o.pid, group), &res);
        match (o.class, &res) {
            (Class::Invalid(why), Ok(_)) if ours => self.fail(format!(
                "open accepted an event the contract refuses: {why}"
            )),
            (Class::Invalid(_), Err(e))
                if ours && ![EINVAL, EOPNOTSUPP, ENOENT, EACCES].contains(e) =>
            {
                self.fail(format!(
                    "a refused open returned {} instead of a documented errno",
                    errname(*e)
                ))
            }
            (Class::Valid, Err(e)) if ours && group < 0 => {
                let capacity: &[i32] = match self.t.kind {
                    Kind::AuxSampling => &[EBUSY, ENODEV, EMFILE],
                    Kind::Counting => &[ENODEV, EMFILE],
                };
                if !capacity.contains(e) {
                    self.fail(format!("a valid open was refused with {}", errname(*e)));
                }
            }
            _ => self.expect("open", &res, OPEN_REFUSALS),
        }
        if let Ok(fd) = res {
            let fd = fd as i32;
            let leader = if group >= 0 { group } else { fd };
            let mut e = Ev::new(fd, ours, o.attr, o.cpu, leader);
            if let Some(l) = self.s.find(leader) {
                e.may_error |= self.s.evs[l].may_error;
            }
            self.s.evs.push(e);
        }
    }

    fn close(&mut self) {
        let Some(i) = self.pick_ev() else { return };
        let mut e = self.s.evs.remove(i);
        e.release();
        // Siblings of a closed leader become singletons (perf core) once
        // the last holder of the leader lets go: maybe a child, later.
        let held = !self.s.children.is_empty();
        for x in self.s.evs.iter_mut().filter(|x| x.leader == e.fd) {
            x.leader = x.fd;
            x.forget();
            x.orphaned |= held;
        }
        self.note("close", format!("fd={}", e.fd), &Ok(0));
    }

    fn mmap_ring(&mut self) {
        let Some(i) = self.pick_ev() else { return };
        if self.s.evs[i].ring.is_some() {
            return self.munmap();
        }
        let pages = match self.r.below(10) {
            0 => *self.r.pick(&[0usize, 4, 6]),
            _ => 1 + (1usize << self.r.below(4)),
        };
        let write = self.r.chance(85);
        let fd = self.s.evs[i].fd;
        let res = sys::mmap(fd, pages * self.pg, 0, write).map(|a| a as i64);
        self.note(
            "mmap_ring",
            format!("fd={fd} pages={pages} write={write}"),
            &res,
        );
        let shape_ok = pages == 1 || (pages > 1 && (pages - 1).is_power_of_two());
        if !shape_ok && res.is_ok() {
            self.fail(format!(
                "a ring of {pages} pages was mapped (must be 1 + 2^n)"
            ));
        }
        self.expect("mmap_ring", &res, &[EINVAL, EPERM, ENOMEM, EBUSY]);
        if let Ok(a) = res {
            self.s.evs[i].ring = Some(Map {
                addr: a as usize,
                len: pages * self.pg,
                write,
            });
        }
    }

    fn mmap_aux(&mut self) {
        let Some(i) = self.pick_ev() else { return };
        let e = &self.s.evs[i];
        if e.aux.is_some() {
            return self.munmap();
        }
        // The AUX area is described in the user page, which needs a
        // writable ring mapping of this very descriptor (see `core_bugs`).
        let Some(ring) = e.ring.filter(|m| m.write) else {
            if self.o.core_bugs && e.ring.is_none() {
                let fd = e.fd;
                let res = sys::mmap(fd, self.pg, 2 * self.pg, true).map(|a| a as i64);
                self.note("mmap_aux_alias", format!("fd={fd}"), &res);
                if let Ok(a) = res {
                    sys::munmap(a as usize, self.pg);
                }
            }
            return;
        };
        let fd = e.fd;
        let pages = if self.r.chance(10) {
            *self.r.pick(&[3usize, 5, 6])
        } else {
            1 << self.r.below(5)
        };
        let write = self.r.chance(80);
        let len = pages * self.pg;
        sys::poke(ring.addr, page::AUX_OFFSET, ring.len as u64);
        sys::poke(ring.addr, page::AUX_SIZE, len as u64);
        let res = sys::mmap(fd, len, ring.len, write).map(|a| a as i64);
        self.note(
            "mmap_aux",
            format!("fd={fd} pages={pages} write={write}"),
            &res,
        );
        if !pages.is_power_of_two() && res.is_ok() {
            self.fail(format!(
                "an AUX area of {pages} pages was mapped (must be 2^n)"
            ));
        }
        if self.t.kind == Kind::Counting && self.s.evs[i].ours && res.is_ok() {
            self.fail("a counting PMU accepted an AUX area".into());
        }
        self.expect(
            "mmap_aux",
            &res,
            &[EINVAL, EPERM, ENOMEM, EBUSY, EOPNOTSUPP],
        );
        if let Ok(a) = res {
            self.s.evs[i].aux = Some(Map {
                addr: a as usize,
                len,
                write,
            });
        }
    }

    fn munmap(&mut self) {
        let Some(i) = self.pick_ev() else { return };
        let e = &mut self.s.evs[i];
        // The ring may go first: perf keeps the buffer while the AUX area lives.
        let m = if self.r.chance(50) {
            e.ring.take().or_else(|| e.aux.take())
        } else {
            e.aux.take().or_else(|| e.ring.take())
        };
        if let Some(m) = m {
            let fd = e.fd;
            sys::munmap(m.addr, m.len);
            self.note("munmap", format!("fd={fd} len={}", m.len), &Ok(0));
        }
    }

    fn consume(&mut self) {
        let Some(i) = self.pick_ev() else { return };
        let e = &self.s.evs[i];
        if let Some(r) = e.ring.filter(|m| m.write) {
            let h = sys::peek(r.addr, page::DATA_HEAD);
            sys::poke(r.addr, page::DATA_TAIL, h);
            if e.aux.is_some() {
                let ah = sys::peek(r.addr, page::AUX_HEAD);
                sys::poke(r.addr, page::AUX_TAIL, ah);
            }
            let fd = e.fd;
            self.note("consume", format!("fd={fd} head={h}"), &Ok(0));
        }
    }
}
