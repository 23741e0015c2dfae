// SPDX-License-Identifier: GPL-2.0

//! The kernel's own detectors as part of the oracle: `/dev/kmsg` is read
//! after every operation, so a BUG, WARNING, KASAN, UBSAN, lockdep or
//! kmemleak report is pinned to the operation that provoked it.

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};

const REPORTS: &[&str] = &[
    "BUG:",
    "WARNING:",
    "Oops",
    "Kernel panic",
    "Unable to handle",
    "KASAN",
    "UBSAN",
    "possible circular locking",
    "possible recursive locking",
    "inconsistent lock state",
    "Invalid wait context",
    "sleeping function called from invalid context",
    "kmemleak:",
    "hung_task",
    "soft lockup",
    // RCU stalls: "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    // "... self-detected stall on CPU", "... detected expedited stalls ...".
    "detected stall",
    "detected expedited stall",
    "refcount_t:",
    "list_add corruption",
    "list_del corruption",
    "ODEBUG:",
];

/// Whether a kernel log message is a detector's report.
fn is_report(msg: &str) -> bool {
    REPORTS.iter().any(|p| msg.contains(p))
}

pub struct Kmsg(Option<File>);

impl Kmsg {
    /// Opens `/dev/kmsg` positioned after the records already there (no
    /// watching if it cannot be opened).
    pub fn open() -> Kmsg {
        use std::os::unix::fs::OpenOptionsExt;
        let f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/dev/kmsg")
            .ok()
            .and_then(|mut f| f.seek(SeekFrom::End(0)).ok().map(|_| f));
        Kmsg(f)
    }

    /// No watching (the kernel log is checked after the run only).
    pub fn none() -> Kmsg {
        Kmsg(None)
    }

    /// The first new record that is a report, if any (all new records are
    /// consumed).
    pub fn report(&mut self) -> Option<String> {
        let f = self.0.as_mut()?;
        let mut found = None;
        let mut buf = vec![0u8; 8192];
        loop {
            match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    // One record per read: "prio,seq,time,flags;message\n".
                    let rec = String::from_utf8_lossy(&buf[..n]);
                    let msg = rec.split_once(';').map_or(&*rec, |(_, m)| m).trim_end();
                    if found.is_none() && is_report(msg) {
                        found = Some(msg.lines().next().unwrap_or("").to_string());
                    }
                }
                // EPIPE: records were overwritten before we read them.
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(_) => break,
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::is_report;

    #[test]
    fn detectors_reports_match() {
        for m in [
            "WARNING: kernel/events/core.c:1234 at perf_event_open+0x10/0x20, CPU#0: pmu_fuzz/86",
            "BUG: KASAN: slab-use-after-free in perf_mmap_close+0x3c/0x2a0",
            "UBSAN: shift-out-of-bounds in drivers/perf/xgene.c:10:3",
            "kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
            "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
            "rcu: INFO: rcu_preempt self-detected stall on CPU",
            "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: {",
            "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [pmu_fuzz:90]",
            "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
            "WARNING: possible circular locking dependency detected",
        ] {
            assert!(is_report(m), "missed: {m}");
        }
    }

    #[test]
    fn a_user_tasks_own_fault_is_not_a_report() {
        // powerpc's note of a user-mode access to a kernel address (the task
        // gets SIGSEGV), as trinity's children provoke.
        assert!(!is_report(
            "trinity-c1[4778]: User access of kernel address (101010101001d) - exploit attempt? (uid: 0)"
        ));
    }
}
