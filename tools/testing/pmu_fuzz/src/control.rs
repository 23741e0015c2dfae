// SPDX-License-Identifier: GPL-2.0

//! The operations on open events (ioctls, reads), on processes (fork, exit)
//! and on the system (CPU hotplug, module unload and load).

use crate::fuzz::Fuzzer;
use crate::state::parse_read;
use crate::sys::{self, errname, fmt, ioctl, Res};
use crate::target::{Kind, Target};
use libc::{E2BIG, EAGAIN, EBADF, EBUSY, EINVAL, ENOSPC, EOPNOTSUPP};

impl Fuzzer<'_> {
    pub(crate) fn ioctl(&mut self) {
        let Some(i) = self.pick_ev() else { return };
        let fd = self.s.evs[i].fd;
        let leader = self.s.evs[i].leader;
        let group = if self.r.chance(30) {
            ioctl::FLAG_GROUP
        } else {
            0
        };
        match self.r.below(9) {
            k @ 0..=2 => {
                let (name, req) = [
                    ("enable", ioctl::ENABLE),
                    ("disable", ioctl::DISABLE),
                    ("reset", ioctl::RESET),
                ][k as usize];
                let res = sys::ioctl_int(fd, req, group);
                self.note(name, format!("fd={fd} group={group}"), &res);
                self.expect(name, &res, &[]);
                if req == ioctl::RESET {
                    self.s.forget_group(leader);
                }
            }
            3 => {
                let n = self.r.edgy(8);
                let res = sys::ioctl_int(fd, ioctl::REFRESH, n);
                self.note("refresh", format!("fd={fd} n={n}"), &res);
                self.expect("refresh", &res, &[EINVAL]);
            }
            4 => {
                let mut p: u64 = match self.r.below(4) {
                    0 => self.r.edgy(64),
                    _ => *self
                        .r
                        .pick(&[1u64, 1000, 1_000_000, 10_000_000, 100_000_000]),
                };
                let v = p;
                let res = sys::ioctl_ptr(fd, ioctl::PERIOD, &mut p);
                self.note("period", format!("fd={fd} period={v}"), &res);
                self.expect("period", &res, &[EINVAL]);
                if self.s.evs[i].ours && self.t.kind == Kind::Counting && res.is_ok() {
                    self.fail("PERIOD accepted on a counting event".into());
                }
            }
            5 => {
                let other = match self.r.below(4) {
                    0 => -1,
                    1 => 1000,
                    _ => self.pick_ev().map(|j| self.s.evs[j].fd).unwrap_or(-1),
                };
                let res = sys::ioctl_int(fd, ioctl::SET_OUTPUT, other as i64 as u64);
                self.note("set_output", format!("fd={fd} to={other}"), &res);
                self.expect("set_output", &res, &[EINVAL, EBADF, EBUSY]);
            }
            6 => {
                let v = self.r.below(3);
                let res = sys::ioctl_int(fd, ioctl::PAUSE_OUTPUT, v);
                self.note("pause_output", format!("fd={fd} pause={v}"), &res);
                self.expect("pause_output", &res, &[EINVAL]);
            }
            7 => {
                let mut a = self.s.evs[i].attr;
                if self.r.chance(50) {
                    a.config = self.r.edgy(16);
                    a.sample_period = self.r.edgy(32);
                }
                let res = sys::ioctl_ptr(fd, ioctl::MODIFY_ATTRIBUTES, &mut a);
                self.note("modify_attributes", format!("fd={fd}"), &res);
                // Only breakpoints can be modified (perf core).
                if res.is_ok() {
                    self.fail("MODIFY_ATTRIBUTES succeeded on a non-breakpoint event".into());
                }
                self.expect("modify_attributes", &res, &[EINVAL, EOPNOTSUPP, E2BIG]);
            }
            _ => {
                let mut id = 0u64;
                let res = sys::ioctl_ptr(fd, ioctl::ID, &mut id);
                self.note("id", format!("fd={fd} id={id}"), &res);
                self.expect("id", &res, &[]);
                let e = &mut self.s.evs[i];
                match e.id {
                    Some(old) if old != id && res.is_ok() => {
                        self.fail(format!("the event id changed from {old} to {id}"))
                    }
                    _ => e.id = Some(id),
                }
            }
        }
    }

    pub(crate) fn read(&mut self) {
        let Some(i) = self.pick_ev() else { return };
        let e = &self.s.evs[i];
        let (fd, rf, may_error, leader) = (e.fd, e.attr.read_format, e.may_error, e.leader);
        let len = if self.r.chance(20) {
            self.r.below(48) as usize
        } else {
            4096
        };
        let mut buf = vec![0u8; len];
        let res = sys::read(fd, &mut buf);
        self.note(
            "read",
            format!("fd={fd} len={len} rf={rf:#x} leader={leader}"),
            &res,
        );
        self.expect("read", &res, &[ENOSPC]);
        match res {
            Err(_) if len == 4096 => self.fail("read into a 4096-byte buffer failed".into()),
            Ok(0) if !may_error => self.fail("read returned 0 bytes from a live event".into()),
            Ok(0) => {}
            Ok(n) => {
                let Some(r) = parse_read(rf & fmt::ALL, &buf[..n as usize]) else {
                    return self.fail(format!(
                        "read returned {n} bytes, not a layout of read_format {rf:#x}"
                    ));
                };
                if self.s.evs[i].orphaned {
                    // Its group breaks up whenever the child holding the old
                    // leader exits: nothing to compare until that child is
                    // reaped.
                    return;
                }
                let e = &self.s.evs[i];
                let (te, tr) = (r.te.unwrap_or(e.seen_te), r.tr.unwrap_or(e.seen_tr));
                let mut bad = None;
                if te < e.seen_te || tr < e.seen_tr {
                    bad = Some(format!(
                        "time went backwards: enabled {} -> {te}, running {} -> {tr}",
                        e.seen_te, e.seen_tr
                    ));
                }
                // A torn pair is forgiven, never a time that went backwards.
                if bad.is_none() && r.te.is_some() && r.tr.is_some() && tr > te {
                    bad = self.torn_times(fd, rf, te, tr);
                }
                let e = &mut self.s.evs[i];
                e.seen_te = te;
                e.seen_tr = tr;
                for (k, v) in r.values {
                    // Without ids, a group's members are known by position,
                    // which closing a sibling shifts: only the leader's
                    // (first) value keeps its meaning.
                    if rf & fmt::ID == 0 && k > 0 {
                        continue;
                    }
                    if let Some(&old) = e.seen.get(&k) {
                        if v < old {
                            bad = Some(format!(
                                "count of fd {fd} (key {k}) went backwards: {old} -> {v}"
                            ));
                        }
                    }
                    e.seen.insert(k, v);
                }
                if let Some(b) = bad {
                    self.fail(b);
                }
            }
            Err(_) => {}
        }
    }

    /// A read showed `time_running` above `time_enabled`. Without
    /// `PERF_FORMAT_GROUP`, perf core loads the two totals after
    /// `perf_event_read()`, without the `ctx->lock` under which the event's
    /// CPU updates them (`__perf_event_read_value()`, Linux 7.3.4), so a read
    /// racing an update can pair the old `time_enabled` with the new
    /// `time_running`. An immediate second read tells that apart from totals
    /// that are really out of order: its `time_enabled` must reach the first
    /// read's `time_running`, and its own pair must be in order. The
    /// failure, if not; the re-read is in the operation log as `read_torn`.
    fn torn_times(&mut self, fd: i32, rf: u64, te: u64, tr: u64) -> Option<String> {
        let mut buf = vec![0u8; 4096];
        let res = sys::read(fd, &mut buf);
        let again = match res {
            Ok(n) => parse_read(rf & fmt::ALL, &buf[..n as usize]).and_then(|r| r.te.zip(r.tr)),
            Err(_) => None,
        };
        let seen = again.map_or("?".into(), |(te2, tr2)| format!("{te2}/{tr2}"));
        self.note(
            "read_torn",
            format!("fd={fd} enabled/running={te}/{tr} then {seen}"),
            &res,
        );
        match again {
            Some(pair) if torn_only(tr, pair) => None,
            Some((te2, tr2)) => Some(format!(
                "time_running {tr} > time_enabled {te}, and an immediate re-read \
                 gave enabled {te2} running {tr2}"
            )),
            None => Some(format!(
                "time_running {tr} > time_enabled {te}, and the re-read failed"
            )),
        }
    }

    /// A child inherits every descriptor, works on some, and exits later,
    /// so events outlive the parent's close.
    pub(crate) fn fork(&mut self) {
        if self.s.children.len() >= crate::fuzz::MAX_CHILDREN {
            return self.reap(false);
        }
        let mut fds: Vec<i32> = self.s.evs.iter().map(|e| e.fd).collect();
        let seed = self.r.next();
        let pid = sys::fork();
        if pid == 0 {
            let mut r = crate::rng::Rng::new(seed);
            let mut code = 0;
            for _ in 0..r.below(20) {
                if fds.is_empty() {
                    break;
                }
                let k = r.below(fds.len() as u64) as usize;
                let fd = fds[k];
                let res = match r.below(5) {
                    0 => sys::ioctl_int(fd, ioctl::ENABLE, 0),
                    1 => sys::ioctl_int(fd, ioctl::DISABLE, 0),
                    2 => {
                        let mut b = [0u8; 4096];
                        sys::read(fd, &mut b)
                    }
                    3 => {
                        sys::close(fds.swap_remove(k));
                        Ok(0)
                    }
                    _ => {
                        std::thread::sleep(std::time::Duration::from_micros(r.below(300)));
                        Ok(0)
                    }
                };
                if let Err(e) = res {
                    eprintln!("pmu_fuzz child: fd {fd}: {}", errname(e));
                    code = 1;
                }
            }
            sys::exit_now(code);
        }
        let res: Res = if pid < 0 {
            Err(libc::EAGAIN)
        } else {
            Ok(pid as i64)
        };
        self.note("fork", format!("pid={pid} fds={}", fds.len()), &res);
        if pid > 0 {
            self.s.children.push(pid);
        }
    }

    pub(crate) fn reap(&mut self, all: bool) {
        while let Some(pid) = if self.s.children.is_empty() {
            None
        } else {
            Some(self.s.children.remove(0))
        } {
            let code = sys::wait(pid);
            for e in self.s.evs.iter_mut().filter(|e| e.orphaned) {
                e.forget();
                e.orphaned = !self.s.children.is_empty();
            }
            self.note("exit", format!("pid={pid} status={code}"), &Ok(0));
            if code != 0 {
                self.fail(format!("child {pid} ended with status {code}"));
            }
            if !all {
                break;
            }
        }
    }

    pub(crate) fn hotplug(&mut self) {
        if self.s.ncpus < 2 {
            return;
        }
        let cpu = 1 + self.r.below(self.s.ncpus as u64 - 1) as i32;
        let off = self.s.offline.contains(&cpu);
        let path = format!("/sys/devices/system/cpu/cpu{cpu}/online");
        let res: Res = std::fs::write(&path, if off { "1" } else { "0" })
            .map(|_| 0)
            .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO));
        self.note(
            if off { "cpu_online" } else { "cpu_offline" },
            format!("cpu={cpu}"),
            &res,
        );
        self.expect("cpu hotplug", &res, &[EBUSY]);
        if res.is_ok() {
            if off {
                self.s.offline.retain(|&c| c != cpu);
            } else {
                self.s.went_offline(cpu);
            }
        }
    }

    /// Tries to unload the module, and loads it again if that worked.
    ///
    /// Half of the time everything is closed first; then the unload must
    /// succeed (a refusal means a reference leaked), except while an AUX
    /// area of a closed event is still mapped: perf can still call the
    /// driver's `free_aux` then, so the unload must be refused until the
    /// last unmap. Otherwise the unload must be refused while any event of
    /// the module is open.
    pub(crate) fn module(&mut self) {
        let Some((name, path)) = self.o.module.clone() else {
            return;
        };
        self.reap(true);
        let drained = self.r.chance(50);
        if drained {
            let mut kept = None;
            for mut e in std::mem::take(&mut self.s.evs) {
                if kept.is_none() && e.ours && e.aux.is_some() && self.r.chance(50) {
                    kept = e.aux.take();
                }
                e.release();
                // Pin a report to the close that provoked it.
                if let Some(r) = self.kmsg.report() {
                    self.note(
                        "close",
                        format!("fd={} leader={} (drain)", e.fd, e.leader),
                        &Ok(0),
                    );
                    self.fail(format!("kernel report after closing fd {}: {r}", e.fd));
                    return;
                }
            }
            if let Some(m) = kept {
                let res = sys::delete_module(&name);
                self.note("rmmod_aux_mapped", format!("{name} aux={}", m.len), &res);
                sys::munmap(m.addr, m.len);
                if res.is_ok() {
                    self.fail(format!(
                        "rmmod {name} succeeded while an AUX area of a closed event was mapped"
                    ));
                    return self.reload(&name, &path);
                }
            }
        }
        let res = sys::delete_module(&name);
        self.note("rmmod", format!("{name} drained={drained}"), &res);
        self.expect("rmmod", &res, &[EBUSY, EAGAIN]);
        match res {
            Err(e) if drained => self.fail(format!(
                "rmmod {name} refused ({}) with no event open and nothing mapped: a reference leaked",
                errname(e)
            )),
            Err(_) => {}
            Ok(_) => {
                let held = self.s.ours_live();
                if held > 0 {
                    self.fail(format!("rmmod {name} succeeded with {held} of its events open"));
                }
                self.reload(&name, &path);
            }
        }
    }

    /// Brings the CPUs this run took offline back online (also after a
    /// violation, so that the tests after the fuzzer find them all).
    pub fn online_all(&mut self) {
        for cpu in std::mem::take(&mut self.s.offline) {
            let _ = std::fs::write(format!("/sys/devices/system/cpu/cpu{cpu}/online"), "1");
        }
    }

    /// Tries to unbind the PMU's device from its platform driver through
    /// sysfs, whatever is open, and binds it again if that worked.
    ///
    /// The contract (rpmu::platform::NoUnbind, as upstream's
    /// suppress_bind_attrs): the driver has no unbind file, so the attempt
    /// fails with ENOENT and the PMU stays. A driver that can be unbound
    /// must at least not be while one of its events, or a software event
    /// in one of its groups, is open: perf would keep reaching the freed
    /// PMU.
    pub(crate) fn unbind(&mut self) {
        let Some((driver, dev)) = self.o.unbind.clone() else {
            return;
        };
        // Opened without O_CREAT: a missing file is ENOENT (creating one in
        // sysfs would be EACCES).
        let sysfs = |op: &str| -> Res {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .write(true)
                .open(format!("/sys/bus/platform/drivers/{driver}/{op}"))
                .and_then(|mut f| f.write_all(dev.as_bytes()))
                .map(|_| 0)
                .map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
        };
        let res = sysfs("unbind");
        let open = self.s.evs.len();
        self.note("unbind", format!("{driver} {dev} open={open}"), &res);
        match res {
            Err(libc::ENOENT) => {}
            Err(e) => self.fail(format!(
                "unbind {dev} failed with {}, not ENOENT",
                errname(e)
            )),
            Ok(_) => {
                self.fail(format!(
                    "unbind {dev} went through ({open} events open): the driver can be unbound"
                ));
                let res = sysfs("bind");
                self.note("bind", format!("{driver} {dev}"), &res);
                match Target::load(&self.t.name, self.t.kind, self.o.only_event.as_deref()) {
                    Ok(t) => self.t = t,
                    Err(e) => self.fail(format!("after bind: {e}")),
                }
            }
        }
    }

    fn reload(&mut self, name: &str, path: &str) {
        let res = sys::finit_module(path, &self.o.params);
        self.note("insmod", format!("{name} {path}"), &res);
        if let Err(e) = res {
            return self.fail(format!("insmod {path} failed: {}", errname(e)));
        }
        match Target::load(&self.t.name, self.t.kind, self.o.only_event.as_deref()) {
            Ok(t) => self.t = t,
            Err(e) => self.fail(format!("after insmod: {e}")),
        }
    }

    /// Ends the run: children reaped, CPUs online, events closed; then one
    /// valid event must still open and read.
    pub fn finish(&mut self) {
        self.reap(true);
        self.online_all();
        for mut e in self.s.evs.drain(..) {
            e.release();
        }
        self.n += 1;
        let cpus = self.s.online();
        let mut o = self.t.valid(&mut self.r, &cpus);
        o.attr.read_format = 0;
        let res = sys::perf_event_open(&o.attr, -1, o.cpu, -1, 0);
        self.note("final_open", format!("cpu={}", o.cpu), &res);
        match res {
            Ok(fd) => {
                let mut b = [0u8; 8];
                let r = sys::read(fd as i32, &mut b);
                self.note("final_read", format!("fd={fd}"), &r);
                if r != Ok(8) {
                    self.fail("the PMU does not read after the run".into());
                }
                sys::close(fd as i32);
            }
            Err(e) => self.fail(format!(
                "the PMU refuses a valid event after the run: {}",
                errname(e)
            )),
        }
    }

    /// A fuzzer that never gets past the front door tests nothing: after a
    /// long run, each path the PMU's contract makes reachable must have
    /// succeeded at least once.
    pub fn coverage(&mut self) {
        let mut need = vec!["open", "read", "enable", "disable", "mmap_ring", "close"];
        if self.t.kind == Kind::AuxSampling {
            need.extend(["mmap_aux", "consume", "period"]);
        }
        if self.o.hotplug {
            need.extend(["cpu_offline", "cpu_online"]);
        }
        if self.o.module.is_some() {
            need.extend(["rmmod", "insmod"]);
        }
        let missing: Vec<&str> = need
            .into_iter()
            .filter(|op| {
                self.tally
                    .get(op)
                    .and_then(|a| a.get("ok"))
                    .copied()
                    .unwrap_or(0)
                    == 0
            })
            .collect();
        if !missing.is_empty() {
            self.fail(format!(
                "never succeeded in the whole run: {}",
                missing.join(", ")
            ));
        }
    }
}

/// Whether a read showing `time_running` `tr` above its `time_enabled` was
/// torn, given the (`time_enabled`, `time_running`) of a read made right
/// after it: totals in order then, and reaching `tr`.
fn torn_only(tr: u64, (te2, tr2): (u64, u64)) -> bool {
    te2 >= tr && tr2 <= te2
}

#[cfg(test)]
mod tests {
    use super::torn_only;

    #[test]
    fn torn_read_against_totals_out_of_order() {
        // The soak's read: enabled 67584464, running 67853424.
        let tr = 67_853_424;
        // Read again: both moved on, in order.
        assert!(torn_only(tr, (67_900_000, 67_890_000)));
        assert!(torn_only(tr, (tr, tr)));
        // Running still above enabled: the totals are wrong.
        assert!(!torn_only(tr, (67_900_000, 67_950_000)));
        // Enabled never reached the running time already shown.
        assert!(!torn_only(tr, (67_600_000, 67_590_000)));
    }
}
