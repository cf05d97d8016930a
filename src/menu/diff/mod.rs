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

pub mod render;
pub mod rules;

use crate::diagnostic::{merge_reports, service_path_to_pointer, Collector, Positions, Report, Rule};
use crate::json::{self, Kind, Limits, Span, Value};
use crate::menu::{lint, LintOptions};
use serde::Serialize;
use std::collections::HashMap;

pub use rules::RULES;

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
    fn add(&mut self, e: Entity) {
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
        topic: "product",
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
        topic: "category",
        rule: "matched by name; a name used twice on either side is reported ambiguous",
        basis: Basis::Assumed,
        source: "remoteCode rules: category remoteCodes are not preserved (stated); how the service matches categories is not shown",
    },
    MatchBasis {
        topic: "modifierGroup",
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

/// The result of [`diff`].
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

/// Computes the diff. Never panics: an input that is not JSON, or not a menu, gives
/// `compared: false` with the reason in its report.
pub fn diff(current: &[u8], next: &[u8], options: &DiffOptions) -> MenuDiff {
    let threshold = check_threshold(options.threshold).unwrap_or(DEFAULT_THRESHOLD);
    let max_diagnostics = options.max_diagnostics.max(1);
    let limits = Limits { max_diagnostics: options.limits.max_diagnostics.min(max_diagnostics), ..options.limits }.clamped();
    let next_report = lint(next, &LintOptions { limits, max_diagnostics });
    let current_report = crate::payload::validate_store_menu(current, limits);
    let mut d = Differ::new(options, threshold);
    d.summary.would_be_refused = next_report.error_count > 0;
    let (cur_arena, next_arena) = (json::Arena::for_input(current.len()), json::Arena::for_input(next.len()));
    if let (Ok(cur), Ok(nxt)) = (json::parse(current, &limits, &cur_arena), json::parse(next, &limits, &next_arena)) {
        d.run(&cur.root, &nxt.root);
    }
    d.finish(current, next, current_report, next_report)
}

// ---- the walk -----------------------------------------------------------------------------------

/// Where an item is: `[data.]categories[ci].products[pi].modifierGroups[gi].options[oi]`.
#[derive(Debug, Clone, Copy)]
struct Loc {
    data: bool,
    ci: usize,
    pi: Option<usize>,
    gi: Option<usize>,
    oi: Option<usize>,
    /// The read names groups `modifiers` (before 2026-08-10).
    legacy_groups: bool,
}

impl Loc {
    fn category(data: bool, ci: usize) -> Self {
        Self { data, ci, pi: None, gi: None, oi: None, legacy_groups: false }
    }
    fn product(self, pi: usize) -> Self {
        Self { pi: Some(pi), ..self }
    }
    fn group(self, gi: usize, legacy: bool) -> Self {
        Self { gi: Some(gi), legacy_groups: legacy, ..self }
    }
    fn option(self, oi: usize) -> Self {
        Self { oi: Some(oi), ..self }
    }
    fn path(&self) -> String {
        let mut s = String::with_capacity(64);
        if self.data {
            s.push_str("data.");
        }
        s.push_str(&format!("categories[{}]", self.ci));
        if let Some(p) = self.pi {
            s.push_str(&format!(".products[{p}]"));
        }
        if let Some(g) = self.gi {
            s.push_str(&format!(".{}[{g}]", if self.legacy_groups { "modifiers" } else { "modifierGroups" }));
        }
        if let Some(o) = self.oi {
            s.push_str(&format!(".options[{o}]"));
        }
        s
    }
    fn field(&self, f: &str) -> String {
        format!("{}.{f}", self.path())
    }
}

/// An entry whose positions are filled in at the end (one pass over each input).
struct Pending {
    entry: Entry,
    /// Spans of the field changes' new values, parallel to `entry.changes`.
    field_spans: Vec<Option<Span>>,
}

/// Key → (first index, how many): a duplicated key is ambiguous.
type Multi<'d> = HashMap<&'d str, (usize, usize)>;

fn multi<'d>(work: &mut u64, keys: impl Iterator<Item = (usize, Option<&'d str>)>) -> Multi<'d> {
    let mut m: Multi<'d> = HashMap::new();
    for (i, k) in keys {
        *work += 1;
        if let Some(k) = k {
            m.entry(k).and_modify(|e| e.1 += 1).or_insert((i, 1));
        }
    }
    m
}

/// How a next-side item was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    Created,
    Matched(usize),
    Ambiguous,
    Unmatchable,
}

/// Matches `next` keys against `current` keys; the current indices matched go into `cur_taken`.
fn match_keys<'d>(work: &mut u64, next: &[Option<&'d str>], cur: &Multi<'d>, next_multi: &Multi<'d>) -> Vec<Match> {
    next.iter()
        .map(|k| {
            *work += 1;
            let Some(k) = k else { return Match::Unmatchable };
            let n = next_multi.get(k).map_or(0, |e| e.1);
            match cur.get(k) {
                _ if n > 1 => Match::Ambiguous,
                Some(&(_, count)) if count > 1 => Match::Ambiguous,
                Some(&(i, _)) => Match::Matched(i),
                None => Match::Created,
            }
        })
        .collect()
}

fn arr<'v, 'd>(v: &'v Value<'d>, key: &str) -> &'v [Value<'d>] {
    v.get(key).and_then(Value::as_array).unwrap_or(&[])
}

fn string<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// The span to point at for an item: its `key` value when present, else its first byte.
fn anchor(v: &Value, key: &str) -> Span {
    v.get(key).map_or(Span::new(v.span.start, v.span.start + 1), |x| x.span)
}

/// `s` cut to 60 characters for messages and names.
fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A value for the result: scalars as they are; containers described (the output stays small).
fn to_json(v: &Value) -> serde_json::Value {
    match &v.kind {
        Kind::Null => serde_json::Value::Null,
        Kind::Bool(b) => (*b).into(),
        Kind::Number(n) => serde_json::from_str(n.raw).unwrap_or_else(|_| n.raw.into()),
        Kind::String(s) => {
            if s.len() > 2048 {
                format!("{}…", short(s)).into()
            } else {
                s.to_string().into()
            }
        }
        Kind::Array(a) => format!("(an array of {} items)", a.len()).into(),
        Kind::Object(_) => "(an object)".into(),
    }
}

