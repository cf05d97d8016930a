//! What a prediction or a rule rests on (design.md, "Predictions say what they rest on").
//!
//! - `stated`: the spec says it in so many words (the source names the section);
//! - `derived`: it follows from stated rules (the source names them);
//! - `assumed`: the spec shows nothing; the toolkit's best guess (the source says so).
//!
//! A rule of severity `error` rests only on stated or derived facts; an assumed outcome is at
//! most a warning. [`rule_grounds`] gives the basis of every rule id the toolkit can emit, and the
//! tests hold every rule list to that.

use crate::diagnostic::{Rule, Severity};
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

/// The rules of a list, each with its basis.
pub fn rule_infos(rules: &[&Rule]) -> Vec<RuleInfo> {
    rules
        .iter()
        .map(|r| {
            let (basis, source) = rule_grounds(r.id);
            RuleInfo { id: r.id, severity: r.severity, doc: r.doc, basis, source }
        })
        .collect()
}

use Basis::{Assumed as A, Derived as D, Stated as S};

/// Every rule id with its basis and source. Rules not listed are reported as assumed (and the
/// tests fail for them).
static RULE_GROUNDS: &[(&str, Basis, &str)] = &[
    // JSON text
    ("json/syntax", D, "Errors: 422 invalid body; a body that is not JSON (RFC 8259) is invalid"),
    ("json/invalid-utf8", D, "Errors: 422 invalid body; JSON text is UTF-8 (RFC 8259)"),
    ("json/too-deep", A, "a bound of this toolkit on its own input; the service's limit is not shown"),
    ("json/too-large", A, "a bound of this toolkit on its own input; the service's limit is not shown"),
    ("json/duplicate-key", A, "which duplicate the service keeps is not shown"),
    // menu linter
    ("menu/too-many-diagnostics", A, "a bound of this toolkit on its report; not a rule of the service"),
    ("menu/root-shape", S, "Full menu submission tree: root categories[]"),
    ("menu/tree-shape", S, "Full menu submission tree: category, product, modifier group, option levels"),
    ("remote-code/required", S, "Full menu submission tree: remoteCode rules: required on every entity"),
    ("remote-code/format", S, "Full menu submission tree: letters, digits and _ . - :, no spaces, up to 100 characters"),
    ("remote-code/non-ascii-letter", A, "the spec says \"letters\" without saying whether letters outside ASCII are accepted"),
    ("remote-code/unique-category", S, "Full menu submission tree: unique across categories"),
    ("remote-code/unique-product", S, "Full menu submission tree: unique across the whole menu for products"),
    ("remote-code/unique-group", S, "Full menu submission tree: unique within a product for groups"),
    ("remote-code/unique-option", S, "Full menu submission tree: unique within a group for options"),
    ("remote-code/not-preserved", S, "Full menu submission tree: category and group remoteCodes are not preserved"),
    ("field/type", S, "Full menu submission tree: field types"),
    ("field/position", S, "Full menu submission tree: position (integer); Menu endpoints: position at least 0"),
    ("field/price", S, "Full menu submission tree: price (number); set fields: price at least 0"),
    ("field/tax", S, "Limits: brand product tax is a fraction between 0 and 1"),
    ("field/max-per-order", D, "Full menu submission tree: maxPerOrder (integer); brand set: maxPerOrder above 0"),
    ("field/unknown", A, "the spec lists the fields; what the service does with others is not shown"),
    ("image/required", S, "Full menu submission tree: image is required on every product of a full submission; Errors: 422"),
    ("image/url", S, "Full menu submission tree: image (absolute http or https URL)"),
    ("image/insecure-http", A, "http is allowed by the spec; https is a recommendation of this toolkit"),
    ("modifier-group/min", S, "Limits: modifier group min at least 0"),
    ("modifier-group/max", S, "Limits: modifier group max at least 1"),
    ("modifier-group/max-below-min", S, "Limits: max at least min"),
    ("modifier-group/type", S, "Full menu submission tree: type (radio or checkbox)"),
    (
        "modifier-group/shared-mismatch",
        D,
        "Full menu submission tree: two products declaring a group with the same remoteCode share that group",
    ),
    ("modifier-group/min-over-options", A, "what the service does with an unsatisfiable min is not shown"),
    ("modifier-group/radio-max", A, "the meaning of radio beyond its name is not shown"),
    ("modifier-group/defaults-over-max", A, "how defaults relate to max is not shown"),
    ("modifier-group/radio-defaults", A, "the meaning of radio beyond its name is not shown"),
    ("modifier-group/no-options", A, "whether a group may be empty is not shown"),
    ("category/empty", A, "whether a category may be empty is not shown"),
    ("product/duplicate-name", A, "names are not said to be unique"),
    ("menu/empty-categories", D, "Rules for PUT /menu, rule 1: the submission replaces the catalog"),
    // menu diff (what PUT /menu would do)
    ("diff/not-a-store-menu", S, "Store menu (GET, data.categories[]): the current side is the store menu read"),
    (
        "diff/large-deactivation",
        A,
        "Rules for PUT /menu, rule 2: 409 above a threshold of the active catalog; the threshold value is not shown",
    ),
    ("diff/moves-category", A, "what moving a product to another category does is not shown"),
    ("diff/legacy-field", S, "Versioning 2026-08-10 Breaking: menu read fields renamed to image and modifierGroups"),
    ("diff/override-kept", D, "overrides[]: store overrides on top of the master catalog; PUT /menu replaces the brand's master catalog"),
    ("diff/ambiguous-match", A, "how the service matches items across an upload is not shown"),
    ("diff/unmatchable", A, "how the service matches items without a remoteCode is not shown"),
    (
        "diff/store-local",
        D,
        "product origin store = local product; PUT /menu replaces the master catalog; what it does to local products is not shown",
    ),
    ("diff/store-local-collision", A, "how the service resolves a remoteCode shared by a submitted and a local product is not shown"),
    ("diff/local-category-removed", D, "POST local product: a product whose category does not exist is created but never displayed"),
    ("diff/possible-rename", A, "renames are not shown; a guess of this toolkit"),
    ("diff/image-not-compared", S, "Store menu: image is the re-hosted WebP URL, not the submitted URL"),
    ("diff/truncated", A, "a bound of this toolkit on its report; not a rule of the service"),
    // order checker
    ("order/required", S, "Resources and their fields: X | null means the field is always present"),
    ("order/type", S, "Resources and their fields: Order, history[] entry (types)"),
    ("order/unknown-field", A, "the spec lists the fields; others are not shown"),
    ("order/order-key", S, "Order: orderKey is ord_ + 16 base62 characters"),
    ("order/status", S, "States and transitions: read vocabulary"),
    ("order/accepted-observed", S, "States and transitions: Accepted is never observable by the POS"),
    ("order-list/accepted-observed", S, "States and transitions: Accepted is never observable by the POS"),
    ("order/timestamp", S, "Resources and their fields: timestamps are ISO 8601 in UTC"),
    ("order/history-first", S, "history[] entry: fromStatus null on the first entry"),
    ("order/initial-status", A, "the first status of an order is not shown (every trigger of the table starts from Pending)"),
    ("order/history-order", S, "Order: history is a chronological trace"),
    ("order/history-continuity", D, "Order: history is a chronological trace of status changes"),
    ("order/history-transition", D, "States and transitions: the table"),
    ("order/transition-not-shown", S, "States and transitions: transitions of Cancelled from states other than HandedOver: not shown"),
    ("order/history-status", D, "Order: history traces the status changes; status is the current status"),
    ("order/driver-row", S, "history[] entry rule: assign, reassign and release rows have fromStatus equal to toStatus"),
    ("order/driver-object", S, "history[] entry: driver object"),
    ("order/actor-type", S, "history[] entry: actorType enum"),
    ("order/actor-id", S, "history[] entry: actorId null for system"),
    ("order/timestamp-missing", D, "States and transitions: acceptedAt set, rejectedAt set; Order: merchant transition timestamps"),
    ("order/timestamp-unexpected", D, "Order list item: acceptedAt null if pending or rejected; Order: transition timestamps"),
    ("order/cascade", A, "preparingAt usually equals acceptedAt: that it is never before is not stated"),
    ("order/timestamp-sequence", D, "States and transitions: the order of the states; deliveredAt later than handedOverAt"),
    ("order/accepted-after-expiry", S, "States and transitions: POST accept after expiresAt: 409 acceptance-timeout"),
    ("order/driver-assigned-at", S, "Order: driverAssignedAt cleared when the driver is released"),
    ("order/delivered-at", S, "Order: deliveredAt (before 2026-08-12 null; later than handedOverAt on delivery; equal on pickup)"),
    (
        "order/handed-over-at",
        A,
        "handedOverAt may be null while HandedOver when the merchant never reported the handover; the converse is not stated",
    ),
    ("order/commercial", S, "data.order: createdAt, expiresAt, fulfillment.type, customer only on pickup"),
    ("order/order-null", S, "Order: order is null only if the original snapshot cannot be read"),
    // payloads and requests
    ("payload/required-field", S, "Resources and their fields; Webhook payloads (required, always present)"),
    ("payload/field-type", S, "Resources and their fields; Webhook payloads (types)"),
    ("payload/value-range", S, "Menu endpoints and Limits (ranges)"),
    ("payload/enum-value", S, "the value lists of the contract"),
    ("payload/timestamp", S, "Resources and their fields: timestamps are ISO 8601 in UTC"),
    ("payload/timestamp-offset", A, "a timestamp with an offset is ISO 8601 but not UTC; whether the service refuses it is not shown"),
    ("payload/unknown-field", A, "the spec lists the fields; others are not shown"),
    ("payload/order-key-format", S, "orderKey: ord_ + 16 base62 characters"),
    ("payload/change-key-format", S, "changeKey: chg_ + 16 base62"),
    ("payload/renamed-field", S, "Versioning 2026-08-10 Breaking: menu read fields renamed to image and modifierGroups"),
    ("payload/kind-undetected", A, "this toolkit could not tell what the input is; nothing was checked"),
    ("payload/kind-ambiguous", A, "this toolkit's guess between shapes"),
    ("payload/path-unknown", A, "this toolkit's routing of a path"),
    ("payload/path-kind-mismatch", A, "this toolkit's routing of a path"),
    ("order-update/unknown-event", S, "OrderUpdateEvent: unknown future values are ignored with a 200"),
    ("order-update/field-missing-for-event", S, "OrderUpdateEvent: reason, driver, releasedDriver, expectedNext present for their events"),
    ("order-update/field-not-for-event", S, "OrderUpdateEvent: reason absent otherwise"),
    ("order-update/unknown-expected-next", S, "OrderUpdateEvent: unknown values of expectedNext tolerated"),
    ("order-update/driver-phone-format", S, "OrderEventDriver: phone in international format (+ and digits)"),
    (
        "order-update/driver-phone-shape",
        A,
        "\"international format\" is stated; a form without + (00 prefix, spaces) is not shown either way",
    ),
    ("order-update/remote-order-id-path", S, "OrderUpdateEvent: the path parameter is authoritative"),
    ("order-update/status-field-removed", S, "Events rule 5: the former status field is no longer emitted"),
    ("order-update/old-route", S, "Events rule 5: the former /status route is no longer emitted"),
    ("menu-change/change-key-path", S, "MenuChangeCompletedWebhook: changeKey equals the path parameter"),
    ("menu-change/status-results", S, "MenuChangeCompletedWebhook: applied = all stores succeeded, failed = all failed"),
    ("menu-change/completed-before-submitted", D, "submittedAt and completedAt: completion follows submission"),
    ("menu-change/error-fields-on-applied", S, "MenuChangeResult: when applied is true both are omitted"),
    ("menu-change/error-fields-missing", S, "MenuChangeResult: present only when applied is false"),
    ("menu-change/unknown-target-entity", S, "MenuChangeResult: targetEntity values in use (an open list)"),
    ("menu-change/completed-at-status", S, "Menu change: completedAt null while pending"),
    ("menu-change/applied-at-failed", S, "Menu change: appliedAt null when failed"),
    ("menu-change/applied-with-failures", S, "Menu change: a global Applied may coexist with rows where applied is false"),
    ("menu-write-answer/change-id", S, "Menu scopes and async model: every menu write returns 202 with data.changeId"),
    ("order-answer/status", S, "Orders endpoints: the 202 data of accept (Preparing), reject (Rejected), PUT status (PascalCase result)"),
    ("order-answer/preparing-at", S, "Orders endpoints: accept 202: preparingAt is not included"),
    ("order-answer/reason", D, "Orders rule 2: an unknown reasonCode is normalized to SYSTEM_ISSUE and returned so in data.reason"),
    ("order/currency", S, "data.order: currency ISO 4217"),
    ("order/expires-at-null", S, "data.order: expiresAt null for auto-accept stores"),
    ("order/fulfillment-time-missing", S, "data.order: fulfillment driverPickupAt (delivery) or customerPickupAt (pickup)"),
    ("order/fulfillment-time-unexpected", S, "data.order: driverPickupAt (delivery) or customerPickupAt (pickup)"),
    ("order/customer-on-delivery", S, "data.order: customer only on pickup, null on delivery"),
    ("order/store-remote-id-path", S, "Endpoints the POS exposes: remoteId is the merchant's store code"),
    ("order/read-status", S, "States and transitions: read vocabulary; the list filter does not accept DriverAssigned"),
    ("pos-answer/remote-order-id", S, "Endpoints the POS exposes: 200 with remoteOrderId non-null and non-empty"),
    ("merchant-error/suggested-shape", S, "MerchantErrorResponse: any JSON or an empty body is accepted"),
    ("order-list/has-more-cursor", S, "GET /api/v1/Orders: nextCursor null on the last page; hasMore the loop stop condition"),
    ("order-list/page-size", S, "Limits: list page size maximum 100"),
    ("order-list/accepted-at-status", S, "Order list item: acceptedAt null if pending or rejected"),
    ("store-menu/override-field-for-type", S, "overrides[]: only fields applicable to the type are populated"),
    ("store-menu/empty-overrides", S, "overrides[]: items with no override omit the field"),
    ("store-menu/override-drives-state", S, "overrides[]: element 0 drives orderable and resumesAt"),
    ("menu/group-min-max", S, "Limits: modifier group min at least 0; max at least 1 and at least min"),
    ("menu/image-url", S, "Store menu: image (re-hosted WebP URL)"),
    ("capabilities/unknown-value", S, "Capability entry: entity, field and scope values"),
    ("capabilities/duplicate-entry", A, "whether an entry may repeat is not shown"),
    ("request/unknown-endpoint", S, "Errors: 404 resource does not exist"),
    ("request/path-casing", S, "Conventions: casing is exact"),
    ("request/method-not-allowed", A, "the status for a method a path does not take is not shown"),
    ("request/path-id-format", D, "Errors: 404 resource does not exist; ids are ord_/chg_ + 16 base62"),
    ("request/api-key-missing", S, "Authentication 1: a missing, invalid or revoked key gives 401"),
    ("request/schema-version", S, "Errors: 400 X-Service-Schema-Version missing or unsupported"),
    ("request/idempotency-key-missing", S, "Errors: 422 missing Idempotency-Key"),
    ("request/idempotency-key-format", A, "Idempotency-Key is a UUID v4; the answer to another format is not shown"),
    ("request/content-type", A, "mutations carry Content-Type: application/json; the answer to another type is not shown"),
    ("request/idempotency-key-on-read", S, "GET /api/v1/Orders/{orderKey}: no Idempotency-Key"),
    ("request/body-missing", D, "Errors: 422 invalid body; the endpoint's body has required fields"),
    ("request/accept-body-missing", A, "POST accept: body empty JSON object; the answer to no body is not shown"),
    ("request/body-ignored", A, "GET takes no body; what the service does with one is not shown"),
    ("request/unknown-query-parameter", A, "what the service does with a query parameter it does not define is not shown"),
    ("request/page-size", S, "Limits: list page size maximum 100"),
    ("request/page-size-value", A, "PageSize is an integer; the answer to 0, a negative or a non-integer is not shown"),
    ("accept/remote-order-id", S, "POST accept: remoteOrderId must not be sent"),
    ("reject/reason-code-normalized", S, "Orders rule 2: normalized to SYSTEM_ISSUE, never a 422"),
    ("status-update/cancelled-refused", S, "States and transitions: PUT status cancelled is not accepted"),
    ("status-update/preparing-conflict", S, "States and transitions: PUT status preparing after accept returns 409"),
    ("status-update/occurred-at-clamped", S, "Orders rule 3: occurredAt clamped to [now - 24 h, now + 5 min]"),
    ("menu-write/not-shipped", S, "Menu scopes: only shipped combinations are accepted; others return 422"),
    ("menu-write/pending-customer-rollout", S, "Menu scopes: modifierOption price and name in store scope carry pendingCustomerRollout"),
    ("menu-write/stores-scope", S, "Menu scopes: stores[] required in store scope, omitted in brand scope"),
    ("menu-write/empty-stores", A, "what an empty stores[] does is not shown"),
    ("menu-write/brand-only", S, "Menu scopes: category and modifierGroup are brand-only"),
    ("menu-write/category-code-required", S, "PATCH modifier-options: categoryCode required in brand scope"),
    ("menu-write/empty-set", S, "PATCH: absent or null field = no change"),
    ("menu-write/schedule", S, "set fields: schedule days[] and HH:mm times"),
    ("menu-write/no-channel", S, "set fields: an empty list means no channel"),
    ("menu-write/local-product-set-not-shown", S, "POST /menu/changes: localProduct set fields are not shown"),
    ("menu-body/preview-warning", S, "POST /menu/preview: deeper semantic validations come back as warnings, not 422"),
    ("local-product/tax", S, "Limits: local product tax only 0, 0.15, 0.18"),
    ("local-product/available-ignored", S, "POST local product: available ignored on creation"),
    ("local-product/position-not-accepted", S, "POST local product: position is not accepted"),
    ("local-product/code-format", D, "POST local product: code kept as remoteCode (remoteCode rules)"),
    ("problem/not-problem-json", S, "Errors: every error follows RFC 7807"),
    ("problem/missing-member", S, "Errors: type, title, detail, status, traceId, meta"),
    ("problem/status-mismatch", S, "Errors: status (integer)"),
    ("problem/unknown-type", S, "Errors: known type suffixes"),
    ("problem/meta-shape", S, "Errors: meta shapes"),
    (
        "problem/read-status",
        S,
        "Errors: meta shapes: transition 409 { currentStatus, allowedTransitions } (PascalCase); States and transitions: read vocabulary",
    ),
    ("problem/retry-after", S, "Errors: 429 honour Retry-After"),
];

