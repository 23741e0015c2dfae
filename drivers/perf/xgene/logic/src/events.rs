// SPDX-License-Identifier: GPL-2.0

//! The event tables and the sysfs `format` attributes of each sub-block type
//! and version.
//!
//! The events are defined once, in drivers/perf/xgene/events/*.json;
//! scripts/xgene_events.py turns them into `$RPMU_GEN_DIR/xgene_events_generated.rs`
//! at build time (cargo: build.rs into OUT_DIR; Kbuild: the module's build
//! directory). The `format` strings are the ABI upstream has always shown
//! (NOTES.md section 2); [`super::config`] derives its validation from them.

use super::{
    bitfield::mask64,
    hw::{PmuType, Version},
};

/// A named event: `events/<name>` reads `config=0x<code>`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Event {
    /// sysfs file name, as perf spells the event (`l3c0/read-miss/`).
    pub name: &'static str,
    /// Event select code.
    pub code: u16,
}

/// The `identifier` sysfs attribute of a sub-block's PMU,
/// `apm_xgene<generation>_<type prefix>` (`apm_xgene3_iob_slow`): the
/// `Compat` that perf's system event tables (drivers/perf/xgene/events/*.json
/// installed under `tools/perf/pmu-events/arch/arm64/apm/xgene{,3}/sys/`) match
/// to give the PMU's events their descriptions and its metrics. Upstream's
/// driver has no `identifier`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Identifier(pub Version, pub PmuType);

impl core::fmt::Display for Identifier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "apm_xgene{}_{}", self.0.number(), self.1.prefix())
    }
}

/// A sysfs `format` attribute: `format/<name>` reads `<spec>`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Format {
    /// File name, e.g. `l3c_eventid`.
    pub name: &'static str,
    /// Field, e.g. `config:0-7`.
    pub spec: &'static str,
}

/// The generated tables, `<TYPE>_<V1V2|V3>: &[Event]`, sorted by code;
/// [`events`] picks the right one.
pub mod generated {
    use super::Event;
    include!(concat!(env!("RPMU_GEN_DIR"), "/xgene_events_generated.rs"));
}

/// The events of sub-block type `t` on version `v`, sorted by code; empty
/// for IOB-slow on v1/v2, which has no events.
pub fn events(t: PmuType, v: Version) -> &'static [Event] {
    t.tables(v).map_or(&[], |tables| tables.events)
}

/// The code of event `name` of type `t` on `v`.
pub fn code_of(t: PmuType, v: Version, name: &str) -> Option<u16> {
    events(t, v).iter().find(|e| e.name == name).map(|e| e.code)
}

/// The name of the event with code `code` of type `t` on `v`.
pub fn name_of(t: PmuType, v: Version, code: u16) -> Option<&'static str> {
    events(t, v).iter().find(|e| e.code == code).map(|e| e.name)
}

/// Expands `$m!(TABLE, [(file, spec), ...])` once per `format` table: the
/// single list from which both [`formats`] and the driver's sysfs `format`
/// groups are built.
macro_rules! format_tables {
    ($m:ident) => {
        $m!(
            FMT_L3C_V12,
            [
                ("l3c_eventid", "config:0-7"),
                ("l3c_agentid", "config1:0-9")
            ]
        );
        $m!(
            FMT_IOB_V12,
            [
                ("iob_eventid", "config:0-7"),
                ("iob_agentid", "config1:0-63")
            ]
        );
        $m!(
            FMT_MCB_V12,
            [
                ("mcb_eventid", "config:0-5"),
                ("mcb_agentid", "config1:0-9")
            ]
        );
        $m!(FMT_MC_V12, [("mc_eventid", "config:0-28")]);
        $m!(FMT_L3C_V3, [("l3c_eventid", "config:0-39")]);
        $m!(FMT_IOB_V3, [("iob_eventid", "config:0-47")]);
        $m!(FMT_IOB_SLOW_V3, [("iob_slow_eventid", "config:0-16")]);
        $m!(FMT_MCB_V3, [("mcb_eventid", "config:0-35")]);
        $m!(FMT_MC_V3, [("mc_eventid", "config:0-44")]);
    };
}
#[allow(unused_imports)] // Used by the kernel module only.
pub(crate) use format_tables;

macro_rules! format_table {
    ($name:ident, [$(($file:literal, $spec:literal)),* $(,)?]) => {
        /// One `format` table of `format_tables!`.
        pub(super) static $name: &[Format] = &[$(Format { name: $file, spec: $spec }),*];
    };
}
format_tables!(format_table);

/// The sysfs `format` attributes of type `t` on `v`, exactly as upstream
/// shows them: the event id first, then the agent id if the type has one.
/// Empty for IOB-slow on v1/v2.
pub fn formats(t: PmuType, v: Version) -> &'static [Format] {
    t.tables(v).map_or(&[], |tables| tables.formats)
}

/// Which `perf_event_attr` word a format field lives in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Word {
    /// `config`.
    Config,
    /// `config1`.
    Config1,
}

/// A parsed format spec `config:<lo>-<hi>` or `config1:<lo>-<hi>`
/// (or a single bit `<n>`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Field {
    /// The attr word.
    pub word: Word,
    /// Lowest bit.
    pub lo: u32,
    /// Highest bit (inclusive).
    pub hi: u32,
}

impl Field {
    /// The bits of the field as a mask of its word.
    /// Empty for a malformed field (`lo > hi` or past bit 63).
    pub const fn mask(&self) -> u64 {
        mask64(self.lo, self.hi)
    }
}

fn number(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // At most two ASCII digits: no step fails.
    s.bytes()
        .try_fold(0u32, |n, b| {
            n.checked_mul(10)?
                .checked_add(u32::from(b.checked_sub(b'0')?))
        })
        .filter(|&n| n < 64)
}

/// Parses a format spec; `None` if it is not one this driver uses.
pub fn parse_spec(spec: &str) -> Option<Field> {
    let (word, bits) = spec.split_once(':')?;
    let word = match word {
        "config" => Word::Config,
        "config1" => Word::Config1,
        _ => return None,
    };
    let (lo, hi) = match bits.split_once('-') {
        Some((lo, hi)) => (number(lo)?, number(hi)?),
        None => {
            let n = number(bits)?;
            (n, n)
        }
    };
    if lo > hi {
        return None;
    }
    Some(Field { word, lo, hi })
}

/// The advertised field of `word` for type `t` on `v`, if any.
pub fn field(t: PmuType, v: Version, word: Word) -> Option<Field> {
    formats(t, v)
        .iter()
        .filter_map(|f| parse_spec(f.spec))
        .find(|f| f.word == word)
}
