//! The diff's result: what the upload does to each item, the counts, and what the matching rests on.

use crate::contract::TargetEntity;
use crate::diagnostic::Report;
use crate::json::Span;
use serde::Serialize;

pub use crate::basis::Basis;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "lowercase")]
/// What the upload does to an item.
pub enum Change {
    /// New in the submission.
    Created,
    /// In both, with fields that change.
    Updated,
    /// In the master catalog, absent from the submission.
    Deactivated,
    /// Matches several items on the other side: not classified.
    Ambiguous,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
/// The levels of a menu.
pub enum Entity {
    /// A category.
    Category,
    /// A product.
    Product,
    /// A modifier group.
    ModifierGroup,
    /// A modifier option.
    Option,
}

/// Which input an entry's position is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The store menu read.
    Current,
    /// The full submission.
    Next,
}

/// One field that changes: `price` 8.5 → 9. `old` / `new` are absent when the field is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    /// The field name, e.g. `price`.
    pub field: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Its value in the read.
    pub old: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Its value in the submission.
    pub new: Option<serde_json::Value>,
    /// What the comparison rests on.
    pub basis: Basis,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Why the comparison is limited, when it is.
    pub note: Option<String>,
    /// Where the new value is in `next` (absent when the field is absent there).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Column of the new value (UTF-16 code units).
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Byte offsets of the new value in `next`.
    pub span: Option<Span>,
}

/// One created, updated, deactivated or ambiguous item.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "DiffEntry"))]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Created, updated, deactivated or ambiguous.
    pub change: Change,
    /// Category, product, modifier group or option.
    pub entity: Entity,
    /// The POS code (products and options; on the next side, categories' and groups' too).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub remote_code: Option<String>,
    /// The service's code, from the read (matched and deactivated items).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Its name.
    pub name: Option<String>,
    /// What the item belongs to, for groups and options: `product BURGER-1`, `group "Extras"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub parent: Option<String>,
    /// `next` for created, updated and ambiguous items; `current` for deactivated ones.
    pub side: Side,
    /// The item in the service's path style, in the side's input.
    pub path: String,
    /// The item as an RFC 6901 pointer into the side's input.
    pub pointer: String,
    /// Position of the item's remoteCode (or name, or the object) in the side's input.
    pub line: u32,
    /// Column (UTF-16 code units).
    pub column: u32,
    /// Byte offsets in the side's input.
    pub span: Span,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<FieldChange>>", optional))]
    /// The fields that change (updated items).
    pub changes: Vec<FieldChange>,
    /// What the match rests on.
    pub basis: Basis,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// A remark on the match.
    pub note: Option<String>,
}

/// Counts per entity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Categories.
    pub categories: usize,
    /// Products.
    pub products: usize,
    /// Modifier groups.
    pub modifier_groups: usize,
    /// Modifier options.
    pub options: usize,
}

impl Counts {
    pub(super) fn add(&mut self, e: Entity) {
        match e {
            Entity::Category => self.categories += 1,
            Entity::Product => self.products += 1,
            Entity::ModifierGroup => self.modifier_groups += 1,
            Entity::Option => self.options += 1,
        }
    }

    /// All entities together.
    pub fn total(&self) -> usize {
        self.categories + self.products + self.modifier_groups + self.options
    }
}

/// The numbers of the diff. Groups and options of a created or deactivated product go with that
/// product (not counted apart); a product is updated when its own fields change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "DiffSummary"))]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Items the upload creates.
    pub created: Counts,
    /// Items whose fields change.
    pub updated: Counts,
    /// Items the upload deactivates.
    pub deactivated: Counts,
    /// Items matched with no change.
    pub unchanged: Counts,
    /// Items that match several on the other side.
    pub ambiguous: Counts,
    /// Brand-origin products in the read: the active catalog the share is taken of.
    pub active_products: usize,
    /// Store-local products in the read (`origin: store`), outside the master catalog.
    pub store_local_products: usize,
    /// Deactivated products over `activeProducts` (0 when there are none).
    pub deactivated_share: f64,
    /// The threshold in force (the caller's, or the assumed default).
    pub threshold: f64,
    /// The deactivated share is above it.
    pub above_threshold: bool,
    /// Products whose image could not be compared (the read's image is the re-hosted URL).
    pub images_not_compared: usize,
    /// The submission has lint errors: the service would refuse it (422) before any of this.
    pub would_be_refused: bool,
}

