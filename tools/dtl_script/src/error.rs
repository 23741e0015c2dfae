// SPDX-License-Identifier: GPL-2.0

//! What went wrong in `perf script` output, and where.

use std::fmt;

/// Why a vpa-dtl sample could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The first line of a sample is not followed by its second line: the
    /// input ends there, or the next line starts another sample.
    Truncated,
    /// A field is missing or not a number: `field` names it, `text` is the
    /// line it should have been on.
    Garbled {
        /// The field, as perf names it (`cpu`, `time` for the columns).
        field: &'static str,
        /// The offending line.
        text: String,
    },
}

/// A parse error: the kind and the 1-based line number it was found on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number in the input.
    pub line: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// At most this many characters of the offending line are quoted.
const QUOTE_MAX: usize = 120;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ParseErrorKind::Truncated => write!(
                f,
                "line {}: truncated sample (first line of a vpa-dtl sample with no second line)",
                self.line
            ),
            ParseErrorKind::Garbled { field, text } => {
                let t = text.trim();
                let quoted: String = t.chars().take(QUOTE_MAX).collect();
                let more = if t.chars().count() > QUOTE_MAX {
                    "..."
                } else {
                    ""
                };
                write!(
                    f,
                    "line {}: cannot parse `{field}` of a vpa-dtl sample: {quoted}{more}",
                    self.line
                )
            }
        }
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_line() {
        let e = ParseError {
            line: 17,
            kind: ParseErrorKind::Truncated,
        };
        assert_eq!(
            e.to_string(),
            "line 17: truncated sample (first line of a vpa-dtl sample with no second line)"
        );
        let e = ParseError {
            line: 3,
            kind: ParseErrorKind::Garbled {
                field: "timebase",
                text: "  x vpa-dtl: timebase: zz  ".into(),
            },
        };
        assert_eq!(
            e.to_string(),
            "line 3: cannot parse `timebase` of a vpa-dtl sample: x vpa-dtl: timebase: zz"
        );
    }

    #[test]
    fn long_lines_are_cut() {
        let e = ParseError {
            line: 1,
            kind: ParseErrorKind::Garbled {
                field: "cpu",
                text: "y".repeat(500),
            },
        };
        let s = e.to_string();
        assert!(s.ends_with(&format!("{}...", "y".repeat(120))), "{s}");
        assert!(!s.contains('\n'));
    }
}
