//! The rules of the menu linter, as data: a stable id, a default severity and a one-line doc.
//! [`RULES`] lists every rule [`lint`](super::lint) can emit, the `json/*` ones included.

use crate::basis::Basis;
use crate::diagnostic::{json_rules, Rule, Severity};

const fn error(id: &'static str, basis: Basis, source: &'static str, doc: &'static str) -> Rule {
    Rule { id, severity: Severity::Error, doc, basis, source }
}

const fn warning(id: &'static str, basis: Basis, source: &'static str, doc: &'static str) -> Rule {
    Rule { id, severity: Severity::Warning, doc, basis, source }
}

// --- errors: the service answers 422 -----------------------------------------------------------

#[doc = "The lint stops after `maxDiagnostics` diagnostics (an option, 10000 by default); the rest of the menu is not checked."]
pub static TOO_MANY_DIAGNOSTICS: Rule = error(
    "menu/too-many-diagnostics",
    Basis::Assumed,
    "a bound of this toolkit on its report; not a rule of the service",
    "The lint stops after `maxDiagnostics` diagnostics (an option, 10000 by default); the rest of the menu is not checked.",
);
#[doc = "The menu is a JSON object with a `categories` array."]
pub static ROOT_SHAPE: Rule = error(
    "menu/root-shape",
    Basis::Stated,
    "Full menu submission tree: root categories[]",
    "The menu is a JSON object with a `categories` array.",
);
#[doc = "Every category, product, modifier group and option is an object; `products`, `modifierGroups` and `options` are arrays."]
pub static TREE_SHAPE: Rule = error(
    "menu/tree-shape",
    Basis::Stated,
    "Full menu submission tree: category, product, modifier group, option levels",
    "Every category, product, modifier group and option is an object; `products`, `modifierGroups` and `options` are arrays.",
);
#[doc = "Every category, product, modifier group and option has a `remoteCode`."]
pub static REMOTE_CODE_REQUIRED: Rule = error(
    "remote-code/required",
    Basis::Stated,
    "Full menu submission tree: remoteCode rules: required on every entity",
    "Every category, product, modifier group and option has a `remoteCode`.",
);
#[doc = "A `remoteCode` is a string of 1 to 100 letters, digits, `_`, `.`, `-` or `:` (no spaces)."]
pub static REMOTE_CODE_FORMAT: Rule = error(
    "remote-code/format",
    Basis::Stated,
    "Full menu submission tree: letters, digits and _ . - :, no spaces, up to 100 characters",
    "A `remoteCode` is a string of 1 to 100 letters, digits, `_`, `.`, `-` or `:` (no spaces).",
);
#[doc = "Category remoteCodes are unique across the categories of the menu."]
pub static UNIQUE_CATEGORY: Rule = error(
    "remote-code/unique-category",
    Basis::Stated,
    "Full menu submission tree: unique across categories",
    "Category remoteCodes are unique across the categories of the menu.",
);
#[doc = "Product remoteCodes are unique across the whole menu."]
pub static UNIQUE_PRODUCT: Rule = error(
    "remote-code/unique-product",
    Basis::Stated,
    "Full menu submission tree: unique across the whole menu for products",
    "Product remoteCodes are unique across the whole menu.",
);
#[doc = "Modifier-group remoteCodes are unique within a product."]
pub static UNIQUE_GROUP: Rule = error(
    "remote-code/unique-group",
    Basis::Stated,
    "Full menu submission tree: unique within a product for groups",
    "Modifier-group remoteCodes are unique within a product.",
);
#[doc = "Option remoteCodes are unique within a modifier group."]
pub static UNIQUE_OPTION: Rule = error(
    "remote-code/unique-option",
    Basis::Stated,
    "Full menu submission tree: unique within a group for options",
    "Option remoteCodes are unique within a modifier group.",
);
#[doc = "`name` is a string, a product's `description` a string (or null), an option's `isDefault` a boolean."]
pub static FIELD_TYPE: Rule = error(
    "field/type",
    Basis::Stated,
    "Full menu submission tree: field types",
    "`name` is a string, a product's `description` a string (or null), an option's `isDefault` a boolean.",
);
#[doc = "A category's `position` is an integer of at least 0."]
pub static FIELD_POSITION: Rule = error(
    "field/position",
    Basis::Stated,
    "Full menu submission tree: position (integer); Menu endpoints: position at least 0",
    "A category's `position` is an integer of at least 0.",
);
#[doc = "`price` of a product or an option is a number of at least 0."]
pub static FIELD_PRICE: Rule = error(
    "field/price",
    Basis::Stated,
    "Full menu submission tree: price (number); set fields: price at least 0",
    "`price` of a product or an option is a number of at least 0.",
);
#[doc = "A product's `tax` is a fraction: a number between 0 and 1."]
pub static FIELD_TAX: Rule = error(
    "field/tax",
    Basis::Stated,
    "Limits: brand product tax is a fraction between 0 and 1",
    "A product's `tax` is a fraction: a number between 0 and 1.",
);
#[doc = "`maxPerOrder` is an integer above 0 (on an option, null too: the group's max governs)."]
pub static FIELD_MAX_PER_ORDER: Rule = error(
    "field/max-per-order",
    Basis::Derived,
    "Full menu submission tree: maxPerOrder (integer); brand set: maxPerOrder above 0",
    "`maxPerOrder` is an integer above 0 (on an option, null too: the group's max governs).",
);
#[doc = "Every product of a full submission has an `image`."]
pub static IMAGE_REQUIRED: Rule = error(
    "image/required",
    Basis::Stated,
    "Full menu submission tree: image is required on every product of a full submission; Errors: 422",
    "Every product of a full submission has an `image`.",
);
#[doc = "A product's `image` is an absolute http or https URL."]
pub static IMAGE_URL: Rule = error(
    "image/url",
    Basis::Stated,
    "Full menu submission tree: image (absolute http or https URL)",
    "A product's `image` is an absolute http or https URL.",
);
#[doc = "A modifier group's `min` is an integer of at least 0."]
pub static GROUP_MIN: Rule = error(
    "modifier-group/min",
    Basis::Stated,
    "Limits: modifier group min at least 0",
    "A modifier group's `min` is an integer of at least 0.",
);
#[doc = "A modifier group's `max` is an integer of at least 1."]
pub static GROUP_MAX: Rule = error(
    "modifier-group/max",
    Basis::Stated,
    "Limits: modifier group max at least 1",
    "A modifier group's `max` is an integer of at least 1.",
);
#[doc = "A modifier group's `max` is at least its `min`."]
pub static GROUP_MAX_BELOW_MIN: Rule =
    error("modifier-group/max-below-min", Basis::Stated, "Limits: max at least min", "A modifier group's `max` is at least its `min`.");
