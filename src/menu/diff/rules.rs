//! The rules of the menu diff, as data (the lint's and the store-menu read's rules apply too).

use crate::basis::Basis;
use crate::diagnostic::{Rule, Severity};

const fn rule(id: &'static str, basis: Basis, source: &'static str, severity: Severity, doc: &'static str) -> Rule {
    Rule { id, severity, doc, basis, source }
}

#[doc = "The current side is the store menu read (`GET /api/v1/menu/stores/{storeRemoteId}`): `data.categories[]`, or `categories[]` bare."]
pub static NOT_A_STORE_MENU: Rule = rule(
    "diff/not-a-store-menu",
    Basis::Stated,
    "Store menu (GET, data.categories[]): the current side is the store menu read",
    Severity::Error,
    "The current side is the store menu read (`GET /api/v1/menu/stores/{storeRemoteId}`): `data.categories[]`, or `categories[]` bare.",
);
#[doc = "The upload would deactivate a share of the active catalog above the threshold: PUT /menu answers 409 above the service's threshold (not shown) unless `confirmLargeDeactivation=true`."]
pub static LARGE_DEACTIVATION: Rule = rule(
    "diff/large-deactivation", Basis::Assumed, "Rules for PUT /menu, rule 2: 409 above a threshold of the active catalog; the threshold value is not shown",
    Severity::Warning,
    "The upload would deactivate a share of the active catalog above the threshold: PUT /menu answers 409 above the service's threshold (not shown) unless `confirmLargeDeactivation=true`.",
);
#[doc = "A product would move to another category than the one it is in now."]
pub static MOVES_CATEGORY: Rule = rule(
    "diff/moves-category",
    Basis::Assumed,
    "what moving a product to another category does is not shown",
    Severity::Warning,
    "A product would move to another category than the one it is in now.",
);
#[doc = "`imageUrl` / `modifiers` were renamed `image` / `modifierGroups` on 2026-08-10 (read names equal write names)."]
pub static LEGACY_FIELD: Rule = rule(
    "diff/legacy-field",
    Basis::Stated,
    "Versioning 2026-08-10 Breaking: menu read fields renamed to image and modifierGroups",
    Severity::Warning,
    "`imageUrl` / `modifiers` were renamed `image` / `modifierGroups` on 2026-08-10 (read names equal write names).",
);
#[doc = "A store override (`overrides[]`) of an item the upload keeps stays on top of the master catalog: the upload does not touch it."]
pub static OVERRIDE_KEPT: Rule = rule(
    "diff/override-kept",
    Basis::Derived,
    "overrides[]: store overrides on top of the master catalog; PUT /menu replaces the brand's master catalog",
    Severity::Warning,
    "A store override (`overrides[]`) of an item the upload keeps stays on top of the master catalog: the upload does not touch it.",
);
#[doc = "An item matches several items on the other side (a duplicated remoteCode, or a duplicated name where names are the match): the diff does not guess."]
pub static AMBIGUOUS_MATCH: Rule = rule(
    "diff/ambiguous-match", Basis::Assumed, "how the service matches items across an upload is not shown",
    Severity::Warning,
    "An item matches several items on the other side (a duplicated remoteCode, or a duplicated name where names are the match): the diff does not guess.",
);
#[doc = "An item has nothing to match it by (no remoteCode for a product or an option, no name for a category or a modifier group)."]
pub static UNMATCHABLE: Rule = rule(
    "diff/unmatchable",
    Basis::Assumed,
    "how the service matches items without a remoteCode is not shown",
    Severity::Warning,
    "An item has nothing to match it by (no remoteCode for a product or an option, no name for a category or a modifier group).",
);
#[doc = "Store-local products (`origin: store`) are not part of the master catalog PUT /menu replaces; what the upload does to them is not shown."]
pub static STORE_LOCAL: Rule = rule(
    "diff/store-local", Basis::Derived, "product origin store = local product; PUT /menu replaces the master catalog; what it does to local products is not shown",
    Severity::Info,
    "Store-local products (`origin: store`) are not part of the master catalog PUT /menu replaces; what the upload does to them is not shown.",
);
#[doc = "A submitted product has the remoteCode of a store-local product; how the service resolves this is not shown."]
pub static STORE_LOCAL_COLLISION: Rule = rule(
    "diff/store-local-collision",
    Basis::Assumed,
    "how the service resolves a remoteCode shared by a submitted and a local product is not shown",
    Severity::Warning,
    "A submitted product has the remoteCode of a store-local product; how the service resolves this is not shown.",
);
#[doc = "A store-local product sits in a category the upload would deactivate; a local product whose category does not exist is never displayed."]
pub static LOCAL_CATEGORY_REMOVED: Rule = rule(
    "diff/local-category-removed", Basis::Derived, "POST local product: a product whose category does not exist is created but never displayed",
    Severity::Warning,
    "A store-local product sits in a category the upload would deactivate; a local product whose category does not exist is never displayed.",
);
#[doc = "A new category holds most of the products of a category that would be deactivated: perhaps a rename, which this diff (matching categories by name) cannot tell."]
pub static POSSIBLE_RENAME: Rule = rule(
    "diff/possible-rename", Basis::Assumed, "renames are not shown; a guess of this toolkit",
    Severity::Info,
    "A new category holds most of the products of a category that would be deactivated: perhaps a rename, which this diff (matching categories by name) cannot tell.",
);
#[doc = "The read's `image` is the re-hosted WebP URL, not the submitted URL: a submitted image URL cannot be compared with it."]
pub static IMAGE_NOT_COMPARED: Rule = rule(
    "diff/image-not-compared",
    Basis::Stated,
    "Store menu: image is the re-hosted WebP URL, not the submitted URL",
    Severity::Info,
    "The read's `image` is the re-hosted WebP URL, not the submitted URL: a submitted image URL cannot be compared with it.",
);
#[doc = "The list of changes is bounded (option `maxEntries`); the counts stay complete."]
pub static TRUNCATED: Rule = rule(
    "diff/truncated",
    Basis::Assumed,
    "a bound of this toolkit on its report; not a rule of the service",
    Severity::Info,
    "The list of changes is bounded (option `maxEntries`); the counts stay complete.",
);
#[doc = "The diff's own diagnostics are bounded (option `maxDiagnostics`); the rest were not reported."]
pub static TOO_MANY_DIAGNOSTICS: Rule = rule(
    "diff/too-many-diagnostics",
    Basis::Assumed,
    "a bound of this toolkit on its report (the diagnostics budget); not a rule of the service",
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