/// Errors about this toolkit's own bounds (input too deep or too large, too many diagnostics,
/// an input it cannot place): they say that nothing (more) could be checked, and predict nothing
/// about the service.
pub const TOOLKIT_BOUNDS: &[&str] = &["json/too-deep", "json/too-large", "payload/kind-undetected"];

/// Whether a rule id is one of this toolkit's own bounds (the `*/too-many-diagnostics` budget
/// of every checker included).
pub fn is_toolkit_bound(id: &str) -> bool {
    TOOLKIT_BOUNDS.contains(&id) || id.ends_with("/too-many-diagnostics")
}

/// The basis and source of a rule id.
pub fn rule_grounds(id: &str) -> (Basis, &'static str) {
    if id.ends_with("/too-many-diagnostics") {
        return (Basis::Assumed, "a bound of this toolkit on its report (the diagnostics budget); not a rule of the service");
    }
    RULE_GROUNDS.iter().find(|(i, _, _)| *i == id).map_or((Basis::Assumed, "not in the basis table of this toolkit"), |(_, b, s)| (*b, *s))
}

/// Whether a rule id has an entry in the basis table.
pub fn has_grounds(id: &str) -> bool {
    id.ends_with("/too-many-diagnostics") || RULE_GROUNDS.iter().any(|(i, _, _)| *i == id)
}

/// The rules that may appear in a request prediction (rules of the body checkers included).
pub fn all_rules() -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = crate::diagnostic::json_rules::ALL.to_vec();
    rules.extend(crate::menu::RULES.iter().copied());
    rules.extend(crate::payload::RULES.iter().copied());
    rules.extend(crate::order::RULES.iter().copied());
    rules.extend(crate::menu::diff::RULES.iter().copied());
    let mut seen = std::collections::BTreeSet::new();
    rules.retain(|r| seen.insert(r.id));
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_grounds_and_no_error_rests_on_an_assumption() {
        for r in all_rules() {
            assert!(has_grounds(r.id), "rule {} has no basis in RULE_GROUNDS", r.id);
            let (basis, _) = rule_grounds(r.id);
            if r.severity == Severity::Error && !is_toolkit_bound(r.id) {
                assert_ne!(basis, Basis::Assumed, "rule {} is an error resting on an assumption", r.id);
            }
        }
    }
}