fn show(v: Option<&Value>) -> String {
    match v.map(|v| &v.kind) {
        None => "absent".into(),
        Some(Kind::String(s)) => format!("\"{}\"", short(s)),
        Some(Kind::Number(n)) => n.raw.to_string(),
        Some(Kind::Bool(b)) => b.to_string(),
        Some(Kind::Null) => "null".into(),
        Some(Kind::Array(_)) => "an array".into(),
        Some(Kind::Object(_)) => "an object".into(),
    }
}

/// Equal for the service: numbers by value, strings exactly (`type` case-insensitively), null
/// and absent alike (assumed: an optional field left out is not set).
fn same(a: Option<&Value>, b: Option<&Value>, case_insensitive: bool) -> bool {
    let a = a.filter(|v| !v.is_null());
    let b = b.filter(|v| !v.is_null());
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => match (&x.kind, &y.kind) {
            (Kind::Number(p), Kind::Number(q)) => p.value == q.value,
            (Kind::String(p), Kind::String(q)) if case_insensitive => p.eq_ignore_ascii_case(q),
            (Kind::String(p), Kind::String(q)) => p == q,
            (Kind::Bool(p), Kind::Bool(q)) => p == q,
            // Containers are not fields of these levels: the lint reports them.
            _ => false,
        },
        _ => false,
    }
}

/// The master value of `field`: the `base` of a value or channel override on it (the value in
/// effect is the override's), else the field itself.
fn master<'v, 'd>(work: &mut u64, v: &'v Value<'d>, field: &str) -> (Option<&'v Value<'d>>, Option<&'v Value<'d>>) {
    for o in arr(v, "overrides") {
        for f in arr(o, "fields") {
            *work += 1;
            if string(f, "field") == Some(field) {
                if let Some(base) = f.get("base") {
                    return (Some(base), f.get("value"));
                }
            }
        }
    }
    (v.get(field), None)
}

struct Differ<'o> {
    options: &'o DiffOptions,
    summary: Summary,
    pending: Vec<Pending>,
    total_entries: usize,
    cur: Collector,
    nxt: Collector,
    diagnostics: usize,
    diagnostics_stopped: bool,
    compared: bool,
    work: u64,
    /// Where the first image that could not be compared is, for the one info about them.
    image_first: Option<Span>,
    /// (new category, deactivated category) → products that move from the one to the other.
    moves: HashMap<(usize, usize), usize>,
    /// Created categories → the index of their entry (when listed).
    created_categories: HashMap<usize, usize>,
}

/// Which collector a diagnostic goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum To {
    Cur,
    Next,
}

impl<'o> Differ<'o> {
    fn new(options: &'o DiffOptions, threshold: f64) -> Self {
        Self {
            options,
            summary: Summary { threshold, ..Summary::default() },
            pending: Vec::new(),
            total_entries: 0,
            cur: budgeted(options.max_diagnostics),
            nxt: budgeted(options.max_diagnostics),
            diagnostics: 0,
            diagnostics_stopped: false,
            compared: false,
            work: 0,
            image_first: None,
            moves: HashMap::new(),
            created_categories: HashMap::new(),
        }
    }

    /// Pushes a diagnostic of the diff's own, within the budget; `None` once it is spent.
    fn diag(&mut self, to: To, rule: &'static Rule, path: String, span: Span, message: String) -> Option<&mut crate::diagnostic::Pending> {
        if self.diagnostics_stopped {
            return None;
        }
        let c = if to == To::Cur { &mut self.cur } else { &mut self.nxt };
        if self.diagnostics >= self.options.max_diagnostics {
            self.diagnostics_stopped = true;
            let max = self.options.max_diagnostics;
            let pointer = service_path_to_pointer(&path);
            c.push_at(
                &rules::TOO_MANY_DIAGNOSTICS,
                path,
                pointer,
                span,
                format!("the diff stopped reporting after {max} diagnostics of its own; the counts and entries stay complete"),
            );
            return None;
        }
        self.diagnostics += 1;
        let pointer = service_path_to_pointer(&path);
        Some(c.push_at(rule, path, pointer, span, message))
    }

    fn entry(&mut self, entry: Entry, field_spans: Vec<Option<Span>>) {
        self.total_entries += 1;
        match entry.change {
            Change::Created => self.summary.created.add(entry.entity),
            Change::Updated => self.summary.updated.add(entry.entity),
            Change::Deactivated => self.summary.deactivated.add(entry.entity),
            Change::Ambiguous => self.summary.ambiguous.add(entry.entity),
        }
        if self.pending.len() < self.options.max_entries {
            self.pending.push(Pending { entry, field_spans });
        }
    }

    /// A matched pair, store item `cur` and submitted `next`: an `updated` entry (with the store's
    /// `code`) when `changes` is not empty, otherwise one more unchanged item.
    #[allow(clippy::too_many_arguments)]
    fn updated_or_unchanged(
        &mut self,
        entity: Entity,
        loc: Loc,
        cur: &Value,
        next: &Value,
        parent: Option<String>,
        basis: Basis,
        changes: Vec<FieldChange>,
        spans: Vec<Option<Span>>,
    ) {
        if changes.is_empty() {
            self.summary.unchanged.add(entity);
            return;
        }
        let mut e = entry_for(Change::Updated, entity, Side::Next, loc, next, "remoteCode", parent, basis);
        e.code = string(cur, "code").map(short);
        e.changes = changes;
        self.entry(e, spans);
    }

