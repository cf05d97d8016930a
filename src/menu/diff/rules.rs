//! The rules of the menu diff, as data (the lint's and the store-menu read's rules apply too).

use crate::diagnostic::{Rule, Severity};

const fn rule(id: &'static str, severity: Severity, doc: &'static str) -> Rule {
    Rule { id, severity, doc }
}

#[doc = "The current side is the store menu read (`GET /api/v1/menu/stores/{storeRemoteId}`): `data.categories[]`, or `categories[]` bare."]
pub static NOT_A_STORE_MENU: Rule = rule(
    "diff/not-a-store-menu",
    Severity::Error,
    "The current side is the store menu read (`GET /api/v1/menu/stores/{storeRemoteId}`): `data.categories[]`, or `categories[]` bare.",
);
#[doc = "The upload would deactivate a share of the active catalog above the threshold: PUT /menu answers 409 above the service's threshold (not shown) unless `confirmLargeDeactivation=true`."]
pub static LARGE_DEACTIVATION: Rule = rule(
    "diff/large-deactivation",
    Severity::Warning,
    "The upload would deactivate a share of the active catalog above the threshold: PUT /menu answers 409 above the service's threshold (not shown) unless `confirmLargeDeactivation=true`.",
);
#[doc = "A product would move to another category than the one it is in now."]
pub static MOVES_CATEGORY: Rule =
    rule("diff/moves-category", Severity::Warning, "A product would move to another category than the one it is in now.");
#[doc = "`imageUrl` / `modifiers` were renamed `image` / `modifierGroups` on 2026-08-10 (read names equal write names)."]
pub static LEGACY_FIELD: Rule = rule(
    "diff/legacy-field",
    Severity::Warning,
    "`imageUrl` / `modifiers` were renamed `image` / `modifierGroups` on 2026-08-10 (read names equal write names).",
);
#[doc = "A store override (`overrides[]`) of an item the upload keeps stays on top of the master catalog: the upload does not touch it."]
pub static OVERRIDE_KEPT: Rule = rule(
    "diff/override-kept",
    Severity::Warning,
    "A store override (`overrides[]`) of an item the upload keeps stays on top of the master catalog: the upload does not touch it.",
);
#[doc = "An item matches several items on the other side (a duplicated remoteCode, or a duplicated name where names are the match): the diff does not guess."]
pub static AMBIGUOUS_MATCH: Rule = rule(
    "diff/ambiguous-match",
    Severity::Warning,
    "An item matches several items on the other side (a duplicated remoteCode, or a duplicated name where names are the match): the diff does not guess.",
);
#[doc = "An item has nothing to match it by (no remoteCode for a product or an option, no name for a category or a modifier group)."]
pub static UNMATCHABLE: Rule = rule(
    "diff/unmatchable",
    Severity::Warning,
    "An item has nothing to match it by (no remoteCode for a product or an option, no name for a category or a modifier group).",
);
#[doc = "Store-local products (`origin: store`) are not part of the master catalog PUT /menu replaces; what the upload does to them is not shown."]
pub static STORE_LOCAL: Rule = rule(
    "diff/store-local",
    Severity::Info,
    "Store-local products (`origin: store`) are not part of the master catalog PUT /menu replaces; what the upload does to them is not shown.",
);
#[doc = "A submitted product has the remoteCode of a store-local product; how the service resolves this is not shown."]
pub static STORE_LOCAL_COLLISION: Rule = rule(
    "diff/store-local-collision",
    Severity::Warning,
    "A submitted product has the remoteCode of a store-local product; how the service resolves this is not shown.",
);
#[doc = "A store-local product sits in a category the upload would deactivate; a local product whose category does not exist is never displayed."]
pub static LOCAL_CATEGORY_REMOVED: Rule = rule(
    "diff/local-category-removed",
    Severity::Warning,
    "A store-local product sits in a category the upload would deactivate; a local product whose category does not exist is never displayed.",
);
#[doc = "A new category holds most of the products of a category that would be deactivated: perhaps a rename, which this diff (matching categories by name) cannot tell."]
pub static POSSIBLE_RENAME: Rule = rule(
    "diff/possible-rename",
    Severity::Info,
    "A new category holds most of the products of a category that would be deactivated: perhaps a rename, which this diff (matching categories by name) cannot tell.",
);
#[doc = "The read's `image` is the re-hosted WebP URL, not the submitted URL: a submitted image URL cannot be compared with it."]
pub static IMAGE_NOT_COMPARED: Rule = rule(
    "diff/image-not-compared",
    Severity::Info,
    "The read's `image` is the re-hosted WebP URL, not the submitted URL: a submitted image URL cannot be compared with it.",
);
#[doc = "The list of changes is bounded (option `maxEntries`); the counts stay complete."]
pub static TRUNCATED: Rule =
    rule("diff/truncated", Severity::Info, "The list of changes is bounded (option `maxEntries`); the counts stay complete.");
#[doc = "The diff's own diagnostics are bounded (option `maxDiagnostics`); the rest were not reported."]
pub static TOO_MANY_DIAGNOSTICS: Rule = rule(
    "diff/too-many-diagnostics",
    Severity::Warning,
    "The diff's own diagnostics are bounded (option `maxDiagnostics`); the rest were not reported.",
);

/// Every rule the diff itself can emit (the next side also carries `menu::RULES`, the current
/// side `payload::RULES`).
pub static RULES: &[&Rule] = &[
    &NOT_A_STORE_MENU,
    &LARGE_DEACTIVATION,
    &MOVES_CATEGORY,
    &LEGACY_FIELD,
    &OVERRIDE_KEPT,
    &AMBIGUOUS_MATCH,
    &UNMATCHABLE,
    &STORE_LOCAL,
    &STORE_LOCAL_COLLISION,
    &LOCAL_CATEGORY_REMOVED,
    &POSSIBLE_RENAME,
    &IMAGE_NOT_COMPARED,
    &TRUNCATED,
    &TOO_MANY_DIAGNOSTICS,
];
