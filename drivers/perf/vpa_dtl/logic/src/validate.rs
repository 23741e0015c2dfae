// SPDX-License-Identifier: GPL-2.0

//! Event validation for `vpa_dtl`: which `perf_event_open` requests the PMU
//! refuses, and why. The driver answers each [`Refusal`] with its errno.

use super::record::{valid_config, DTL_ALL};

/// What `event_init` needs to know about a new event.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// `attr.config`.
    pub config: u64,
    /// A sample period or frequency was given.
    pub sampling: bool,
    /// `PERF_SAMPLE_BRANCH_STACK` was requested.
    pub branch_stack: bool,
    /// The event follows a task rather than a CPU.
    pub per_task: bool,
    /// The event is bound to a CPU.
    pub has_cpu: bool,
    /// The caller has `CAP_PERFMON` (or `CAP_SYS_ADMIN`).
    pub perfmon: bool,
    /// The hypervisor logs every dispatch, whatever the enable mask, with
    /// no reason for it (KVM): no single kind can be told apart.
    pub kinds_unlogged: bool,
}

/// Why an event is refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Refusal {
    /// The DTL exposes other partitions' scheduling: privileged.
    NotPerfmon,
    /// A counting event: the PMU only traces into AUX.
    Counting,
    /// Branch stacks do not exist here.
    BranchStack,
    /// `config` is not 0x1, 0x2, 0x4 or 0x7.
    BadConfig,
    /// A single kind (or several, not all) under a hypervisor that does not
    /// log kinds ([`Request::kinds_unlogged`]): only 0x7 can be honoured.
    KindUnlogged,
    /// A per-task event, or one on no CPU: the DTL is per CPU.
    PerTask,
}

impl Refusal {
    /// A one-line reason for the kernel log.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::NotPerfmon => "needs CAP_PERFMON",
            Refusal::Counting => "counting events are not supported; give a sample period",
            Refusal::BranchStack => "branch stacks are not supported",
            Refusal::BadConfig => {
                "config must be 0x1 (cede), 0x2 (preempt), 0x4 (fault) or 0x7 (all)"
            }
            Refusal::PerTask => "per-task events are not supported; open one event per CPU",
            Refusal::KindUnlogged => {
                "this hypervisor (KVM) logs every dispatch without its kind: only 0x7 (all)"
            }
        }
    }
}

/// Checks a request in the order the errors are reported.
pub fn check(r: &Request) -> Result<(), Refusal> {
    if !r.perfmon {
        return Err(Refusal::NotPerfmon);
    }
    if r.per_task || !r.has_cpu {
        return Err(Refusal::PerTask);
    }
    if !r.sampling {
        return Err(Refusal::Counting);
    }
    if r.branch_stack {
        return Err(Refusal::BranchStack);
    }
    if !valid_config(r.config) {
        return Err(Refusal::BadConfig);
    }
    if r.kinds_unlogged && r.config != u64::from(DTL_ALL) {
        return Err(Refusal::KindUnlogged);
    }
    Ok(())
}

/// Minimum polling period: 1 ms.
pub const MIN_PERIOD_NS: u64 = 1_000_000;

/// The polling period for a sample period in nanoseconds, or a frequency in
/// Hz (`freq`), clamped to [`MIN_PERIOD_NS`]. A frequency of 0 is taken as
/// 1 Hz.
pub fn period_ns(period_or_freq: u64, freq: bool) -> u64 {
    const NS_PER_S: u64 = 1_000_000_000;
    let ns = if freq {
        NS_PER_S.checked_div(period_or_freq).unwrap_or(NS_PER_S)
    } else {
        period_or_freq
    };
    ns.max(MIN_PERIOD_NS)
}
