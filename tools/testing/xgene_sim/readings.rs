// SPDX-License-Identifier: GPL-2.0

//! The model's readings of what the documentation does not settle, each a
//! module-wide choice with named alternatives (debugfs files of the same
//! names, `debugfs.rs`): what the enable SET/CLR registers read back
//! ([`Readback`]), when counters move ([`Step`]), and how many agents an
//! L3C/MCB PMAMR0 selects ([`PmamrWidth`]).

/// A behaviour the documentation does not settle, with its readings by
/// name (a debugfs file of the same name).
pub(crate) trait Choice: Copy + PartialEq + 'static {
    /// Every reading and its name; the first is the default.
    const ALL: &'static [(Self, &'static str)];

    /// The name debugfs shows and takes.
    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(v, _)| *v == self)
            .map_or("?", |(_, n)| n)
    }

    /// The reading called `name`.
    fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(v, _)| *v)
    }
}

/// What the PMCNTENSET/CLR and PMINTENSET/CLR registers read back (debugfs
/// `readback`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Readback {
    /// The current enable mask (as the ARM PMU's registers do).
    Mask,
    /// Zero (write-only registers).
    Zero,
}

impl Choice for Readback {
    const ALL: &'static [(Self, &'static str)] =
        &[(Readback::Mask, "mask"), (Readback::Zero, "zero")];
}

/// When a counter advances (debugfs `step`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Step {
    /// Only at the tick, by a whole period's amount.
    Tick,
    /// Also whenever a counter or overflow status register of its PMU is
    /// read: by the part of the period's amount elapsed since the tick, so
    /// a read sees the count of that moment, and a wrap (with its overflow
    /// status and interrupt) can happen between any two reads.
    Continuous,
}

impl Choice for Step {
    const ALL: &'static [(Self, &'static str)] =
        &[(Step::Tick, "tick"), (Step::Continuous, "continuous")];
}

/// How many agents an L3C or MCB PMAMR0 selects (debugfs `pmamr`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PmamrWidth {
    /// The agent field the drivers advertise (`config1:0-9`): 10 agents.
    Field,
    /// All 32 bits: agents 10-31 exist and count while their bit is set.
    Full,
}

impl Choice for PmamrWidth {
    const ALL: &'static [(Self, &'static str)] =
        &[(PmamrWidth::Field, "field"), (PmamrWidth::Full, "full")];
}