#[doc = "A modifier group's `type` is `radio` or `checkbox` (case-insensitive)."]
pub static GROUP_TYPE: Rule = error(
    "modifier-group/type",
    Basis::Stated,
    "Full menu submission tree: type (radio or checkbox)",
    "A modifier group's `type` is `radio` or `checkbox` (case-insensitive).",
);

// --- warnings: accepted, but wrong or surprising ----------------------------------------------

#[doc = "Products declaring a group with the same remoteCode share one brand-level group: differing declarations leave only one definition."]
pub static SHARED_GROUP_MISMATCH: Rule = warning(
    "modifier-group/shared-mismatch",
    Basis::Derived,
    "Full menu submission tree: two products declaring a group with the same remoteCode share that group",
    "Products declaring a group with the same remoteCode share one brand-level group: differing declarations leave only one definition.",
);
#[doc = "A group's `min` is more than its number of options: no order can satisfy it."]
pub static GROUP_MIN_OVER_OPTIONS: Rule = warning(
    "modifier-group/min-over-options",
    Basis::Assumed,
    "what the service does with an unsatisfiable min is not shown",
    "A group's `min` is more than its number of options: no order can satisfy it.",
);
#[doc = "A `radio` group allows one choice, yet its `max` is above 1."]
pub static GROUP_RADIO_MAX: Rule = warning(
    "modifier-group/radio-max",
    Basis::Assumed,
    "the meaning of radio beyond its name is not shown",
    "A `radio` group allows one choice, yet its `max` is above 1.",
);
#[doc = "A group has more `isDefault` options than its `max` allows."]
pub static GROUP_DEFAULTS_OVER_MAX: Rule = warning(
    "modifier-group/defaults-over-max",
    Basis::Assumed,
    "how defaults relate to max is not shown",
    "A group has more `isDefault` options than its `max` allows.",
);
#[doc = "A `radio` group has more than one `isDefault` option."]
pub static GROUP_RADIO_DEFAULTS: Rule = warning(
    "modifier-group/radio-defaults",
    Basis::Assumed,
    "the meaning of radio beyond its name is not shown",
    "A `radio` group has more than one `isDefault` option.",
);
#[doc = "A modifier group has no options."]
pub static GROUP_NO_OPTIONS: Rule =
    warning("modifier-group/no-options", Basis::Assumed, "whether a group may be empty is not shown", "A modifier group has no options.");