/// Entries left out of [`MenuDiff::entries`] by the `max_entries` bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Entries listed.
    pub shown: usize,
    /// Entries found.
    pub total: usize,
}

/// One line of "what the matching rests on".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct MatchBasis {
    /// What is matched, e.g. `products`.
    pub topic: &'static str,
    /// How.
    pub rule: &'static str,
    /// What that rests on.
    pub basis: Basis,
    /// The spec section, or what it does not show.
    pub source: &'static str,
}

/// What every part of the diff rests on.
pub static MATCH_BASIS: &[MatchBasis] = &[
    MatchBasis {
        topic: TargetEntity::Product.as_str(),
        rule: "matched by remoteCode across the whole menu",
        basis: Basis::Derived,
        source: "Store menu: remoteCode is the POS code on products; Full menu submission tree: product remoteCodes are unique across the menu and only category and group remoteCodes are not preserved",
    },
    MatchBasis {
        topic: "option",
        rule: "matched by remoteCode within its matched modifier group",
        basis: Basis::Derived,
        source: "Store menu: remoteCode on options; remoteCode rules: unique within a group",
    },
    MatchBasis {
        topic: TargetEntity::Category.as_str(),
        rule: "matched by name; a name used twice on either side is reported ambiguous",
        basis: Basis::Assumed,
        source: "remoteCode rules: category remoteCodes are not preserved (stated); how the service matches categories is not shown",
    },
    MatchBasis {
        topic: TargetEntity::ModifierGroup.as_str(),
        rule: "matched by name within its matched product; a name used twice is reported ambiguous",
        basis: Basis::Assumed,
        source: "remoteCode rules: group remoteCodes are not preserved (stated); how the service matches groups is not shown",
    },
    MatchBasis {
        topic: "deactivation",
        rule: "brand-origin items of the read absent from the submission are deactivated",
        basis: Basis::Stated,
        source: "Rules for PUT /menu, 1 (replacement, not merge)",
    },
    MatchBasis {
        topic: "storeLocal",
        rule: "store-local products (origin: store) are counted apart, never called deactivated",
        basis: Basis::Assumed,
        source: "Store menu: origin store = local product, not the master catalog; what PUT /menu does to them is not shown",
    },
    MatchBasis {
        topic: "share",
        rule: "deactivated brand products over brand products in the read",
        basis: Basis::Assumed,
        source: "Rules for PUT /menu, 2: 'a threshold of the active catalog'; its unit and value are not shown",
    },
    MatchBasis {
        topic: "threshold",
        rule: "default 0.2 (20%), chosen by the caller",
        basis: Basis::Assumed,
        source: "Limits: bulk deactivation threshold on PUT /menu: not shown",
    },
    MatchBasis {
        topic: "masterValues",
        rule: "a field under a value or channel override is compared through its base (the master value)",
        basis: Basis::Stated,
        source: "Store menu, overrides[]: fields[].base is the master value restored when the override is removed",
    },
    MatchBasis {
        topic: "image",
        rule: "an image is compared only when one side has none",
        basis: Basis::Stated,
        source: "Store menu: image is the re-hosted WebP URL, not the submitted URL",
    },
    MatchBasis {
        topic: "overrides",
        rule: "store overrides of kept items stay on top of the new master values",
        basis: Basis::Derived,
        source: "overrides[]: store overrides on top of the master catalog; PUT /menu is brand scope (Menu scopes)",
    },
];

/// The result of [`diff`](super::diff()).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct MenuDiff {
    /// Both sides were read as menus and compared (otherwise see the two reports).
    pub compared: bool,
    /// The counts and the deactivated share.
    pub summary: Summary,
    /// Created, updated, ambiguous (positions in `next`) and deactivated (positions in
    /// `current`) items, in document order per side.
    pub entries: Vec<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    /// Set when `max_entries` left entries out.
    pub truncated: Option<Truncation>,
    /// What the matching rests on, topic by topic.
    pub basis: &'static [MatchBasis],
    /// The store menu read's validation and the diff's diagnostics about it.
    pub current: Report,
    /// The submission's lint and the diff's diagnostics positioned in it.
    pub next: Report,
    /// Steps taken (items visited, map operations): the linear-time tests count these.
    #[serde(skip)]
    pub work: u64,
}
