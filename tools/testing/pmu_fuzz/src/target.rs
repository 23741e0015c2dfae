// SPDX-License-Identifier: GPL-2.0

//! The PMU under test as sysfs describes it, and the contract the oracle
//! holds it to: what a valid `perf_event_open` looks like, and which
//! mutations its documentation says must be refused.

use crate::rng::Rng;
use crate::sys::{flag, fmt, Attr, ATTR_SIZE, SAMPLE_SAFE};
use std::fs;

/// The two kinds of PMU contract this project has.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Per-CPU sampling into an AUX area (vpa_dtl): events must sample, must
    /// be CPU-bound, and only the listed configs exist.
    AuxSampling,
    /// System-wide counting (X-Gene uncore): events must count, are moved to
    /// the PMU's owning CPU; `config1` is an agent mask where a format names it.
    Counting,
}

/// One `format/` field: the config word (0, 1, 2) and its bit mask.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub word: usize,
    pub mask: u64,
}

/// What the fuzzer knows of the PMU.
pub struct Target {
    pub name: String,
    pub kind: Kind,
    pub ty: u32,
    pub formats: Vec<Field>,
    /// `(name, config, config1)` of each `events/` alias.
    pub events: Vec<(String, u64, u64)>,
}

/// Parses `config1:0-9` or `config:0-7,32-35` into a field.
pub fn parse_format(name: &str, spec: &str) -> Option<Field> {
    let (word, bits) = spec.trim().split_once(':')?;
    let word = match word {
        "config" => 0,
        "config1" => 1,
        "config2" => 2,
        _ => return None,
    };
    let mut mask = 0u64;
    for r in bits.split(',') {
        let (lo, hi) = match r.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
            None => {
                let b = r.parse::<u32>().ok()?;
                (b, b)
            }
        };
        for b in lo..=hi.min(63) {
            mask |= 1 << b;
        }
    }
    Some(Field {
        name: name.into(),
        word,
        mask,
    })
}

/// Places `v` into the bits of `mask`, lowest first (perf's pmu_format_value).
pub fn deposit(mask: u64, mut v: u64) -> u64 {
    let mut out = 0;
    for b in 0..64 {
        if mask & (1 << b) != 0 {
            out |= (v & 1) << b;
            v >>= 1;
        }
    }
    out
}

fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Applies an `events/` string (`event=0x1`, `config=0x2,config1=0x3`).
pub fn parse_event(formats: &[Field], s: &str) -> Option<[u64; 3]> {
    let mut c = [0u64; 3];
    for term in s.trim().split(',') {
        let (k, v) = term.split_once('=').unwrap_or((term, "1"));
        let v = parse_num(v)?;
        match k {
            "config" => c[0] |= v,
            "config1" => c[1] |= v,
            "config2" => c[2] |= v,
            _ => {
                let f = formats.iter().find(|f| f.name == k)?;
                c[f.word] |= deposit(f.mask, v);
            }
        }
    }
    Some(c)
}

