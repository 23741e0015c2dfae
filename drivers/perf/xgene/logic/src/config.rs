// SPDX-License-Identifier: GPL-2.0

//! From `perf_event_attr.config`/`config1` to what is written to the
//! sub-block, with validation against the advertised sysfs formats.
//!
//! Policy (Documentation/xgene-pmu.rst, "Event validation"):
//!
//! - The event select register takes 8 bits. `config` may only have bits
//!   that are both inside the advertised event field and inside those 8
//!   bits. Upstream drops everything above bit 7 without a word, so on v3,
//!   whose formats are wider than 8 bits (`config:0-39`, ...), a config of
//!   0x102 counted event 0x02; here it is refused ([`ConfigError::EventBits`]).
//!   Codes not in the event table but inside the field are accepted (raw
//!   events, as upstream).
//! - `config1` is the agent filter: a set bit excludes that agent. Bits
//!   outside the advertised agent field (L3C and MCB: 0-9, IOB: 0-63, v1/v2
//!   only) name agents that do not exist: they must be all clear, or all set
//!   -- the documented "exclude every agent but these" idiom, e.g.
//!   `config1=0xfffffffffffffffe` for agent 0 only. Any other pattern there
//!   is a mistake and gives [`ConfigError::AgentBits`].
//! - A sub-block without an agent field (MC on v1/v2, every type on v3)
//!   refuses any non-zero `config1` ([`ConfigError::NoAgentFilter`]) rather
//!   than counting every agent while the user asked for a filter.
//! - The hardware counts an agent whose PMAMR bit is 1, so the masks are
//!   the complement of `config1`: PMAMR0 = `!config1[31:0]`, and for IOB
//!   PMAMR1 = `!config1[63:32]`. PMAMR1 is never written for other types.
//!   MC on v1/v2 writes PMAMR0 = all ones, as upstream, so that register is
//!   in a known "count everything" state. v3 has no agent masks.

use super::{
    events::{field, Word},
    hw::{regs::pmevtyper, PmuType, Version},
};

/// Bits the event select register (PMEVTYPER) takes.
pub const EVENT_SELECT_MASK: u64 = pmevtyper::EVENT.mask() as u64;

/// Why a `config`/`config1` pair was refused; the driver logs
/// [`ConfigError::reason`] and chooses the errno (`-EINVAL` for each).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum ConfigError {
    /// `config` has bits outside the event field the hardware takes.
    EventBits,
    /// `config1` has bits outside the advertised agent field.
    AgentBits,
    /// `config1` is not zero, but this sub-block has no agent filter.
    NoAgentFilter,
}

impl ConfigError {
    /// A line for the kernel log.
    pub const fn reason(&self) -> &'static str {
        match self {
            ConfigError::EventBits => "config has bits outside the event select field",
            ConfigError::AgentBits => "config1 has bits outside the agent field",
            ConfigError::NoAgentFilter => "this PMU has no agent filter: config1 must be 0",
        }
    }
}

/// What to write for one event.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct Programming {
    /// PMEVTYPER of the counter.
    pub evtype: u32,
    /// PMAMR0 (shared by all counters of the sub-block), if written.
    pub amr0: Option<u32>,
    /// PMAMR1 (shared by all counters of the sub-block), if written.
    pub amr1: Option<u32>,
}

/// The `config` bits accepted for type `t` on `v`: the advertised event
/// field cut to the 8 bits the hardware takes (0 if the type has no events
/// on `v`).
pub fn event_mask(t: PmuType, v: Version) -> u64 {
    field(t, v, Word::Config).map_or(0, |f| f.mask()) & EVENT_SELECT_MASK
}

/// The `config1` bits accepted for type `t` on `v`, or `None` if it has no
/// agent filter.
pub fn agent_mask(t: PmuType, v: Version) -> Option<u64> {
    if !v.layout().has_agent_masks {
        return None;
    }
    field(t, v, Word::Config1).map(|f| f.mask())
}

/// Validates `config`/`config1` of an event on a sub-block of type `t`,
/// version `v`, and returns what to program.
pub fn decode(
    t: PmuType,
    v: Version,
    config: u64,
    config1: u64,
) -> Result<Programming, ConfigError> {
    if field(t, v, Word::Config).is_none() || config & !event_mask(t, v) != 0 {
        return Err(ConfigError::EventBits);
    }
    // `config` has no bits outside the field (checked above).
    let evtype = pmevtyper::EVENT.set(0, config as u32);
    let (amr0, amr1) = match agent_mask(t, v) {
        Some(allowed) => {
            let outside = config1 & !allowed;
            if outside != 0 && outside != !allowed {
                return Err(ConfigError::AgentBits);
            }
            let amr1 = match t {
                PmuType::Iob => Some(!((config1 >> 32) as u32)),
                _ => None,
            };
            (Some(!(config1 as u32)), amr1)
        }
        None => {
            if config1 != 0 {
                return Err(ConfigError::NoAgentFilter);
            }
            if v.layout().has_agent_masks {
                // MC on v1/v2: count every agent, as upstream.
                (Some(u32::MAX), None)
            } else {
                (None, None)
            }
        }
    };
    Ok(Programming { evtype, amr0, amr1 })
}
