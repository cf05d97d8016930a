//! The rule registry: every rule a checker can report, each carrying its basis and source where it
//! is defined ([`Rule`]), listed once for `poscheck rules`, the page and the schemas.
//!
//! A checker keeps its rules beside its code (`payload::rules`, `menu::rules`, `menu::diff::rules`,
//! the order checker's, the JSON rules of [`crate::diagnostic::json_rules`]); this module only
//! lists them. The probe's checks are listed by [`crate::probe`], on top of these.

use crate::basis::Basis;
use crate::diagnostic::{Rule, Severity};
use serde::Serialize;

/// A rule with its basis, as the rule lists (`poscheck rules`, `menuRules()`, …) print it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RuleInfo {
    /// The rule id, e.g. `remote-code/unique-product`.
    pub id: &'static str,
    /// Its default severity.
    pub severity: Severity,
    /// Its one-line documentation.
    pub doc: &'static str,
    /// What it rests on.
    pub basis: Basis,
    /// The spec section or rules behind it.
    pub source: &'static str,
}

impl From<&Rule> for RuleInfo {
    fn from(r: &Rule) -> Self {
        RuleInfo { id: r.id, severity: r.severity, doc: r.doc, basis: r.basis, source: r.source }
    }
}

/// The rules of a list, each with its basis.
pub fn infos(rules: &[&Rule]) -> Vec<RuleInfo> {
    rules.iter().map(|r| RuleInfo::from(*r)).collect()
}

/// Every rule the checkers can report, once each: the JSON rules, the menu linter's, the payload,
/// request and problem checkers', the order checker's and the menu diff's.
pub fn all() -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = crate::diagnostic::json_rules::ALL.to_vec();
    rules.extend(crate::menu::RULES.iter().copied());
    rules.extend(crate::payload::RULES.iter().copied());
    rules.extend(crate::order::RULES.iter().copied());
    rules.extend(crate::menu::diff::RULES.iter().copied());
    let mut seen = std::collections::BTreeSet::new();
    rules.retain(|r| seen.insert(r.id));
    rules
}

/// The rule with this id, if a checker has one.
pub fn find(id: &str) -> Option<&'static Rule> {
    all().into_iter().find(|r| r.id == id)
}

/// Errors about this toolkit's own bounds (input too deep or too large, too many diagnostics,
/// an input it cannot place): they say that nothing (more) could be checked, and predict nothing
/// about the service.
pub const TOOLKIT_BOUNDS: &[&str] = &["json/too-deep", "json/too-large", "payload/kind-undetected"];

/// Whether a rule id is one of this toolkit's own bounds (the `*/too-many-diagnostics` budget
/// of every checker included).
pub fn is_toolkit_bound(id: &str) -> bool {
    TOOLKIT_BOUNDS.contains(&id) || id.ends_with("/too-many-diagnostics")
}

/// The basis and source of a rule id (assumed, saying so, for an id no checker has).
pub fn grounds(id: &str) -> (Basis, &'static str) {
    find(id).map_or((Basis::Assumed, "not a rule of this toolkit"), |r| (r.basis, r.source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_source_and_no_error_rests_on_an_assumption() {
        let rules = all();
        assert!(rules.len() > 150, "only {} rules listed", rules.len());
        for r in rules {
            assert!(!r.source.is_empty(), "rule {} has no source", r.id);
            if r.severity == Severity::Error && !is_toolkit_bound(r.id) {
                assert_ne!(r.basis, Basis::Assumed, "rule {} is an error resting on an assumption", r.id);
            }
        }
    }

    #[test]
    fn ids_are_unique_across_the_checkers_and_found_by_id() {
        let rules = all();
        let ids: std::collections::BTreeSet<&str> = rules.iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), rules.len());
        assert_eq!(find("remote-code/unique-product").map(|r| r.basis), Some(Basis::Stated));
        assert_eq!(grounds("no/such-rule").0, Basis::Assumed);
    }
}
