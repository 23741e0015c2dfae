// SPDX-License-Identifier: GPL-2.0

//! `perf script` output: the parser is the `dtl-script` crate's
//! (tools/dtl_script); this adds what needs the simulator's generator.

use crate::gen;

pub use dtl_script::{parse_script, Decoded, DISPATCH, PREEMPT};

/// The entry kind (enable-mask bit) a decoded `preempt_reason` stands for
/// in the simulator's entries.
pub fn kind_of(preempt: &str) -> Option<u8> {
    [gen::KIND_CEDE, gen::KIND_PREEMPT, gen::KIND_FAULT]
        .into_iter()
        .find(|&k| PREEMPT[gen::preempt_reason(k) as usize] == preempt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_preempt_reasons() {
        assert_eq!(kind_of("H_CEDE"), Some(gen::KIND_CEDE));
        assert_eq!(kind_of("time_slice"), Some(gen::KIND_PREEMPT));
        assert_eq!(kind_of("virtual_memory_page_fault"), Some(gen::KIND_FAULT));
        assert_eq!(kind_of("H_CONFER"), None);
    }
}
