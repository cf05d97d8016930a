//! What `PUT /api/v1/menu` would do, computed locally before any call: the diff of a full menu
//! submission (`next`) against the live store menu (`current`, the `data` of
//! `GET /api/v1/menu/stores/{storeRemoteId}`, or that whole response).
//!
//! Spec sections: "Store menu (GET, data.categories[])", "Full menu submission tree", "Rules for
//! PUT /menu", the remoteCode rules, `overrides[]`, and the 2026-08-10 rename. What each part of
//! the matching rests on is data too: [`MATCH_BASIS`].
//!
//! - Products are matched by `remoteCode` across the whole menu, options by `remoteCode` within
//!   their matched modifier group (derived: the read carries the POS code as `remoteCode` on
//!   products and options, and the submission names every item by it).
//! - Categories and modifier groups: their remoteCodes are not preserved (stated), so the read
//!   cannot be matched by them. They are matched by `name` (categories across the menu, groups
//!   within their matched product): an assumption, since how the service matches them is not
//!   shown. A name used twice on either side is reported as an ambiguous match, never guessed.
//! - Deactivated: brand-origin items of the read absent from the submission (stated, "Rules for
//!   PUT /menu" 1). Store-local products (`origin: store`) are not part of the master catalog;
//!   what the upload does to them is not shown, so they are counted apart and never called
//!   deactivated.
//! - The deactivation share is deactivated brand products over brand products in the read
//!   (assumed: the unit of the service's threshold is not shown). Above `threshold` (default
//!   [`DEFAULT_THRESHOLD`], an assumption: the service's value is not shown) the diff warns that
//!   PUT /menu answers 409 unless `confirmLargeDeactivation=true` is sent.
//!
//! The matching is one function, [`match_level`], and the share one, [`deactivation_share`]: the
//! sandbox's `PUT /api/v1/menu` calls both, so the diff predicts what it does.
//!
//! Linear time: every match is a hash-map lookup, every list is walked a constant number of
//! times. The output is bounded: at most `max_entries` entries (the counts stay complete, and
//! `truncated` says how many were left out) and `max_diagnostics` diagnostics of the diff's own.
//!
//! ```
//! use poscheck::menu::diff::{diff, Change, DiffOptions};
//! let current = br#"{"categories": [{"code": "cat_1", "name": "Drinks", "position": 0, "products": [
//!   {"code": "prd_1", "categoryCode": "cat_1", "name": "Tea", "price": 2.5, "tax": 0.1, "position": 0,
//!    "maxPerOrder": 10, "origin": "brand", "orderable": true, "channels": ["delivery"],
//!    "remoteCode": "TEA", "description": null, "image": null, "resumesAt": null, "modifierGroups": []}]}]}"#;
//! let next = br#"{"categories": [{"remoteCode": "DRINKS", "name": "Drinks", "position": 0, "products": [
//!   {"remoteCode": "TEA", "name": "Tea", "price": 3, "tax": 0.1, "maxPerOrder": 10,
//!    "image": "https://cdn.example.com/tea.png"}]}]}"#;
//! let d = diff(current, next, &DiffOptions::default());
//! let tea = &d.entries[0];
//! assert_eq!(tea.change, Change::Updated);
//! assert_eq!(tea.changes[0].field, "price");
//! assert_eq!((tea.line, tea.column), (2, 18)); // the "TEA" of the submission
//! ```

mod levels;
pub mod matching;
mod model;
pub mod render;
pub mod rules;
mod values;
mod walk;

use crate::json::{self, Limits};
use crate::menu::{lint, LintOptions};
use walk::Differ;

pub use matching::{deactivation_share, match_level, Deactivation, Keys, Known, Left, Match, Matching};
pub use model::{Basis, Change, Counts, Entity, Entry, FieldChange, MatchBasis, MenuDiff, Side, Summary, Truncation, MATCH_BASIS};
pub use rules::RULES;
pub use values::percent;

/// The default deactivation threshold, a fraction of the active catalog. ASSUMED: the service's
/// threshold is "not shown" ("Limits"); 0.2 is this tool's choice, to be tuned by the caller.
pub const DEFAULT_THRESHOLD: f64 = 0.2;

/// Options of [`diff`]; every field has a default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffOptions {
    /// Bounds against hostile input, for both sides.
    pub limits: Limits,
    /// Warn (and the CLI exits 1) when the deactivated share of the active catalog is above this
    /// fraction (0 to 1).
    pub threshold: f64,
    /// At most this many entries are listed (counts stay complete).
    pub max_entries: usize,
    /// At most this many diagnostics per checker (the lint's budget, and the diff's own).
    pub max_diagnostics: usize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        Self { limits: Limits::default(), threshold: DEFAULT_THRESHOLD, max_entries: 10_000, max_diagnostics: 10_000 }
    }
}

/// An invalid option value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DiffOptionError(pub String);

impl DiffOptionError {
    /// Stable code: `INVALID_ARGUMENT`.
    pub fn code(&self) -> &'static str {
        "INVALID_ARGUMENT"
    }
}

/// Parses a threshold: a fraction (`0.2`) or a percentage (`20%`), between 0 and 1 (100%).
pub fn parse_threshold(s: &str) -> Result<f64, DiffOptionError> {
    let t = s.trim();
    let value = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    };
    match value {
        Ok(v) => check_threshold(v),
        Err(_) => Err(DiffOptionError(format!("the threshold must be a fraction (0.2) or a percentage (20%), got {s:?}"))),
    }
}

/// A threshold is a finite fraction between 0 and 1.
pub fn check_threshold(v: f64) -> Result<f64, DiffOptionError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(DiffOptionError(format!("the threshold must be a fraction between 0 and 1 (or 0% to 100%), got {v}")))
    }
}

/// Computes the diff. Never panics: an input that is not JSON, or not a menu, gives
/// `compared: false` with the reason in its report.
pub fn diff(current: &[u8], next: &[u8], options: &DiffOptions) -> MenuDiff {
    let threshold = check_threshold(options.threshold).unwrap_or(DEFAULT_THRESHOLD);
    let max_diagnostics = options.max_diagnostics.max(1);
    let limits = Limits { max_diagnostics: options.limits.max_diagnostics.min(max_diagnostics), ..options.limits }.clamped();
    let next_report = lint(next, &LintOptions { limits, max_diagnostics });
    let current_report = crate::shape::validate_store_menu(current, limits);
    let mut d = Differ::new(options, threshold);
    d.summary.would_be_refused = next_report.error_count > 0;
    let (cur_arena, next_arena) = (json::Arena::for_input(current.len()), json::Arena::for_input(next.len()));
    if let (Ok(cur), Ok(nxt)) = (json::parse(current, &limits, &cur_arena), json::parse(next, &limits, &next_arena)) {
        d.run(&cur.root, &nxt.root);
    }
    d.finish(current, next, current_report, next_report)
}

#[cfg(test)]
mod tests;