impl Target {
    /// Reads `/sys/bus/event_source/devices/<name>`; with `only`, keeps
    /// that `events/` alias alone.
    pub fn load(name: &str, kind: Kind, only: Option<&str>) -> Result<Target, String> {
        let dir = format!("/sys/bus/event_source/devices/{name}");
        let rd = |p: &str| fs::read_to_string(format!("{dir}/{p}"));
        let ty = rd("type")
            .map_err(|e| format!("{dir}/type: {e}"))?
            .trim()
            .parse()
            .map_err(|e| format!("{dir}/type: {e}"))?;
        let mut formats = Vec::new();
        for e in fs::read_dir(format!("{dir}/format"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let n = e.file_name().to_string_lossy().into_owned();
            if let Some(f) = rd(&format!("format/{n}"))
                .ok()
                .and_then(|s| parse_format(&n, &s))
            {
                formats.push(f);
            }
        }
        formats.sort_by(|a, b| a.name.cmp(&b.name));
        let mut events = Vec::new();
        for e in fs::read_dir(format!("{dir}/events"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.contains('.') {
                continue; // .unit, .scale
            }
            if let Some(c) = rd(&format!("events/{n}"))
                .ok()
                .and_then(|s| parse_event(&formats, &s))
            {
                events.push((n, c[0], c[1]));
            }
        }
        events.sort();
        if let Some(o) = only {
            events.retain(|(n, _, _)| n == o);
        }
        if events.is_empty() {
            return Err(format!(
                "{dir}: no events/ aliases{}",
                only.map_or(String::new(), |o| format!(" named {o}"))
            ));
        }
        Ok(Target {
            name: name.into(),
            kind,
            ty,
            formats,
            events,
        })
    }

    /// Bits of config word `w` that some format field names.
    pub fn known(&self, w: usize) -> u64 {
        self.formats
            .iter()
            .filter(|f| f.word == w)
            .fold(0, |m, f| m | f.mask)
    }
}

/// How an open was built, which decides what the oracle accepts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    /// Within the documented contract: must succeed, unless a capacity
    /// limit (a busy CPU, an offline CPU, a group that does not fit) says no.
    Valid,
    /// One field outside the documented contract: must be refused.
    Invalid(&'static str),
    /// Anything: success or a contract errno, never another errno.
    Random,
}

/// A generated open: attributes, CPU, and the class.
pub struct Open {
    pub attr: Attr,
    pub cpu: i32,
    pub pid: i32,
    pub class: Class,
}

pub fn base_attr(ty: u32, config: u64) -> Attr {
    Attr {
        type_: ty,
        size: ATTR_SIZE,
        config,
        ..Default::default()
    }
}

fn valid_common(r: &mut Rng, a: &mut Attr) {
    if r.chance(50) {
        a.flags |= flag::DISABLED;
    }
    if r.chance(5) {
        a.flags |= flag::PINNED;
    }
    let mut rf =
        r.next() & (fmt::TOTAL_TIME_ENABLED | fmt::TOTAL_TIME_RUNNING | fmt::ID | fmt::LOST);
    if r.chance(20) {
        rf |= fmt::GROUP;
    }
    a.read_format = rf;
}

impl Target {
    /// A valid open of this PMU on one of `cpus`.
    pub fn valid(&self, r: &mut Rng, cpus: &[i32]) -> Open {
        let (_, config, config1) = r.pick(&self.events).clone();
        let mut a = base_attr(self.ty, config);
        a.config1 = config1;
        valid_common(r, &mut a);
        match self.kind {
            Kind::AuxSampling => {
                if r.chance(30) {
                    a.flags |= flag::FREQ;
                    a.sample_period = *r.pick(&[1, 10, 100, 1000, 4000]);
                } else {
                    a.sample_period = *r.pick(&[1, 1000, 100_000, 1_000_000, 10_000_000]);
                }
                for b in SAMPLE_SAFE {
                    if r.chance(30) {
                        a.sample_type |= b;
                    }
                }
                if r.chance(20) {
                    a.aux_watermark = (r.below(8) as u32) << 12;
                }
            }
            Kind::Counting => {
                // An agent filter where the PMU has one: none, some, or the
                // upstream "all bits set" idiom.
                if let Some(f) = self.formats.iter().find(|f| f.word == 1) {
                    a.config1 = match r.below(4) {
                        0 => 0,
                        1 => u64::MAX,
                        _ => r.next() & f.mask,
                    };
                }
            }
        }
        Open {
            attr: a,
            cpu: *r.pick(cpus),
            pid: -1,
            class: Class::Valid,
        }
    }

    /// A valid open with exactly one documented rule broken.
    pub fn invalid(&self, r: &mut Rng, cpus: &[i32]) -> Open {
        let mut o = self.valid(r, cpus);
        let a = &mut o.attr;
        let why = match r.below(5) {
            0 => {
                a.flags |= *r.pick(&flag::EXCLUDE_UKHI);
                "exclude bit"
            }
            1 => {
                o.pid = 0;
                o.cpu = -1;
                "per-task event"
            }
            2 => match self.kind {
                Kind::AuxSampling => {
                    a.sample_period = 0;
                    a.flags &= !flag::FREQ;
                    "counting event on a sampling PMU"
                }
                Kind::Counting => {
                    a.sample_period = 1 + r.below(1_000_000);
                    "sampling event on a counting PMU"
                }
            },
            3 => {
                // A config bit no format names.
                let spare = !self.known(0);
                if spare == 0 {
                    a.flags |= flag::EXCLUDE_UKHI[0];
                    "exclude bit"
                } else {
                    a.config |= deposit(spare, 1 + r.below(255));
                    "config bit outside the format"
                }
            }
            _ => match (self.kind, self.formats.iter().find(|f| f.word == 1)) {
                (Kind::AuxSampling, _) => {
                    a.config = *r.pick(&[0u64, 3, 5, 6, 8, 0x10, 0x80]);
                    "config not one of the listed events"
                }
                (Kind::Counting, Some(f)) if f.mask != u64::MAX => {
                    // Bits above the agent field, neither all clear nor all set.
                    a.config1 = (1 + r.below(0xff)) << (64 - f.mask.leading_zeros());
                    "agent mask with stray high bits"
                }
                (Kind::Counting, Some(_)) => {
                    a.flags |= flag::EXCLUDE_UKHI[1];
                    "exclude bit"
                }
                (Kind::Counting, None) => {
                    a.config1 = 1 + r.below(0xffff);
                    "config1 on a PMU without agent filter"
                }
            },
        };
        o.class = Class::Invalid(why);
        o
    }

    /// A valid open with random fields mutated, sometimes wildly.
    pub fn random(&self, r: &mut Rng, cpus: &[i32]) -> Open {
        let mut o = self.valid(r, cpus);
        let a = &mut o.attr;
        for _ in 0..1 + r.below(3) {
            match r.below(17) {
                0 => a.config = r.edgy(64),
                1 => a.config1 = r.edgy(64),
                2 => a.config2 = r.edgy(64),
                3 => a.sample_type = r.edgy(26),
                4 => a.read_format = r.edgy(6),
                5 => a.flags ^= flag::FREQ,
                6 => a.sample_period = r.edgy(64),
                7 => a.aux_watermark = r.edgy(32) as u32,
                8 => a.aux_sample_size = r.edgy(32) as u32,
                9 => a.flags ^= flag::AUX_OUTPUT,
                10 => a.aux_action = r.edgy(3) as u32,
                11 => {
                    a.flags ^= flag::INHERIT
                        | if r.chance(50) {
                            flag::INHERIT_THREAD
                        } else {
                            0
                        }
                }
                12 => a.flags ^= *r.pick(&flag::EXCLUDE_UKHI) | *r.pick(&flag::EXCLUDE_HG),
                13 => {
                    a.flags ^= *r.pick(&[
                        flag::PINNED,
                        flag::EXCLUSIVE,
                        flag::WATERMARK,
                        flag::WRITE_BACKWARD,
                        flag::SAMPLE_ID_ALL,
                        flag::ENABLE_ON_EXEC,
                        flag::USE_CLOCKID,
                        flag::REMOVE_ON_EXEC,
                    ])
                }
                14 => a.size = *r.pick(&[0, 64, 72, 96, 112, 120, 128, 136, 144]),
                15 => a.branch_sample_type = r.edgy(20),
                _ => o.cpu = *r.pick(&[-1, 0, 1, 3, 7, 64, 4096]),
            }
        }
        a.flags &= !flag::SIGTRAP;
        o.class = Class::Random;
        o
    }

    /// A software event (cpu-clock or dummy), for mixed groups.
    pub fn software(&self, r: &mut Rng, cpus: &[i32]) -> Open {
        let mut a = base_attr(
            crate::sys::TYPE_SOFTWARE,
            *r.pick(&[crate::sys::SW_CPU_CLOCK, crate::sys::SW_DUMMY]),
        );
        valid_common(r, &mut a);
        if r.chance(30) {
            a.sample_period = 1_000_000;
        }
        Open {
            attr: a,
            cpu: *r.pick(cpus),
            pid: -1,
            class: Class::Random,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_events() {
        let f = parse_format("l3c_agentid", "config1:0-9\n").unwrap();
        assert_eq!((f.word, f.mask), (1, 0x3ff));
        let e = parse_format("event", "config:0-7").unwrap();
        let split = parse_format("x", "config:0-3,8-11").unwrap();
        assert_eq!(split.mask, 0xf0f);
        assert_eq!(deposit(split.mask, 0xab), 0xa0b);
        let fs = [e, f];
        assert_eq!(parse_event(&fs, "event=0x7\n"), Some([7, 0, 0]));
        assert_eq!(
            parse_event(&fs, "config=0x2,l3c_agentid=0x3"),
            Some([2, 3, 0])
        );
        assert_eq!(parse_event(&fs, "nosuch=1"), None);
    }
}
