//! What a prediction or a rule rests on (design.md, "Predictions say what they rest on").
//!
//! - `stated`: the spec says it in so many words (the source names the section);
//! - `derived`: it follows from stated rules (the source names them);
//! - `assumed`: the spec shows nothing; the toolkit's best guess (the source says so).
//!
//! A rule of severity `error` rests only on stated or derived facts; an assumed outcome is at
//! most a warning. Each rule carries its own basis and source ([`crate::diagnostic::Rule`]); the
//! registry ([`crate::rules`]) lists them and the tests hold every rule to that.

use serde::Serialize;

/// Where a fact comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum Basis {
    /// The spec says it.
    Stated,
    /// It follows from stated rules (named in the source).
    Derived,
    /// The spec shows nothing: a best guess, never an error.
    Assumed,
}

impl Basis {
    /// `stated`, `derived` or `assumed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stated => "stated",
            Self::Derived => "derived",
            Self::Assumed => "assumed",
        }
    }
}

/// A basis with its source: the spec section (stated), the rules it follows from (derived), or
/// what the spec does not show (assumed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Grounds {
    /// What kind of support the statement has.
    pub basis: Basis,
    /// Where: the spec section quoted, the rules it follows from, or what is not shown.
    pub source: String,
}

impl Grounds {
    /// Stated by the spec in `source` (a section).
    pub fn stated(source: impl Into<String>) -> Self {
        Self { basis: Basis::Stated, source: source.into() }
    }
    /// Derived from the stated rules named in `source`.
    pub fn derived(source: impl Into<String>) -> Self {
        Self { basis: Basis::Derived, source: source.into() }
    }
    /// Assumed: `source` says what the spec does not show.
    pub fn assumed(source: impl Into<String>) -> Self {
        Self { basis: Basis::Assumed, source: source.into() }
    }
}

/// The grounds of each part of a predicted answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct PredictionBasis {
    /// The HTTP status (or the transition) predicted.
    pub status: Grounds,
    /// The problem `type`, for an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub problem_type: Option<Grounds>,
    /// The problem `meta`, for an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub meta: Option<Grounds>,
}

impl PredictionBasis {
    /// The weakest basis of the parts.
    pub fn overall(&self) -> Basis {
        let mut b = self.status.basis;
        for g in [&self.problem_type, &self.meta].into_iter().flatten() {
            b = b.max(g.basis);
        }
        b
    }
}
