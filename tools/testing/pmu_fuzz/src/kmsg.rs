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
    "RCU stall",
    "refcount_t:",
    "list_add corruption",
    "list_del corruption",
    "ODEBUG:",
];

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
                    if found.is_none() && REPORTS.iter().any(|p| msg.contains(p)) {
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
