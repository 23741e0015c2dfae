// SPDX-License-Identifier: GPL-2.0

//! What the fuzzer holds: open events, their mappings, children, offline
//! CPUs, and what it has seen of each event (for the monotonicity checks).

use crate::sys::{self, Attr};
use std::collections::HashMap;

/// One mapping of an event's ring or AUX area.
#[derive(Clone, Copy, Debug)]
pub struct Map {
    pub addr: usize,
    pub len: usize,
    pub write: bool,
}

/// One open event.
pub struct Ev {
    pub fd: i32,
    /// An event of the PMU under test (not a software sibling).
    pub ours: bool,
    pub attr: Attr,
    pub cpu: i32,
    /// The group leader's fd (its own fd for a leader).
    pub leader: i32,
    pub ring: Option<Map>,
    pub aux: Option<Map>,
    /// Set once the event may legitimately be in the ERROR or DEAD state
    /// (pinned and unschedulable, or its CPU went offline): reads may then
    /// return 0 bytes.
    pub may_error: bool,
    /// Last value seen per id (or 0 for the event's own value).
    pub seen: HashMap<u64, u64>,
    pub seen_te: u64,
    pub seen_tr: u64,
    pub id: Option<u64>,
    /// Its leader was closed while a child still held it: the group breaks
    /// up only when that child exits.
    pub orphaned: bool,
}

impl Ev {
    pub fn new(fd: i32, ours: bool, attr: Attr, cpu: i32, leader: i32) -> Ev {
        Ev {
            fd,
            ours,
            attr,
            cpu,
            leader,
            ring: None,
            aux: None,
            may_error: attr.flags & sys::flag::PINNED != 0,
            seen: HashMap::new(),
            seen_te: 0,
            seen_tr: 0,
            id: None,
            orphaned: false,
        }
    }

    /// Forget the values and times seen (after a reset or a regrouping).
    pub fn forget(&mut self) {
        self.seen.clear();
        (self.seen_te, self.seen_tr) = (0, 0);
    }

    /// Unmaps everything and closes the descriptor.
    pub fn release(&mut self) {
        for m in [self.aux.take(), self.ring.take()].into_iter().flatten() {
            sys::munmap(m.addr, m.len);
        }
        sys::close(self.fd);
    }
}

/// The fuzzer's whole state.
#[derive(Default)]
pub struct State {
    pub evs: Vec<Ev>,
    pub children: Vec<i32>,
    pub offline: Vec<i32>,
    pub ncpus: i32,
}

impl State {
    pub fn online(&self) -> Vec<i32> {
        (0..self.ncpus)
            .filter(|c| !self.offline.contains(c))
            .collect()
    }

    pub fn find(&self, fd: i32) -> Option<usize> {
        self.evs.iter().position(|e| e.fd == fd)
    }

    /// Forget what was seen of the events of `leader`'s group.
    pub fn forget_group(&mut self, leader: i32) {
        for e in self
            .evs
            .iter_mut()
            .filter(|e| e.leader == leader || e.fd == leader)
        {
            e.seen.clear();
        }
    }

    /// Records that `cpu` went offline.
    ///
    /// Perf core removes every event of the CPU's context with
    /// `DETACH_GROUP`: each sibling becomes a leader of its own, so a group
    /// read through it then shows its own value and times in the leader's
    /// place. The values and times of every group with a member recorded on
    /// `cpu` are forgotten. An uncore driver moves its events to another CPU
    /// first, groups intact, and the recorded CPU is the one asked for, so
    /// this errs on the side of checking less.
    pub fn went_offline(&mut self, cpu: i32) {
        self.offline.push(cpu);
        let hit: Vec<i32> = self
            .evs
            .iter()
            .filter(|e| e.cpu == cpu)
            .map(|e| e.leader)
            .collect();
        for e in self.evs.iter_mut() {
            e.may_error = true;
            if hit.contains(&e.leader) {
                e.forget();
            }
        }
    }

    pub fn ours_live(&self) -> usize {
        self.evs.iter().filter(|e| e.ours).count()
    }
}

/// A parsed `read()` result.
#[derive(Debug, Default, PartialEq)]
pub struct Reading {
    pub te: Option<u64>,
    pub tr: Option<u64>,
    /// `(key, value)`: the key is the id when `PERF_FORMAT_ID` is set, else
    /// the position (0 = the event itself or the leader).
    pub values: Vec<(u64, u64)>,
}

/// Parses `buf` (`n` bytes) per `read_format`; `None` if the size is wrong.
pub fn parse_read(rf: u64, buf: &[u8]) -> Option<Reading> {
    use sys::fmt::*;
    let w: Vec<u64> = buf
        .chunks_exact(8)
        .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    if !buf.len().is_multiple_of(8) {
        return None;
    }
    let mut it = w.into_iter();
    let mut r = Reading::default();
    let group = rf & GROUP != 0;
    let nr = if group { it.next()? } else { 1 };
    if !group {
        r.values.push((0, it.next()?));
    }
    if rf & TOTAL_TIME_ENABLED != 0 {
        r.te = Some(it.next()?);
    }
    if rf & TOTAL_TIME_RUNNING != 0 {
        r.tr = Some(it.next()?);
    }
    if nr == 0 || nr > 512 {
        return None;
    }
    for i in 0..nr {
        let v = if group { it.next()? } else { r.values[0].1 };
        let key = if rf & ID != 0 { it.next()? } else { i };
        if rf & LOST != 0 {
            it.next()?;
        }
        if group {
            r.values.push((key, v));
        } else {
            r.values[0].0 = key;
        }
    }
    if it.next().is_some() {
        return None;
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::fmt::*;

    fn bytes(w: &[u64]) -> Vec<u8> {
        w.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    #[test]
    fn reads_parse_by_format() {
        assert_eq!(parse_read(0, &bytes(&[5])).unwrap().values, vec![(0, 5)]);
        let r = parse_read(TOTAL_TIME_ENABLED | ID | LOST, &bytes(&[5, 9, 77, 0])).unwrap();
        assert_eq!((r.te, r.values), (Some(9), vec![(77, 5)]));
        let g = parse_read(
            GROUP | TOTAL_TIME_RUNNING | ID,
            &bytes(&[2, 3, 10, 100, 11, 101]),
        )
        .unwrap();
        assert_eq!((g.tr, g.values), (Some(3), vec![(100, 10), (101, 11)]));
        assert!(parse_read(GROUP, &bytes(&[2, 10])).is_none());
        assert!(parse_read(0, &bytes(&[5, 6])).is_none());
    }

    #[test]
    fn offline_forgets_the_groups_on_that_cpu() {
        let mut s = State {
            ncpus: 2,
            ..Default::default()
        };
        // A group on CPU 1 (leader 3, sibling 4) and a singleton on CPU 0.
        for (fd, cpu, leader) in [(3, 1, 3), (4, 1, 3), (5, 0, 5)] {
            let mut e = Ev::new(fd, true, Attr::default(), cpu, leader);
            e.seen.insert(0, 100);
            (e.seen_te, e.seen_tr) = (7, 7);
            s.evs.push(e);
        }
        s.went_offline(1);
        assert_eq!(s.online(), vec![0]);
        for e in &s.evs[..2] {
            assert!(e.may_error);
            assert!(e.seen.is_empty() && e.seen_te == 0 && e.seen_tr == 0);
        }
        let other = &s.evs[2];
        assert!(other.may_error);
        assert_eq!((other.seen.get(&0), other.seen_te), (Some(&100), 7));
    }
}