    #[allow(clippy::too_many_arguments)]
    fn simple(
        &mut self,
        change: Change,
        entity: Entity,
        side: Side,
        loc: Loc,
        item: &Value,
        parent: Option<String>,
        basis: Basis,
        note: Option<String>,
    ) {
        let key = if matches!(entity, Entity::Category | Entity::ModifierGroup) && side == Side::Current { "name" } else { "remoteCode" };
        let span = if item.get(key).is_some() { anchor(item, key) } else { anchor(item, "name") };
        let path = loc.path();
        let entry = Entry {
            change,
            entity,
            remote_code: string(item, "remoteCode").map(short),
            code: if side == Side::Current { string(item, "code").map(short) } else { None },
            name: string(item, "name").map(short),
            parent,
            side,
            pointer: service_path_to_pointer(&path),
            path,
            line: 0,
            column: 0,
            span,
            changes: Vec::new(),
            basis,
            note,
        };
        self.entry(entry, Vec::new());
    }

    fn run<'d>(&mut self, cur_root: &'d Value<'d>, next_root: &'d Value<'d>) {
        let (data, cur_categories) = match (cur_root.get("data"), cur_root.get("categories")) {
            (Some(d), _) if d.get("categories").is_some() => (true, d.get("categories")),
            (_, c) => (false, c),
        };
        let cur_categories = cur_categories.and_then(Value::as_array);
        // A full submission (categories with remoteCode and no code) is not the read.
        let submission = cur_categories.and_then(|c| c.first()).is_some_and(|c| c.get("remoteCode").is_some() && c.get("code").is_none());
        let Some(cur_categories) = cur_categories.filter(|_| !submission) else {
            let mut msg = "the current side is not a store menu read: expected data.categories[] (or categories[]) as returned by GET /api/v1/menu/stores/{storeRemoteId}".to_string();
            if submission {
                msg.push_str("; this looks like a full menu submission (categories[].remoteCode)");
            }
            self.diag(To::Cur, &rules::NOT_A_STORE_MENU, String::new(), Span::new(cur_root.span.start, cur_root.span.start + 1), msg)
                .map(|p| p.help("pass the live store menu as the current side and the submission as the next side"));
            return;
        };
        let Some(next_categories) = next_root.get("categories").and_then(Value::as_array) else {
            return; // the lint reported menu/root-shape
        };
        self.compared = true;
        let cats = self.categories(data, cur_categories, next_categories);
        self.products(data, cur_categories, next_categories, &cats);
        self.rename_hints(data, cur_categories, next_categories, &cats);
        if self.summary.images_not_compared > 0 {
            let n = self.summary.images_not_compared;
            let span = self.image_first.unwrap_or(Span::new(next_root.span.start, next_root.span.start + 1));
            self.diag(
                To::Next,
                &rules::IMAGE_NOT_COMPARED,
                String::new(),
                span,
                format!("{n} product image{} not compared: the read's image is the re-hosted WebP URL, not the submitted URL", if n == 1 { " was" } else { "s were" }),
            )
            .map(|p| p.help("the service downloads and re-hosts every submitted image; a changed picture behind the same URL is not visible here either"));
        }
        let s = &mut self.summary;
        s.deactivated_share = if s.active_products == 0 { 0.0 } else { s.deactivated.products as f64 / s.active_products as f64 };
        s.above_threshold = s.deactivated_share > s.threshold;
        if s.above_threshold {
            let (n, of, share, t) = (s.deactivated.products, s.active_products, s.deactivated_share, s.threshold);
            self.diag(
                To::Next,
                &rules::LARGE_DEACTIVATION,
                "categories".into(),
                anchor(next_root, "categories"),
                format!(
                    "the upload would deactivate {n} of {of} active products ({}), above the threshold of {}: PUT /api/v1/menu answers 409 unless confirmLargeDeactivation=true is sent",
                    percent(share),
                    percent(t)
                ),
            )
            .map(|p| {
                p.help("check that the submission is complete (PUT /menu replaces the catalog); run POST /api/v1/menu/preview with the same body first, and send confirmLargeDeactivation=true only when the deactivation is intended. The service's threshold is not shown: this one is the caller's (default 20%, an assumption)")
            });
        }
    }

    /// Matches categories by name; returns, per current category, whether it is deactivated, and
    /// per next / current category the matched index on the other side.
    fn categories<'d>(&mut self, data: bool, cur: &'d [Value<'d>], next: &'d [Value<'d>]) -> Cats<'d> {
        let cur_names: Vec<Option<&'d str>> = cur.iter().map(|c| string(c, "name")).collect();
        let next_names: Vec<Option<&'d str>> = next.iter().map(|c| string(c, "name")).collect();
        let cur_multi = multi(&mut self.work, cur_names.iter().copied().enumerate());
        let next_multi = multi(&mut self.work, next_names.iter().copied().enumerate());
        let next_match = match_keys(&mut self.work, &next_names, &cur_multi, &next_multi);
        let mut cur_match: Vec<Option<usize>> = vec![None; cur.len()];
        let mut cur_state: Vec<CatState> = vec![CatState::Deactivated; cur.len()];
        for (ni, m) in next_match.iter().enumerate() {
            self.work += 1;
            let v = &next[ni];
            let loc = Loc::category(false, ni);
            match *m {
                Match::Matched(ci) => {
                    cur_match[ci] = Some(ni);
                    cur_state[ci] = CatState::Matched(ni);
                    let mut changes = Vec::new();
                    let mut spans = Vec::new();
                    if !same(cur[ci].get("position"), v.get("position"), false) {
                        changes.push(field_change("position", cur[ci].get("position"), v.get("position"), Basis::Derived, None));
                        spans.push(v.get("position").map(|x| x.span));
                    }
                    self.updated_or_unchanged(Entity::Category, loc, &cur[ci], v, None, Basis::Assumed, changes, spans);
                }
                Match::Created => {
                    if self.pending.len() < self.options.max_entries {
                        self.created_categories.insert(ni, self.pending.len());
                    }
                    self.simple(Change::Created, Entity::Category, Side::Next, loc, v, None, Basis::Assumed, None);
                }
                Match::Ambiguous => {
                    let name = next_names[ni].unwrap_or_default();
                    let (cn, nn) = (cur_multi.get(name).map_or(0, |e| e.1), next_multi.get(name).map_or(0, |e| e.1));
                    let msg = format!(
                        "category \"{}\" cannot be matched: the name is used by {cn} categor{} of the store menu and {nn} of the submission, and category remoteCodes are not preserved",
                        short(name),
                        if cn == 1 { "y" } else { "ies" }
                    );
                    self.diag(To::Next, &rules::AMBIGUOUS_MATCH, loc.field("name"), anchor(v, "name"), msg.clone())
                        .map(|p| p.help("give categories distinct names; the diff does not guess which one is meant"));
                    self.simple(Change::Ambiguous, Entity::Category, Side::Next, loc, v, None, Basis::Assumed, Some(msg));
                }
                Match::Unmatchable => {
                    if v.as_object().is_some() {
                        self.diag(
                            To::Next,
                            &rules::UNMATCHABLE,
                            loc.path(),
                            anchor(v, "name"),
                            "a category without a name cannot be matched with the store menu (category remoteCodes are not preserved)"
                                .into(),
                        );
                    }
                }
            }
        }
        for (ci, v) in cur.iter().enumerate() {
            self.work += 1;
            if cur_match[ci].is_some() {
                continue;
            }
            let loc = Loc::category(data, ci);
            match cur_names[ci] {
                Some(name) if next_multi.contains_key(name) => {
                    // Matched ambiguously (a duplicated name on one side): undetermined.
                    cur_state[ci] = CatState::Ambiguous;
                    self.summary.ambiguous.categories += 1;
                }
                Some(_) => self.simple(Change::Deactivated, Entity::Category, Side::Current, loc, v, None, Basis::Assumed, None),
                None => {
                    self.diag(To::Cur, &rules::UNMATCHABLE, loc.path(), anchor(v, "code"), "a category of the store menu without a name cannot be matched with the submission; absent from it, it would be deactivated".into());
                    self.simple(
                        Change::Deactivated,
                        Entity::Category,
                        Side::Current,
                        loc,
                        v,
                        None,
                        Basis::Assumed,
                        Some("no name to match it by".into()),
                    );
                }
            }
        }
        Cats { next_match, cur_state, next_names, cur_names }
    }

    fn products<'d>(&mut self, data: bool, cur: &'d [Value<'d>], next: &'d [Value<'d>], cats: &Cats<'d>) {
        // The read's products: brand ones by remoteCode, store-local ones apart.
        let mut cur_list: Vec<(usize, usize, &'d Value<'d>, Option<&'d str>)> = Vec::new();
        let mut local: HashMap<&'d str, (usize, usize)> = HashMap::new();
        for (ci, c) in cur.iter().enumerate() {
            for (pi, p) in arr(c, "products").iter().enumerate() {
                self.work += 1;
                if p.as_object().is_none() {
                    continue;
                }
                let code = string(p, "remoteCode");
                if string(p, "origin") == Some("store") {
                    self.summary.store_local_products += 1;
                    if let Some(code) = code {
                        local.entry(code).or_insert((ci, pi));
                    }
                    if cats.cur_state[ci] == CatState::Deactivated {
                        let loc = Loc::category(data, ci).product(pi);
                        let msg = format!(
                            "store-local product \"{}\" is in category \"{}\", which the upload would deactivate: a local product whose category does not exist is never displayed",
                            short(string(p, "name").unwrap_or("?")),
                            short(cats.cur_names[ci].unwrap_or("?"))
                        );
                        self.diag(To::Cur, &rules::LOCAL_CATEGORY_REMOVED, loc.path(), anchor(p, "remoteCode"), msg)
                            .map(|d| d.help("keep the category in the submission, or move the local product first (derived from POST /menu/stores/{storeRemoteId}/products: categoryCode must be an existing category)"));
                    }
                    continue;
                }
                self.summary.active_products += 1;
                cur_list.push((ci, pi, p, code));
            }
        }
        if self.summary.store_local_products > 0 {
            let n = self.summary.store_local_products;
            let (ci, pi) = local.values().min().copied().unwrap_or((0, 0));
            let at = cur.get(ci).and_then(|c| arr(c, "products").get(pi));
            let span = at.map_or(Span::new(0, 1), |p| anchor(p, "origin"));
            let path = Loc::category(data, ci).product(pi).field("origin");
            self.diag(
                To::Cur,
                &rules::STORE_LOCAL,
                path,
                span,
                format!("{n} store-local product{} (origin: store) {} not part of the master catalog that PUT /menu replaces: what the upload does to {} is not shown", if n == 1 { "" } else { "s" }, if n == 1 { "is" } else { "are" }, if n == 1 { "it" } else { "them" }),
            )
            .map(|d| d.help("they are neither counted as deactivated nor in the share; check them in the store menu after the upload"));
        }
        let cur_multi = multi(&mut self.work, cur_list.iter().enumerate().map(|(i, p)| (i, p.3)));

        let mut next_list: Vec<(usize, usize, &'d Value<'d>, Option<&'d str>)> = Vec::new();
        for (ni, c) in next.iter().enumerate() {
            for (pi, p) in arr(c, "products").iter().enumerate() {
                self.work += 1;
                if p.as_object().is_some() {
                    next_list.push((ni, pi, p, string(p, "remoteCode")));
                }
            }
        }
        let next_multi = multi(&mut self.work, next_list.iter().enumerate().map(|(i, p)| (i, p.3)));
        let next_codes: Vec<Option<&'d str>> = next_list.iter().map(|p| p.3).collect();
        let matches = match_keys(&mut self.work, &next_codes, &cur_multi, &next_multi);
        let mut cur_matched = vec![false; cur_list.len()];

        for (k, m) in matches.iter().enumerate() {
            let (ni, pi, q, code) = next_list[k];
            let loc = Loc::category(false, ni).product(pi);
            match *m {
                Match::Matched(j) => {
                    cur_matched[j] = true;
                    let (ci, cpi, p, _) = cur_list[j];
                    self.product_pair(Loc::category(data, ci).product(cpi), p, ci, loc, q, ni, cats);
                }
                Match::Created => {
                    if let Some((ci, cpi)) = code.and_then(|c| local.get(c)) {
                        let msg = format!(
                            "product remoteCode \"{}\" is also the remoteCode of the store-local product at {}: how the service resolves this is not shown",
                            short(code.unwrap_or_default()),
                            Loc::category(data, *ci).product(*cpi).path()
                        );
                        self.diag(To::Next, &rules::STORE_LOCAL_COLLISION, loc.field("remoteCode"), anchor(q, "remoteCode"), msg)
                            .map(|d| d.help("give the brand product another remoteCode, or check the store menu after the upload"));
                    }
                    self.simple(Change::Created, Entity::Product, Side::Next, loc, q, None, Basis::Derived, None);
                }
                Match::Ambiguous => {
                    let code = code.unwrap_or_default();
                    let (cn, nn) = (cur_multi.get(code).map_or(0, |e| e.1), next_multi.get(code).map_or(0, |e| e.1));
                    let msg = format!(
                        "product remoteCode \"{}\" is used by {nn} product{} of the submission and {cn} of the store menu: the diff does not guess which one is meant",
                        short(code),
                        if nn == 1 { "" } else { "s" }
                    );
                    self.diag(To::Next, &rules::AMBIGUOUS_MATCH, loc.field("remoteCode"), anchor(q, "remoteCode"), msg.clone())
                        .map(|d| d.help("product remoteCodes are unique across the whole menu"));
                    self.simple(Change::Ambiguous, Entity::Product, Side::Next, loc, q, None, Basis::Derived, Some(msg));
                }
                Match::Unmatchable => {
                    self.diag(
                        To::Next,
                        &rules::UNMATCHABLE,
                        loc.path(),
                        anchor(q, "remoteCode"),
                        "a product without a string remoteCode cannot be matched with the store menu".into(),
                    );
                }
            }
        }
        for (j, &(ci, pi, p, code)) in cur_list.iter().enumerate() {
            self.work += 1;
            if cur_matched[j] {
                continue;
            }
            let loc = Loc::category(data, ci).product(pi);
            match code {
                Some(c) if next_multi.contains_key(c) => self.summary.ambiguous.products += 1,
                Some(_) => self.simple(Change::Deactivated, Entity::Product, Side::Current, loc, p, None, Basis::Stated, None),
                None => {
                    self.diag(
                        To::Cur,
                        &rules::UNMATCHABLE,
                        loc.field("remoteCode"),
                        anchor(p, "remoteCode"),
                        "this brand product has no remoteCode: the submission cannot name it, so the upload would deactivate it".into(),
                    );
                    self.simple(
                        Change::Deactivated,
                        Entity::Product,
                        Side::Current,
                        loc,
                        p,
                        None,
                        Basis::Derived,
                        Some("no remoteCode: the submission cannot name it".into()),
                    );
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn product_pair<'d>(&mut self, cloc: Loc, p: &'d Value<'d>, ci: usize, nloc: Loc, q: &'d Value<'d>, ni: usize, cats: &Cats<'d>) {
        let mut changes = Vec::new();
        let mut spans = Vec::new();
        let mut overridden: Vec<(String, String)> = Vec::new();
        for field in ["name", "description", "price", "tax", "maxPerOrder"] {
            let (base, in_effect) = master(&mut self.work, p, field);
            let new = q.get(field);
            if !same(base, new, false) {
                let note = in_effect.map(|v| {
                    format!("compared with the master value (the override's base); a store override keeps {} in effect", show(Some(v)))
                });
                if let Some(v) = in_effect {
                    overridden.push((
                        field.to_string(),
                        format!(
                            "{field} changes {} → {} in the master catalog, but a store override keeps {} in effect",
                            show(base),
                            show(new),
                            show(Some(v))
                        ),
                    ));
                }
                changes.push(field_change(field, base, new, Basis::Stated, note));
                spans.push(new.map(|v| v.span));
            }
        }
        // image: the read's is re-hosted (stated), so only presence can be compared.
        let (cur_img, legacy_img) = match (p.get("image"), p.member("imageUrl")) {
            (Some(i), _) => (Some(i), None),
            (None, Some(m)) => (Some(&m.value), Some(m.key_span)),
            (None, None) => (None, None),
        };
        if let Some(span) = legacy_img {
            self.diag(
                To::Cur,
                &rules::LEGACY_FIELD,
                cloc.field("imageUrl"),
                span,
                "\"imageUrl\" was renamed \"image\" on 2026-08-10; read as image for the diff".into(),
            );
        }
        if let Some(m) = q.member("imageUrl") {
            self.diag(To::Next, &rules::LEGACY_FIELD, nloc.field("imageUrl"), m.key_span, "\"imageUrl\" was renamed \"image\" on 2026-08-10: the submission field is image, so this product has no image for the service".into())
                .map(|d| d.help("rename it to \"image\" (every product of a full submission needs one)"));
        }
        let new_img = q.get("image");
        let has = |v: Option<&Value>| v.is_some_and(|v| !v.is_null());
        match (has(cur_img), has(new_img)) {
            (false, true) | (true, false) => {
                let note = if has(new_img) {
                    "the store menu shows no image"
                } else {
                    "the submission has no image (a full submission needs one: 422)"
                };
                changes.push(field_change("image", cur_img, new_img, Basis::Stated, Some(note.into())));
                spans.push(new_img.map(|v| v.span));
            }
            (true, true) if !same(cur_img, new_img, false) => {
                self.summary.images_not_compared += 1;
                self.image_first.get_or_insert(new_img.map_or(q.span, |v| v.span));
            }
            _ => {}
        }
        // category: the parent in each tree, through the category match.
        let moved_from = match cats.cur_state[ci] {
            CatState::Matched(nj) if nj != ni => Some(cats.cur_names[ci]),
            CatState::Deactivated => Some(cats.cur_names[ci]),
            _ => None,
        };
        if let Some(from) = moved_from {
            if cats.cur_state[ci] == CatState::Deactivated && cats.next_match.get(ni) == Some(&Match::Created) {
                self.work += 1;
                *self.moves.entry((ni, ci)).or_insert(0) += 1;
            }
            if !matches!(cats.next_match.get(ni), Some(Match::Ambiguous) | None) {
                let to = cats.next_names[ni];
                let msg = format!(
                    "product \"{}\" would move from category \"{}\" to \"{}\"",
                    short(string(q, "remoteCode").unwrap_or_default()),
                    short(from.unwrap_or("?")),
                    short(to.unwrap_or("?"))
                );
                let mut c = FieldChange {
                    field: "category".into(),
                    old: from.map(|s| short(s).into()),
                    new: to.map(|s| short(s).into()),
                    basis: Basis::Assumed,
                    note: Some("categories are matched by name".into()),
                    line: None,
                    column: None,
                    span: None,
                };
                if from.is_none() || to.is_none() {
                    c.note = Some("a category without a name".into());
                }
                changes.push(c);
                spans.push(None);
                self.diag(To::Next, &rules::MOVES_CATEGORY, nloc.field("remoteCode"), anchor(q, "remoteCode"), msg)
                    .map(|d| d.help("check the product's category in the submission; categories are matched by name (an assumption: their remoteCodes are not preserved)"));
            }
        }
        self.updated_or_unchanged(Entity::Product, nloc, p, q, None, Basis::Derived, changes, spans);
        self.overrides_kept(nloc, p, q, "product", &overridden);
        self.groups(cloc, p, nloc, q);
    }

    /// A created category holding most of the products of a deactivated one: perhaps a rename.
    fn rename_hints<'d>(&mut self, data: bool, cur: &'d [Value<'d>], next: &'d [Value<'d>], cats: &Cats<'d>) {
        let mut best: HashMap<usize, (usize, usize)> = HashMap::new();
        for (&(ni, ci), &n) in &self.moves {
            self.work += 1;
            let b = best.entry(ni).or_insert((ci, 0));
            if n > b.1 || (n == b.1 && ci < b.0) {
                *b = (ci, n);
            }
        }
        let mut hints: Vec<(usize, usize, usize)> = best.into_iter().map(|(ni, (ci, n))| (ni, ci, n)).collect();
        hints.sort_unstable();
        for (ni, ci, n) in hints {
            let total = arr(&next[ni], "products").len();
            if n * 2 <= total {
                continue;
            }
            let (new_name, old_name) = (short(cats.next_names[ni].unwrap_or("?")), short(cats.cur_names[ci].unwrap_or("?")));
            let code = string(&cur[ci], "code").map(|c| format!(" (code {})", short(c))).unwrap_or_default();
            let msg = format!(
                "category \"{new_name}\" is new, but {n} of its {total} products are in the store menu's category \"{old_name}\"{code}, which would be deactivated: if this is a rename, how the service matches categories is not shown"
            );
            if let Some(&i) = self.created_categories.get(&ni) {
                if let Some(p) = self.pending.get_mut(i) {
                    p.entry.note = Some(format!("perhaps a rename of \"{old_name}\" at {}", Loc::category(data, ci).path()));
                }
            }
            let v = &next[ni];
            self.diag(To::Next, &rules::POSSIBLE_RENAME, Loc::category(false, ni).field("name"), anchor(v, "name"), msg)
                .map(|d| d.help("categories are matched by name here (an assumption: their remoteCodes are not preserved); rename with PATCH /api/v1/menu/categories/{code} (brand scope) before the upload if the service should keep the category"));
        }
    }

    /// A kept item with store overrides: they stay on top of the new master values.
    fn overrides_kept(&mut self, nloc: Loc, p: &Value, q: &Value, what: &str, overridden: &[(String, String)]) {
        let list = arr(p, "overrides");
        let Some(first) = list.first() else { return };
        let kind = short(string(first, "type").unwrap_or("?"));
        let reason = string(first, "reason").map(|r| format!(" (reason: \"{}\")", short(r))).unwrap_or_default();
        let mut msg = format!(
            "{} store override{} on this {what} stay{} on top of the master catalog after the upload: overrides[0] is \"{kind}\"{reason}",
            list.len(),
            if list.len() == 1 { "" } else { "s" },
            if list.len() == 1 { "s" } else { "" }
        );
        for (_, m) in overridden.iter().take(3) {
            msg.push_str("; ");
            msg.push_str(m);
        }
        self.diag(To::Next, &rules::OVERRIDE_KEPT, nloc.field("remoteCode"), anchor(q, "remoteCode"), msg)
            .map(|d| d.help("PUT /menu is brand scope and does not remove store overrides (store scope): remove them with a store-scope change if the new master values should show"));
    }

    fn groups<'d>(&mut self, cloc: Loc, p: &'d Value<'d>, nloc: Loc, q: &'d Value<'d>) {
        let (cur, legacy) = match (p.get("modifierGroups"), p.member("modifiers")) {
            (Some(g), _) => (g.as_array().unwrap_or(&[]), false),
            (None, Some(m)) => {
                self.diag(
                    To::Cur,
                    &rules::LEGACY_FIELD,
                    cloc.field("modifiers"),
                    m.key_span,
                    "\"modifiers\" was renamed \"modifierGroups\" on 2026-08-10; read as modifierGroups for the diff".into(),
                );
                (m.value.as_array().unwrap_or(&[]), true)
            }
            _ => (&[][..], false),
        };
        if let Some(m) = q.member("modifiers") {
            self.diag(To::Next, &rules::LEGACY_FIELD, nloc.field("modifiers"), m.key_span, "\"modifiers\" was renamed \"modifierGroups\" on 2026-08-10: the submission field is modifierGroups, so these groups are not part of the submission".into())
                .map(|d| d.help("rename it to \"modifierGroups\""));
        }
        let next = arr(q, "modifierGroups");
        if cur.is_empty() && next.is_empty() {
            return;
        }
        let product = format!("product {}", short(string(q, "remoteCode").unwrap_or("?")));
        let cur_names: Vec<Option<&'d str>> = cur.iter().map(|g| string(g, "name")).collect();
        let next_names: Vec<Option<&'d str>> = next.iter().map(|g| string(g, "name")).collect();
        let cur_multi = multi(&mut self.work, cur_names.iter().copied().enumerate());
        let next_multi = multi(&mut self.work, next_names.iter().copied().enumerate());
        let matches = match_keys(&mut self.work, &next_names, &cur_multi, &next_multi);
        let mut cur_matched = vec![false; cur.len()];
        for (gi, m) in matches.iter().enumerate() {
            let g = &next[gi];
            let loc = nloc.group(gi, false);
            match *m {
                Match::Matched(cj) => {
                    cur_matched[cj] = true;
                    let c = &cur[cj];
                    let mut changes = Vec::new();
                    let mut spans = Vec::new();
                    for field in ["min", "max", "type"] {
                        if !same(c.get(field), g.get(field), field == "type") {
                            changes.push(field_change(field, c.get(field), g.get(field), Basis::Stated, None));
                            spans.push(g.get(field).map(|v| v.span));
                        }
                    }
                    self.updated_or_unchanged(Entity::ModifierGroup, loc, c, g, Some(product.clone()), Basis::Assumed, changes, spans);
                    self.options(cloc.group(cj, legacy), c, loc, g);
                }
                Match::Created => {
                    self.simple(Change::Created, Entity::ModifierGroup, Side::Next, loc, g, Some(product.clone()), Basis::Assumed, None)
                }
                Match::Ambiguous => {
                    let msg = format!("modifier group \"{}\" of {product} cannot be matched: its name is used twice on one side, and group remoteCodes are not preserved", short(next_names[gi].unwrap_or_default()));
                    self.diag(To::Next, &rules::AMBIGUOUS_MATCH, loc.field("name"), anchor(g, "name"), msg.clone())
                        .map(|d| d.help("give the groups of a product distinct names; the diff does not guess"));
                    self.simple(
                        Change::Ambiguous,
                        Entity::ModifierGroup,
                        Side::Next,
                        loc,
                        g,
                        Some(product.clone()),
                        Basis::Assumed,
                        Some(msg),
                    );
                }
                Match::Unmatchable => {
                    if g.as_object().is_some() {
                        self.diag(
                            To::Next,
                            &rules::UNMATCHABLE,
                            loc.path(),
                            anchor(g, "remoteCode"),
                            "a modifier group without a name cannot be matched with the store menu (group remoteCodes are not preserved)"
                                .into(),
                        );
                    }
                }
            }
        }
        for (cj, c) in cur.iter().enumerate() {
            self.work += 1;
            if cur_matched[cj] || c.as_object().is_none() {
                continue;
            }
            match cur_names[cj] {
                Some(n) if next_multi.contains_key(n) => self.summary.ambiguous.modifier_groups += 1,
                _ => self.simple(
                    Change::Deactivated,
                    Entity::ModifierGroup,
                    Side::Current,
                    cloc.group(cj, legacy),
                    c,
                    Some(product.clone()),
                    Basis::Assumed,
                    None,
                ),
            }
        }
    }

    fn options<'d>(&mut self, cloc: Loc, cg: &'d Value<'d>, nloc: Loc, ng: &'d Value<'d>) {
        let cur = arr(cg, "options");
        let next = arr(ng, "options");
        let parent = format!("group \"{}\"", short(string(ng, "name").unwrap_or("?")));
        let cur_codes: Vec<Option<&'d str>> = cur.iter().map(|o| string(o, "remoteCode")).collect();
        let next_codes: Vec<Option<&'d str>> = next.iter().map(|o| string(o, "remoteCode")).collect();
        let cur_multi = multi(&mut self.work, cur_codes.iter().copied().enumerate());
        let next_multi = multi(&mut self.work, next_codes.iter().copied().enumerate());
        let matches = match_keys(&mut self.work, &next_codes, &cur_multi, &next_multi);
        let mut cur_matched = vec![false; cur.len()];
        for (oi, m) in matches.iter().enumerate() {
            let o = &next[oi];
            let loc = nloc.option(oi);
            match *m {
                Match::Matched(cj) => {
                    cur_matched[cj] = true;
                    let c = &cur[cj];
                    let mut changes = Vec::new();
                    let mut spans = Vec::new();
                    let mut overridden = Vec::new();
                    for field in ["name", "price", "isDefault", "maxPerOrder"] {
                        let (base, in_effect) = master(&mut self.work, c, field);
                        let new = o.get(field);
                        if !same(base, new, false) {
                            let note = in_effect.map(|v| {
                                format!(
                                    "compared with the master value (the override's base); a store override keeps {} in effect",
                                    show(Some(v))
                                )
                            });
                            if let Some(v) = in_effect {
                                overridden.push((
                                    field.to_string(),
                                    format!(
                                        "{field} changes {} → {} in the master catalog, but a store override keeps {} in effect",
                                        show(base),
                                        show(new),
                                        show(Some(v))
                                    ),
                                ));
                            }
                            changes.push(field_change(field, base, new, Basis::Stated, note));
                            spans.push(new.map(|v| v.span));
                        }
                    }
                    self.updated_or_unchanged(Entity::Option, loc, c, o, Some(parent.clone()), Basis::Derived, changes, spans);
                    self.overrides_kept(loc, c, o, "option", &overridden);
                }
                Match::Created => {
                    self.simple(Change::Created, Entity::Option, Side::Next, loc, o, Some(parent.clone()), Basis::Derived, None)
                }
                Match::Ambiguous => {
                    let msg = format!(
                        "option remoteCode \"{}\" of {parent} is used twice on one side: the diff does not guess which one is meant",
                        short(next_codes[oi].unwrap_or_default())
                    );
                    self.diag(To::Next, &rules::AMBIGUOUS_MATCH, loc.field("remoteCode"), anchor(o, "remoteCode"), msg.clone())
                        .map(|d| d.help("option remoteCodes are unique within a group"));
                    self.simple(Change::Ambiguous, Entity::Option, Side::Next, loc, o, Some(parent.clone()), Basis::Derived, Some(msg));
                }
                Match::Unmatchable => {
                    if o.as_object().is_some() {
                        self.diag(
                            To::Next,
                            &rules::UNMATCHABLE,
                            loc.path(),
                            anchor(o, "remoteCode"),
                            "an option without a string remoteCode cannot be matched with the store menu".into(),
                        );
                    }
                }
            }
        }
        for (cj, c) in cur.iter().enumerate() {
            self.work += 1;
            if cur_matched[cj] || c.as_object().is_none() {
                continue;
            }
            match cur_codes[cj] {
                Some(code) if next_multi.contains_key(code) => self.summary.ambiguous.options += 1,
                Some(_) => self.simple(
                    Change::Deactivated,
                    Entity::Option,
                    Side::Current,
                    cloc.option(cj),
                    c,
                    Some(parent.clone()),
                    Basis::Stated,
                    None,
                ),
                None => {
                    self.diag(
                        To::Cur,
                        &rules::UNMATCHABLE,
                        cloc.field("remoteCode"),
                        anchor(c, "remoteCode"),
                        "this option has no remoteCode: the submission cannot name it, so the upload would deactivate it".into(),
                    );
                    self.simple(
                        Change::Deactivated,
                        Entity::Option,
                        Side::Current,
                        cloc.option(cj),
                        c,
                        Some(parent.clone()),
                        Basis::Derived,
                        Some("no remoteCode: the submission cannot name it".into()),
                    );
                }
            }
        }
    }

    fn finish(mut self, current: &[u8], next: &[u8], current_report: Report, next_report: Report) -> MenuDiff {
        let shown = self.pending.len();
        if self.total_entries > shown {
            let total = self.total_entries;
            self.nxt
                .push_at(
                    &rules::TRUNCATED,
                    String::new(),
                    String::new(),
                    Span::new(0, 0),
                    format!("{total} changes; the first {shown} are listed (the counts are complete)"),
                )
                .help("raise the maxEntries option to list them all");
        }
        // Positions: one pass over each input for every entry and field change.
        let mut cur_offsets = Vec::new();
        let mut next_offsets = Vec::new();
        for p in &self.pending {
            match p.entry.side {
                Side::Current => cur_offsets.push(p.entry.span.start),
                Side::Next => next_offsets.push(p.entry.span.start),
            }
            next_offsets.extend(p.field_spans.iter().flatten().map(|s| s.start));
        }
        let cur_pos = Positions::new(current, &cur_offsets);
        let next_pos = Positions::new(next, &next_offsets);
        let mut entries: Vec<Entry> = Vec::with_capacity(shown);
        // Document order: the submission's entries, then the read's.
        self.pending.sort_by_key(|p| (p.entry.side == Side::Current, p.entry.span.start));
        for p in self.pending {
            let mut e = p.entry;
            let pos = if e.side == Side::Current { &cur_pos } else { &next_pos };
            (e.line, e.column) = pos.get(e.span.start);
            for (c, s) in e.changes.iter_mut().zip(p.field_spans) {
                if let Some(s) = s {
                    let (l, col) = next_pos.get(s.start);
                    (c.line, c.column, c.span) = (Some(l), Some(col), Some(s));
                }
            }
            entries.push(e);
        }
        let current_kind = current_report.kind.clone();
        let next_kind = next_report.kind.clone();
        let current = merge_reports(current_kind, vec![current_report, self.cur.finish(current)]);
        let next = merge_reports(next_kind, vec![next_report, self.nxt.finish(next)]);
        MenuDiff {
            compared: self.compared,
            summary: self.summary,
            entries,
            truncated: (self.total_entries > shown).then_some(Truncation { shown, total: self.total_entries }),
            basis: MATCH_BASIS,
            current,
            next,
            work: self.work,
        }
    }
}

/// A collector whose own budget backs the diff's count up (and bounds the text of its reports).
fn budgeted(max: usize) -> Collector {
    let mut c = Collector::new();
    c.set_budget(max.saturating_add(64), &rules::TOO_MANY_DIAGNOSTICS);
    c
}

/// The state of a current category after matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CatState {
    Matched(usize),
    Deactivated,
    Ambiguous,
}

struct Cats<'d> {
    next_match: Vec<Match>,
    cur_state: Vec<CatState>,
    next_names: Vec<Option<&'d str>>,
    cur_names: Vec<Option<&'d str>>,
}

fn field_change(field: &str, old: Option<&Value>, new: Option<&Value>, basis: Basis, note: Option<String>) -> FieldChange {
    // A field the submission leaves out: what the service keeps or sets then is not shown.
    let (basis, note) = match (new, note) {
        (None, None) => (Basis::Assumed, Some("absent from the submission: what the service keeps or sets then is not shown".to_string())),
        (_, note) => (basis, note),
    };
    FieldChange { field: field.into(), old: old.map(to_json), new: new.map(to_json), basis, note, line: None, column: None, span: None }
}

#[allow(clippy::too_many_arguments)]
fn entry_for(change: Change, entity: Entity, side: Side, loc: Loc, v: &Value, key: &str, parent: Option<String>, basis: Basis) -> Entry {
    let path = loc.path();
    Entry {
        change,
        entity,
        remote_code: string(v, "remoteCode").map(short),
        code: None,
        name: string(v, "name").map(short),
        parent,
        side,
        pointer: service_path_to_pointer(&path),
        path,
        line: 0,
        column: 0,
        span: if v.get(key).is_some() { anchor(v, key) } else { anchor(v, "name") },
        changes: Vec::new(),
        basis,
        note: None,
    }
}

/// `0.25` → `25%` (one decimal when needed).
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if (p - p.round()).abs() < 0.05 {
        format!("{}%", p.round())
    } else {
        format!("{p:.1}%")
    }
}

#[cfg(test)]
mod tests;