#[doc = "A field the submission tree does not define (read and write names are equal: `image`, `modifierGroups`, `remoteCode`)."]
pub static UNKNOWN_FIELD: Rule = warning(
    "field/unknown",
    Basis::Assumed,
    "the spec lists the fields; what the service does with others is not shown",
    "A field the submission tree does not define (read and write names are equal: `image`, `modifierGroups`, `remoteCode`).",
);
#[doc = "A category has no products."]
pub static CATEGORY_EMPTY: Rule =
    warning("category/empty", Basis::Assumed, "whether a category may be empty is not shown", "A category has no products.");
#[doc = "Two products of one category have the same name."]
pub static PRODUCT_DUPLICATE_NAME: Rule = warning(
    "product/duplicate-name",
    Basis::Assumed,
    "names are not said to be unique",
    "Two products of one category have the same name.",
);
#[doc = "A product's `image` is served over plain http; use https."]
pub static IMAGE_INSECURE: Rule = warning(
    "image/insecure-http",
    Basis::Assumed,
    "http is allowed by the spec; https is a recommendation of this toolkit",
    "A product's `image` is served over plain http; use https.",
);
#[doc = "A `remoteCode` with letters outside ASCII (é, ñ): the contract says \"letters\" without saying whether these are accepted."]
pub static REMOTE_CODE_NON_ASCII: Rule = warning(
    "remote-code/non-ascii-letter",
    Basis::Assumed,
    "the spec says \"letters\" without saying whether letters outside ASCII are accepted",
    "A `remoteCode` with letters outside ASCII (é, ñ): the contract says \"letters\" without saying whether these are accepted.",
);
#[doc = "An empty `categories` array: PUT /menu replaces the catalog, so every item would be deactivated."]
pub static EMPTY_CATEGORIES: Rule = warning(
    "menu/empty-categories",
    Basis::Derived,
    "Rules for PUT /menu, rule 1: the submission replaces the catalog",
    "An empty `categories` array: PUT /menu replaces the catalog, so every item would be deactivated.",
);

// --- info -------------------------------------------------------------------------------------

#[doc = "Category and modifier-group remoteCodes are not preserved: the service assigns its own codes (reported once per menu)."]
pub static NOT_PRESERVED: Rule = Rule {
    id: "remote-code/not-preserved",
    basis: Basis::Stated,
    source: "Full menu submission tree: category and group remoteCodes are not preserved",
    severity: Severity::Info,
    doc: "Category and modifier-group remoteCodes are not preserved: the service assigns its own codes (reported once per menu).",
};

/// Every rule the menu linter can emit, in documentation order.
pub static RULES: &[&Rule] = &[
    &json_rules::SYNTAX,
    &json_rules::INVALID_UTF8,
    &json_rules::TOO_DEEP,
    &json_rules::TOO_LARGE,
    &json_rules::DUPLICATE_KEY,
    &TOO_MANY_DIAGNOSTICS,
    &ROOT_SHAPE,
    &TREE_SHAPE,
    &REMOTE_CODE_REQUIRED,
    &REMOTE_CODE_FORMAT,
    &UNIQUE_CATEGORY,
    &UNIQUE_PRODUCT,
    &UNIQUE_GROUP,
    &UNIQUE_OPTION,
    &FIELD_TYPE,
    &FIELD_POSITION,
    &FIELD_PRICE,
    &FIELD_TAX,
    &FIELD_MAX_PER_ORDER,
    &IMAGE_REQUIRED,
    &IMAGE_URL,
    &GROUP_MIN,
    &GROUP_MAX,
    &GROUP_MAX_BELOW_MIN,
    &GROUP_TYPE,
    &SHARED_GROUP_MISMATCH,
    &GROUP_MIN_OVER_OPTIONS,
    &GROUP_RADIO_MAX,
    &GROUP_DEFAULTS_OVER_MAX,
    &GROUP_RADIO_DEFAULTS,
    &GROUP_NO_OPTIONS,
    &UNKNOWN_FIELD,
    &CATEGORY_EMPTY,
    &PRODUCT_DUPLICATE_NAME,
    &IMAGE_INSECURE,
    &EMPTY_CATEGORIES,
    &REMOTE_CODE_NON_ASCII,
    &NOT_PRESERVED,
];
