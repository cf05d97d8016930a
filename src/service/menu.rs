//! The menu half of the service model: each brand's master catalog, each store's overrides and
//! local products, the store menu read computed from them, and the asynchronous menu changes with
//! their completion webhook ("Menu scopes and async model", "Menu endpoints", "Rules for PUT
//! /menu", "Store menu", "Menu change", "Capability entry", "MenuChangeCompletedWebhook").
//!
//! Requests reach it after the same pipeline as the order endpoints (key, faults, rate limits,
//! [`validate_request`](crate::payload::validate_request) with the menu linter for `PUT /menu`
//! and `POST /menu/preview`, idempotency). What the contract does not show is assumed, each in
//! [`Options`](super::Options) or below, and listed in the README:
//!
//! - the brand of a `PUT /menu` (the request names none): the client's first store's brand;
//! - how uploads match what is there: products by `remoteCode`, options by `remoteCode` within
//!   their group, categories by name, modifier groups by name (the remoteCodes of categories and
//!   groups are not preserved, stated) — the matching of [`crate::menu::diff`], so that
//!   `diffMenu` predicts what the read shows after the upload;
//! - deactivated items leave the store menu read (a later upload that names them again brings
//!   them back with their codes);
//! - the large-deactivation share: deactivated brand products over active brand products, above
//!   `deactivationThreshold` (default the diff's [`DEFAULT_THRESHOLD`](crate::menu::diff::DEFAULT_THRESHOLD));
//! - a brand product's channels: delivery and pickup; the override precedence: unavailable,
//!   scheduled, channel, value; schedules in UTC;
//! - `pendingCustomerRollout` combinations are persisted (the catalog control shows them) and
//!   not shown in the store menu read;
//! - the `data` of `PUT /menu` and `POST /menu/preview` (not shown): the counts of the upload, and
//!   for preview the diff's entries and `warnings[]`;
//! - error codes of failed rows beyond `UNKNOWN_CATEGORY`: `UNKNOWN_TARGET`, `DUPLICATE_CODE`,
//!   `STORE_UNAVAILABLE` (a failure a test injects).

use super::outbox::DeliveryKind;
use super::rest::Answer;
use super::{now_secs, Service, Timer};
use crate::payload::BodyKind;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Menu changes kept at most (the oldest applied ones go first).
pub const MAX_MENU_CHANGES: usize = 10_000;

/// Deactivated items a brand's catalog keeps per kind (categories, products, groups, and options
/// per group), so that an upload naming them again brings them back with their codes; past it the
/// oldest are forgotten. Without a bound, uploads of new codes would grow the catalog forever.
pub const MAX_DEACTIVATED: usize = 100_000;

/// Local products a store holds at most (a creation past it fails with `LIMIT`).
pub const MAX_LOCAL_PRODUCTS: usize = 10_000;

/// Drops deactivated items past [`MAX_DEACTIVATED`]: those nearest the end when `oldest_last`,
/// else those nearest the start.
fn forget_deactivated<T>(items: &mut Vec<T>, active: impl Fn(&T) -> bool, oldest_last: bool) {
    forget_past(items, active, oldest_last, MAX_DEACTIVATED);
}

fn forget_past<T>(items: &mut Vec<T>, active: impl Fn(&T) -> bool, oldest_last: bool, max: usize) {
    let inactive = items.iter().filter(|x| !active(x)).count();
    let mut drop = inactive.saturating_sub(max);
    if drop == 0 {
        return;
    }
    if oldest_last {
        items.reverse();
    }
    items.retain(|x| {
        if drop > 0 && !active(x) {
            drop -= 1;
            return false;
        }
        true
    });
    if oldest_last {
        items.reverse();
    }
}

/// A brand's master catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// Categories, active and deactivated.
    pub categories: Vec<Category>,
    /// Products, active and deactivated, in the order of the last upload.
    pub products: Vec<Product>,
    /// Modifier groups (shared at brand level).
    pub groups: Vec<Group>,
}

/// A category of the master catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    /// The service's code.
    pub code: String,
    /// The POS's code as last submitted (not preserved in the read, stated).
    pub remote_code: String,
    /// `name`.
    pub name: String,
    /// `position`.
    pub position: i64,
    /// `active`.
    pub active: bool,
}

/// A product: of the master catalog, or local to a store (`store` set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    /// `code`.
    pub code: String,
    /// `remoteCode`.
    pub remote_code: String,
    /// The category's service code.
    pub category: String,
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `price`.
    pub price: f64,
    /// `tax`.
    pub tax: f64,
    /// `maxPerOrder`.
    pub max_per_order: i64,
    /// The re-hosted image URL.
    pub image: Option<String>,
    /// `channels`.
    pub channels: Vec<String>,
    /// Modifier groups' codes, in order.
    pub groups: Vec<String>,
    /// `active`.
    pub active: bool,
    /// The store of a local product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
}

/// A modifier group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// `code`.
    pub code: String,
    /// `remoteCode`.
    pub remote_code: String,
    /// `name`.
    pub name: String,
    /// `min`.
    pub min: i64,
    /// `max`.
    pub max: i64,
    /// `type`: `radio` or `checkbox`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `options`.
    pub options: Vec<ModifierOption>,
    /// `active`.
    pub active: bool,
}

/// An option of a modifier group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModifierOption {
    /// `code`.
    pub code: String,
    /// `remoteCode`.
    pub remote_code: String,
    /// `name`.
    pub name: String,
    /// `price`.
    pub price: f64,
    /// `isDefault`.
    pub is_default: bool,
    /// `maxPerOrder`.
    pub max_per_order: Option<i64>,
    /// `active`.
    pub active: bool,
}

/// A schedule override's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// `days`.
    pub days: Vec<String>,
    /// `startTime`.
    pub start_time: String,
    /// `endTime`.
    pub end_time: String,
}

/// A store's overrides of one item (a product or an option, by service code).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Override {
    /// `available: false` (an `unavailable` override).
    pub unavailable: bool,
    /// `schedule`.
    pub schedule: Option<Window>,
    /// `channels`.
    pub channels: Option<Vec<String>>,
    /// `price`.
    pub price: Option<f64>,
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// Persisted, not reflected in the read (`pendingCustomerRollout`): option price and name.
    pub pending: BTreeMap<String, Value>,
}

/// A store's layer on top of its brand's catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreLayer {
    /// `overrides`.
    pub overrides: BTreeMap<String, Override>,
    /// `local`.
    pub local: Vec<Product>,
}

/// A row of a change's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultRow {
    /// `storeRemoteId`.
    pub store_remote_id: Option<String>,
    /// `storeId`.
    pub store_id: Option<i64>,
    /// `targetEntity`.
    pub target_entity: String,
    /// `targetCode`.
    pub target_code: String,
    /// `applied`.
    pub applied: bool,
    /// `errorCode`.
    pub error_code: Option<String>,
    /// `errorMessage`.
    pub error_message: Option<String>,
    /// `appliedAtMs`.
    pub applied_at_ms: Option<i64>,
}

/// One change of a batch, as `POST /menu/changes` takes it (every write compiles to it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeOp {
    /// `targetEntity`.
    pub target_entity: String,
    /// `targetCode`.
    pub target_code: String,
    /// `scope`.
    pub scope: String,
    /// `categoryCode`.
    pub category_code: Option<String>,
    /// `set`.
    pub set: Map<String, Value>,
    /// The body of a local product's creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<Value>,
}

/// A menu change (a 202's changeId).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MenuChange {
    /// `changeId`.
    pub change_id: String,
    /// `client`.
    pub client: usize,
    /// `brand`.
    pub brand: i64,
    /// `stores`.
    pub stores: Vec<String>,
    /// `ops`.
    pub ops: Vec<ChangeOp>,
    /// `submittedMs`.
    pub submitted_ms: i64,
    /// `completedMs`.
    pub completed_ms: Option<i64>,
    /// `results`.
    pub results: Vec<ResultRow>,
}

/// The menu state of the service.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MenuState {
    /// Master catalogs by brand id.
    pub catalogs: BTreeMap<i64, Catalog>,
    /// Store layers by store remoteId.
    pub stores: BTreeMap<String, StoreLayer>,
    /// Changes, oldest first.
    pub changes: Vec<MenuChange>,
    /// Stores whose changes fail (a test's injection), with the error code.
    pub failing: BTreeMap<String, String>,
    /// The store menu reads as last written, until the menu changes.
    #[serde(skip)]
    rendered: HashMap<String, Vec<u8>>,
}

fn code(ids: &mut super::Ids, prefix: &str) -> String {
    format!("{prefix}_{}", ids.base62(12))
}

/// A JSON tree the menu reads: serde_json's (change bodies) or the toolkit's positioned parser's
/// (a whole submission: parsed about 6× faster than into serde_json's `Value`).
trait Node: Sized {
    fn field(&self, k: &str) -> Option<&Self>;
    fn text(&self) -> Option<&str>;
    fn num(&self) -> Option<f64>;
    fn int(&self) -> Option<i64>;
    fn items(&self) -> &[Self];
    fn flag(&self) -> Option<bool>;
}

impl Node for Value {
    fn field(&self, k: &str) -> Option<&Self> {
        self.get(k)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn num(&self) -> Option<f64> {
        self.as_f64()
    }
    fn int(&self) -> Option<i64> {
        self.as_i64().or_else(|| self.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64))
    }
    fn items(&self) -> &[Self] {
        self.as_array().map_or(&[], Vec::as_slice)
    }
    fn flag(&self) -> Option<bool> {
        self.as_bool()
    }
}

impl<'a> Node for crate::json::Value<'a> {
    fn field(&self, k: &str) -> Option<&Self> {
        self.get(k)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn num(&self) -> Option<f64> {
        self.as_number().map(|n| n.value).filter(|v| v.is_finite())
    }
    fn int(&self) -> Option<i64> {
        let n = self.as_number()?;
        n.as_i64().or_else(|| Some(n.value).filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64))
    }
    fn items(&self) -> &[Self] {
        self.as_array().unwrap_or_default()
    }
    fn flag(&self) -> Option<bool> {
        self.as_bool()
    }
}

fn str_of<N: Node>(v: &N, k: &str) -> Option<String> {
    v.field(k).and_then(N::text).map(str::to_string)
}

fn f64_of<N: Node>(v: &N, k: &str) -> Option<f64> {
    v.field(k).and_then(N::num)
}

fn i64_of<N: Node>(v: &N, k: &str) -> Option<i64> {
    v.field(k).and_then(N::int)
}

fn arr<'v, N: Node>(v: &'v N, k: &str) -> &'v [N] {
    v.field(k).map_or(&[], N::items)
}

/// What an upload did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadCounts {
    /// `created`.
    pub created: usize,
    /// `updated`.
    pub updated: usize,
    /// `deactivated`.
    pub deactivated: usize,
    /// `unchanged`.
    pub unchanged: usize,
    /// Active brand products before the upload (the threshold's denominator).
    pub active_products: usize,
    /// Brand products the upload deactivates.
    pub deactivated_products: usize,
}

const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

fn minutes(hh_mm: &str) -> i64 {
    let (h, m) = hh_mm.split_once(':').unwrap_or(("0", "0"));
    h.parse::<i64>().unwrap_or(0) * 60 + m.parse::<i64>().unwrap_or(0)
}

/// Whether `w` is open at `now` (unix seconds, UTC), and when it opens next when closed.
fn window_state(w: &Window, now: i64) -> (bool, Option<i64>) {
    let day = now.div_euclid(86_400);
    let minute = now.rem_euclid(86_400) / 60;
    let weekday = |d: i64| ((d + 3).rem_euclid(7)) as usize; // 1970-01-01 was a Thursday.
    let on = |d: i64| w.days.iter().any(|x| x.eq_ignore_ascii_case(DAYS[weekday(d)]));
    let (start, end) = (minutes(&w.start_time), minutes(&w.end_time));
    let open = if start < end {
        on(day) && minute >= start && minute < end
    } else {
        (on(day) && minute >= start) || (on(day - 1) && minute < end)
    };
    if open {
        return (true, None);
    }
    let next = (0..8).map(|k| day + k).filter(|&d| on(d)).map(|d| d * 86_400 + start * 60).find(|&t| t > now);
    (false, next)
}

impl MenuState {
    fn changed(&mut self) {
        self.rendered.clear();
    }

    /// The brand catalog, created empty on first use.
    fn catalog_mut(&mut self, brand: i64) -> &mut Catalog {
        self.rendered.clear();
        self.catalogs.entry(brand).or_default()
    }
}

fn w_str(out: &mut Vec<u8>, s: &str) {
    let _ = serde_json::to_writer(&mut *out, s);
}

fn w_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => w_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

fn w_num(out: &mut Vec<u8>, x: f64) {
    let _ = serde_json::to_writer(&mut *out, &x);
}

fn w_int(out: &mut Vec<u8>, x: i64) {
    out.extend_from_slice(x.to_string().as_bytes());
}

/// `"key":` (keys are the contract's, plain ASCII).
fn w_key(out: &mut Vec<u8>, key: &str) {
    out.push(b'"');
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

/// The store menu read of one store, the whole answer of `GET /menu/stores/{id}`. Written
/// straight from the catalog (no JSON tree in between), each modifier group once per read and
/// copied into every product that shows it: linear in the catalog and the answer. `store` None:
/// the master catalog alone (what preview diffs against).
fn render_store(menu: &MenuState, brand: i64, store: Option<&str>, now: i64) -> Vec<u8> {
    let empty = Catalog::default();
    let cat = menu.catalogs.get(&brand).unwrap_or(&empty);
    let layer = store.and_then(|s| menu.stores.get(s));
    let groups: HashMap<&str, &Group> = cat.groups.iter().filter(|g| g.active).map(|g| (g.code.as_str(), g)).collect();
    let mut cats: Vec<&Category> = cat.categories.iter().filter(|c| c.active).collect();
    cats.sort_by_key(|c| c.position);
    let mut by_cat: HashMap<&str, Vec<&Product>> = HashMap::new();
    for p in cat.products.iter().filter(|p| p.active) {
        by_cat.entry(p.category.as_str()).or_default().push(p);
    }
    if let Some(l) = layer {
        for p in l.local.iter().filter(|p| p.active) {
            by_cat.entry(p.category.as_str()).or_default().push(p);
        }
    }
    let overrides = |code: &str| layer.and_then(|l| l.overrides.get(code));
    let mut group_json: HashMap<&str, Vec<u8>> = HashMap::new();
    let mut out = Vec::with_capacity(64 + cat.products.len() * 600);
    out.extend_from_slice(br#"{"message":"OK","data":{"categories":["#);
    for (ci, c) in cats.iter().enumerate() {
        if ci > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"code":"#);
        w_str(&mut out, &c.code);
        out.extend_from_slice(br#","name":"#);
        w_str(&mut out, &c.name);
        out.extend_from_slice(br#","position":"#);
        w_int(&mut out, c.position);
        out.extend_from_slice(br#","products":["#);
        let products = by_cat.get(c.code.as_str()).map_or(&[][..], Vec::as_slice);
        for (pos, p) in products.iter().enumerate() {
            if pos > 0 {
                out.push(b',');
            }
            let o = overrides(&p.code);
            let (ovs, orderable, resumes, eff) =
                overrides_of(o, &p.channels, Some((&p.name, p.price, p.description.as_deref())), now, true);
            let (name, price, description) = match &eff {
                Some((n, pr, d)) => (n.as_str(), *pr, d.as_deref()),
                None => (p.name.as_str(), p.price, p.description.as_deref()),
            };
            let channels = o.and_then(|o| o.channels.as_ref()).unwrap_or(&p.channels);
            out.extend_from_slice(br#"{"code":"#);
            w_str(&mut out, &p.code);
            out.extend_from_slice(br#","categoryCode":"#);
            w_str(&mut out, &c.code);
            out.extend_from_slice(br#","name":"#);
            w_str(&mut out, name);
            out.extend_from_slice(br#","price":"#);
            w_num(&mut out, price);
            out.extend_from_slice(br#","tax":"#);
            w_num(&mut out, p.tax);
            out.extend_from_slice(br#","position":"#);
            w_int(&mut out, pos as i64);
            out.extend_from_slice(br#","maxPerOrder":"#);
            w_int(&mut out, p.max_per_order);
            out.extend_from_slice(if p.store.is_some() { br#","origin":"store""# } else { br#","origin":"brand""# });
            out.extend_from_slice(if orderable { br#","orderable":true"# } else { br#","orderable":false"# });
            out.extend_from_slice(br#","channels":"#);
            let _ = serde_json::to_writer(&mut out, channels);
            out.extend_from_slice(br#","remoteCode":"#);
            w_str(&mut out, &p.remote_code);
            out.extend_from_slice(br#","description":"#);
            w_opt_str(&mut out, description);
            out.extend_from_slice(br#","image":"#);
            w_opt_str(&mut out, p.image.as_deref());
            out.extend_from_slice(br#","resumesAt":"#);
            w_opt_str(&mut out, resumes.as_deref());
            if !ovs.is_empty() {
                out.extend_from_slice(br#","overrides":"#);
                let _ = serde_json::to_writer(&mut out, &ovs);
            }
            out.extend_from_slice(br#","modifierGroups":["#);
            let mut first = true;
            for (gpos, gc) in p.groups.iter().enumerate() {
                let Some(g) = groups.get(gc.as_str()) else { continue };
                if !first {
                    out.push(b',');
                }
                first = false;
                // The group's JSON up to its position, written once per read.
                let head = group_json.entry(g.code.as_str()).or_insert_with(|| render_group(g, &overrides, now));
                out.extend_from_slice(head);
                w_key(&mut out, "position");
                w_int(&mut out, gpos as i64);
                out.push(b'}');
            }
            out.extend_from_slice(b"]}");
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"]}}");
    out
}

/// A modifier group's JSON without its position (which depends on the product) and its closing
/// brace: `{"code":…,"name":…,"min":…,"max":…,"type":…,"options":[…],`.
fn render_group<'a>(g: &Group, overrides: &impl Fn(&str) -> Option<&'a Override>, now: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + g.options.len() * 160);
    out.extend_from_slice(br#"{"code":"#);
    w_str(&mut out, &g.code);
    out.extend_from_slice(br#","name":"#);
    w_str(&mut out, &g.name);
    out.extend_from_slice(br#","min":"#);
    w_int(&mut out, g.min);
    out.extend_from_slice(br#","max":"#);
    w_int(&mut out, g.max);
    out.extend_from_slice(br#","type":"#);
    w_str(&mut out, &g.kind);
    out.extend_from_slice(br#","options":["#);
    for (i, op) in g.options.iter().filter(|o| o.active).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let (ovs, orderable, resumes, _) = overrides_of(overrides(&op.code), &[], None, now, false);
        out.extend_from_slice(br#"{"code":"#);
        w_str(&mut out, &op.code);
        out.extend_from_slice(br#","name":"#);
        w_str(&mut out, &op.name);
        out.extend_from_slice(br#","price":"#);
        w_num(&mut out, op.price);
        out.extend_from_slice(if op.is_default { br#","isDefault":true"# } else { br#","isDefault":false"# });
        out.extend_from_slice(if orderable { br#","orderable":true"# } else { br#","orderable":false"# });
        out.extend_from_slice(br#","remoteCode":"#);
        w_str(&mut out, &op.remote_code);
        out.extend_from_slice(br#","maxPerOrder":"#);
        match op.max_per_order {
            Some(m) => w_int(&mut out, m),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(br#","resumesAt":"#);
        w_opt_str(&mut out, resumes.as_deref());
        if !ovs.is_empty() {
            out.extend_from_slice(br#","overrides":"#);
            let _ = serde_json::to_writer(&mut out, &ovs);
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"],");
    out
}

type Effective = (String, f64, Option<String>);

/// The overrides[] of an item, sorted by precedence (unavailable, scheduled, channel, value:
/// assumed), with `orderable` and `resumesAt` driven by element 0, and the values in effect.
fn overrides_of(
    o: Option<&Override>,
    base_channels: &[String],
    base: Option<(&String, f64, Option<&str>)>,
    now: i64,
    product: bool,
) -> (Vec<Value>, bool, Option<String>, Option<Effective>) {
    let Some(o) = o else {
        return (Vec::new(), true, None, None);
    };
    // Each override in precedence order, with what it makes of orderable and resumesAt; the
    // first one present drives both.
    let mut list = Vec::new();
    let mut drives: Option<(bool, Option<String>)> = None;
    let mut push = |entry: Value, state: (bool, Option<String>)| {
        list.push(entry);
        drives.get_or_insert(state);
    };
    if o.unavailable {
        push(json!({ "type": "unavailable", "reason": null }), (false, None));
    }
    if let Some(w) = &o.schedule {
        let (open, next) = window_state(w, now);
        let window = json!({ "days": w.days, "startTime": w.start_time, "endTime": w.end_time });
        push(
            json!({ "type": "scheduled", "reason": null, "window": window }),
            (open, if open { None } else { next.map(crate::time::format_unix_seconds) }),
        );
    }
    if let (true, Some(ch)) = (product, &o.channels) {
        let fields = json!([{ "field": "channels", "value": ch, "base": base_channels }]);
        push(json!({ "type": "channel", "reason": null, "fields": fields }), (!ch.is_empty(), None));
    }
    let mut eff = None;
    if let Some((name, price, description)) = base {
        let mut fields = Vec::new();
        if let Some(p) = o.price {
            fields.push(json!({ "field": "price", "value": p, "base": price }));
        }
        if let Some(n) = &o.name {
            fields.push(json!({ "field": "name", "value": n, "base": name }));
        }
        if let Some(d) = &o.description {
            fields.push(json!({ "field": "description", "value": d, "base": description }));
        }
        if !fields.is_empty() {
            push(json!({ "type": "value", "reason": null, "fields": fields }), (true, None));
        }
        eff = Some((
            o.name.clone().unwrap_or_else(|| name.clone()),
            o.price.unwrap_or(price),
            o.description.clone().or_else(|| description.map(str::to_string)),
        ));
    }
    let (orderable, resumes) = drives.unwrap_or((true, None));
    (list, orderable, resumes, eff)
}

/// An image URL: re-hosted as a WebP URL of the sandbox's, or the reason it is refused.
pub(crate) fn rehost(url: &str, bad: &[String], base: &str) -> Result<String, String> {
    if let Some(b) = bad.iter().find(|b| !b.is_empty() && url.contains(b.as_str())) {
        return Err(format!(
            "the image {url} cannot be used (the sandbox is told it is unreachable, not an image or too large: it matches {b:?})"
        ));
    }
    // A name of the URL's own: two SipHash-2-4 lanes (96 bits shown), stable across builds.
    #[allow(deprecated)]
    let lane = |k: u64| {
        use std::hash::Hasher;
        let mut h = std::hash::SipHasher::new_with_keys(0x696d_6167_6573_0000 | k, k);
        h.write(url.as_bytes());
        h.finish()
    };
    Ok(format!("{base}/images/{:016x}{:08x}.webp", lane(1), lane(2) >> 32))
}

impl Service {
    fn image_base(&self) -> String {
        let b = self.options.problem_base.trim_end_matches('/');
        b.strip_suffix("/problems").unwrap_or(b).to_string()
    }

    /// The brand of a client's PUT /menu: its first store's (assumed: the request names none).
    fn client_brand(&self, client: usize) -> Option<i64> {
        self.config.clients.get(client).and_then(|c| c.stores.first()).map(|s| s.brand_id)
    }

    fn client_store(&self, client: usize, remote_id: &str) -> Option<(i64, i64)> {
        self.config.clients.get(client)?.stores.iter().find(|s| s.remote_id == remote_id).map(|s| (s.store_id, s.brand_id))
    }

    /// `GET /api/v1/menu/stores/{storeRemoteId}`.
    pub(super) fn menu_read(&mut self, client: usize, store: &str, now_ms: i64) -> Answer {
        let Some((_, brand)) = self.client_store(client, store) else {
            return self.not_found_menu(format!("store {store} is not a store of this client"));
        };
        let now = now_secs(now_ms);
        let scheduled = self.menu.stores.get(store).is_some_and(|l| l.overrides.values().any(|o| o.schedule.is_some()));
        let body = match self.menu.rendered.get(store) {
            Some(b) if !scheduled => b.to_vec(),
            _ => {
                let b = render_store(&self.menu, brand, Some(store), now);
                if !scheduled {
                    self.menu.rendered.insert(store.to_string(), b.clone());
                }
                b
            }
        };
        Answer { status: 200, body, problem: false, retry_after: None, delay_ms: 0, replayed: false }
    }

    fn not_found_menu(&mut self, detail: String) -> Answer {
        self.problem(404, Some("not-found"), "Not Found", detail, Value::Null)
    }

    fn menu_validation(&mut self, field: &str, message: String) -> Answer {
        self.problem(
            422,
            Some("validation"),
            "One or more validation errors occurred",
            message.clone(),
            json!({ "errors": { field: [message] } }),
        )
    }

    /// `GET /api/v1/menu/capabilities`: the shipped table.
    pub(super) fn menu_capabilities(&self) -> Answer {
        let caps: Vec<Value> = crate::payload::SHIPPED_COMBINATIONS
            .iter()
            .map(|(e, f, s, p)| json!({ "entity": e, "field": f, "scope": s, "pendingCustomerRollout": p }))
            .collect();
        let body = json!({ "message": "OK", "data": { "capabilities": caps, "notes": "poscheck sandbox: the combinations of the contract's \"Menu scopes and async model\"" } });
        Answer {
            status: 200,
            body: serde_json::to_vec(&body).unwrap_or_default(),
            problem: false,
            retry_after: None,
            delay_ms: 0,
            replayed: false,
        }
    }

    /// `GET /api/v1/menu/changes/{changeId}`.
    pub(super) fn menu_change_read(&mut self, client: usize, id: &str) -> Answer {
        let Some(ch) = self.menu.changes.iter().find(|c| c.change_id == id && c.client == client) else {
            return self.not_found_menu(format!(
                "menu change {} does not exist or belongs to another client",
                id.chars().take(40).collect::<String>()
            ));
        };
        let data = change_resource(ch);
        let body = json!({ "message": "OK", "data": data });
        Answer {
            status: 200,
            body: serde_json::to_vec(&body).unwrap_or_default(),
            problem: false,
            retry_after: None,
            delay_ms: 0,
            replayed: false,
        }
    }

    /// `PUT /api/v1/menu` (`apply`) and `POST /api/v1/menu/preview`: the body passed the linter.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn menu_upload(
        &mut self,
        client: usize,
        body: &[u8],
        parsed: Option<&crate::json::Value>,
        confirm: bool,
        apply: bool,
        warnings: Vec<Value>,
        now_ms: i64,
    ) -> Answer {
        let Some(brand) = self.client_brand(client) else {
            return self.not_found_menu("this client has no store, so no brand".into());
        };
        if !apply {
            // Preview: the diff against the master catalog, as the toolkit's diffMenu computes it.
            let current = render_store(&self.menu, brand, None, now_secs(now_ms));
            let d = crate::menu::diff::diff(
                &current,
                body,
                &crate::menu::diff::DiffOptions { threshold: self.options.deactivation_threshold, ..Default::default() },
            );
            let data = json!({
                "created": d.summary.created, "updated": d.summary.updated, "deactivated": d.summary.deactivated,
                "unchanged": d.summary.unchanged, "wouldBeRefused": d.summary.would_be_refused,
                "entries": d.entries, "warnings": warnings,
            });
            let body = json!({ "message": "Preview computed; nothing was applied", "data": data });
            return Answer {
                status: 200,
                body: serde_json::to_vec(&body).unwrap_or_default(),
                problem: false,
                retry_after: None,
                delay_ms: 0,
                replayed: false,
            };
        }
        // The tree the linter parsed; parsed here only when the caller had none.
        let arena = crate::json::Arena::for_input(if parsed.is_some() { 0 } else { body.len() });
        let doc;
        let tree = match parsed {
            Some(t) => t,
            None => match crate::json::parse(body, &crate::json::Limits::default(), &arena) {
                Ok(d) => {
                    doc = d;
                    &doc.root
                }
                Err(e) => return self.menu_validation("", format!("the body is not a menu tree: {}", e.message)),
            },
        };
        let bad = self.options.bad_image_urls.clone();
        let base = self.image_base();
        // Images first: an unusable one is a 422 before anything changes.
        let mut images = HashMap::new();
        for (ci, c) in arr(tree, "categories").iter().enumerate() {
            for (pi, p) in arr(c, "products").iter().enumerate() {
                if let Some(url) = str_of(p, "image") {
                    match rehost(&url, &bad, &base) {
                        Ok(u) => {
                            images.insert(url, u);
                        }
                        Err(m) => return self.menu_validation(&format!("categories[{ci}].products[{pi}].image"), m),
                    }
                }
            }
        }
        let threshold = self.options.deactivation_threshold;
        // The deactivation is counted first: a refused upload changes nothing, not even the ids
        // drawn (and an accepted one is applied in place, without a copy of the catalog).
        let submitted: HashSet<&str> = arr(tree, "categories")
            .iter()
            .flat_map(|c| arr(c, "products"))
            .filter_map(|p| p.field("remoteCode").and_then(Node::text))
            .collect();
        let (active, leaving) = self.menu.catalogs.get(&brand).map_or((0, 0), |cat| {
            let active = cat.products.iter().filter(|p| p.active);
            (active.clone().count(), active.filter(|p| !submitted.contains(p.remote_code.as_str())).count())
        });
        let share = if active == 0 { 0.0 } else { leaving as f64 / active as f64 };
        if share > threshold && !confirm {
            let counts = UploadCounts { active_products: active, deactivated_products: leaving, ..Default::default() };
            return self.problem(
                409,
                None,
                "Large deactivation",
                format!(
                    "the upload would deactivate {} of {} active products ({:.0} %, above the {:.0} % threshold): send confirmLargeDeactivation=true to apply it",
                    counts.deactivated_products,
                    counts.active_products,
                    share * 100.0,
                    threshold * 100.0
                ),
                Value::Null,
            );
        }
        let mut ids = std::mem::replace(&mut self.ids, super::Ids::new(0));
        let counts = upload(self.menu.catalog_mut(brand), tree, &images, &mut ids);
        self.ids = ids;
        let body = json!({ "message": "Menu applied", "data": counts });
        Answer {
            status: 200,
            body: serde_json::to_vec(&body).unwrap_or_default(),
            problem: false,
            retry_after: None,
            delay_ms: 0,
            replayed: false,
        }
    }
}

/// The menu change resource (`data` of GET /menu/changes/{id}).
fn change_resource(ch: &MenuChange) -> Value {
    let rows: Vec<Value> = ch
        .results
        .iter()
        .map(|r| {
            json!({
                "storeRemoteId": r.store_remote_id, "storeId": r.store_id, "targetEntity": r.target_entity, "targetCode": r.target_code,
                "applied": r.applied, "errorCode": r.error_code, "errorMessage": r.error_message,
                "appliedAt": r.applied_at_ms.map(|t| crate::time::format_unix_seconds(now_secs(t))),
            })
        })
        .collect();
    json!({
        "changeId": ch.change_id,
        "status": if ch.completed_ms.is_some() { "Applied" } else { "Pending" },
        "schemaVersion": "1.0",
        "submittedAt": crate::time::format_unix_seconds(now_secs(ch.submitted_ms)),
        "completedAt": ch.completed_ms.map(|t| crate::time::format_unix_seconds(now_secs(t))),
        "results": rows,
    })
}

/// Applies a full submission to a catalog (replacement, not merge); what it did.
fn upload(cat: &mut Catalog, tree: &crate::json::Value, images: &HashMap<String, String>, ids: &mut super::Ids) -> UploadCounts {
    let mut counts = UploadCounts { active_products: cat.products.iter().filter(|p| p.active).count(), ..Default::default() };
    // Matching (the diff's): categories by name, products by remoteCode, groups by name within
    // their matched product, options by remoteCode within their group. A name held twice is not
    // matched (a new item is made). A group shared in the submission (one remoteCode) is one.
    let mut cat_by_name: HashMap<String, Option<usize>> = HashMap::new();
    for (i, c) in cat.categories.iter().enumerate().filter(|(_, c)| c.active) {
        cat_by_name.entry(c.name.clone()).and_modify(|e| *e = None).or_insert(Some(i));
    }
    // A deactivated category comes back by its name when no active one holds it.
    for (i, c) in cat.categories.iter().enumerate().filter(|(_, c)| !c.active) {
        cat_by_name.entry(c.name.clone()).or_insert(Some(i));
    }
    let prod_by_code: HashMap<String, usize> = cat.products.iter().enumerate().map(|(i, p)| (p.remote_code.clone(), i)).collect();
    // The products are moved, not copied: a matched one is taken from its slot and updated in place.
    let mut slots: Vec<Option<Product>> = std::mem::take(&mut cat.products).into_iter().map(Some).collect();
    let group_index: HashMap<String, usize> = cat.groups.iter().enumerate().map(|(i, g)| (g.code.clone(), i)).collect();
    let mut seen_cats = HashSet::new();
    let mut seen_groups = HashSet::new();
    let mut groups_by_remote: HashMap<String, usize> = HashMap::new();
    let mut products = Vec::new();
    for c in arr(tree, "categories") {
        let name = str_of(c, "name").unwrap_or_default();
        let remote = str_of(c, "remoteCode").unwrap_or_default();
        let position = i64_of(c, "position").unwrap_or(0);
        let ci = match cat_by_name.get(&name).copied().flatten().filter(|i| !seen_cats.contains(i)) {
            Some(i) => {
                let old = &mut cat.categories[i];
                if old.active && old.position == position {
                    counts.unchanged += 1;
                } else {
                    counts.updated += usize::from(old.active);
                    counts.created += usize::from(!old.active);
                }
                old.remote_code = remote;
                old.position = position;
                old.active = true;
                i
            }
            None => {
                cat.categories.push(Category { code: code(ids, "cat"), remote_code: remote, name, position, active: true });
                counts.created += 1;
                cat.categories.len() - 1
            }
        };
        seen_cats.insert(ci);
        let category_code = cat.categories[ci].code.clone();
        for p in arr(c, "products") {
            let remote = str_of(p, "remoteCode").unwrap_or_default();
            // The matched product's groups, for its groups to be matched by name among them.
            let had: Vec<usize> = prod_by_code
                .get(&remote)
                .and_then(|&i| slots[i].as_ref())
                .map_or_else(Vec::new, |p| p.groups.iter().filter_map(|g| group_index.get(g).copied()).collect());
            let mut group_codes = Vec::new();
            for g in arr(p, "modifierGroups") {
                let g_remote = str_of(g, "remoteCode").unwrap_or_default();
                if let Some(&gi) = groups_by_remote.get(&g_remote) {
                    group_codes.push(cat.groups[gi].code.clone());
                    continue;
                }
                let g_name = str_of(g, "name").unwrap_or_default();
                let options_in = arr(g, "options");
                let mut named = had.iter().copied().filter(|&i| cat.groups[i].name == g_name);
                let unique = match (named.next(), named.next()) {
                    (Some(i), None) => Some(i),
                    _ => None,
                };
                // A name held twice in the product: the group last submitted with this remoteCode
                // (kept inside the model, not shown in the read), where diffMenu says "ambiguous".
                let by_code = || had.iter().copied().find(|&i| cat.groups[i].remote_code == g_remote && !seen_groups.contains(&i));
                let gi = match unique.filter(|i| !seen_groups.contains(i)).or_else(by_code) {
                    Some(i) => i,
                    None => {
                        cat.groups.push(Group {
                            code: code(ids, "grp"),
                            remote_code: g_remote.clone(),
                            name: g_name.clone(),
                            min: 0,
                            max: 1,
                            kind: "radio".into(),
                            options: Vec::new(),
                            active: false,
                        });
                        cat.groups.len() - 1
                    }
                };
                let group = &mut cat.groups[gi];
                let was_active = group.active;
                let (min, max, kind) = (
                    i64_of(g, "min").unwrap_or(0),
                    i64_of(g, "max").unwrap_or(1),
                    str_of(g, "type").unwrap_or_default().to_ascii_lowercase(),
                );
                let same = was_active && group.min == min && group.max == max && group.kind == kind;
                group.remote_code = g_remote.clone();
                group.min = min;
                group.max = max;
                group.kind = kind;
                group.active = true;
                counts.created += usize::from(!was_active);
                counts.updated += usize::from(was_active && !same);
                counts.unchanged += usize::from(same);
                let mut opt_index: HashMap<String, usize> =
                    group.options.iter().enumerate().map(|(i, o)| (o.remote_code.clone(), i)).collect();
                let mut kept = Vec::new();
                for o in options_in {
                    let o_remote = str_of(o, "remoteCode").unwrap_or_default();
                    let name = str_of(o, "name").unwrap_or_default();
                    let price = f64_of(o, "price").unwrap_or(0.0);
                    let is_default = o.field("isDefault").and_then(Node::flag).unwrap_or(false);
                    let max_per_order = i64_of(o, "maxPerOrder");
                    match opt_index.remove(&o_remote) {
                        Some(i) => {
                            let old = &mut group.options[i];
                            let same = old.active
                                && old.name == name
                                && old.price == price
                                && old.is_default == is_default
                                && old.max_per_order == max_per_order;
                            counts.created += usize::from(!old.active);
                            counts.updated += usize::from(old.active && !same);
                            counts.unchanged += usize::from(same);
                            *old = ModifierOption {
                                code: old.code.clone(),
                                remote_code: o_remote,
                                name,
                                price,
                                is_default,
                                max_per_order,
                                active: true,
                            };
                            kept.push(i);
                        }
                        None => {
                            group.options.push(ModifierOption {
                                code: code(ids, "opt"),
                                remote_code: o_remote,
                                name,
                                price,
                                is_default,
                                max_per_order,
                                active: true,
                            });
                            counts.created += 1;
                            kept.push(group.options.len() - 1);
                        }
                    }
                }
                for i in opt_index.into_values() {
                    if group.options[i].active {
                        group.options[i].active = false;
                        counts.deactivated += 1;
                    }
                }
                // Options in the submitted order.
                let mut slots: Vec<Option<ModifierOption>> = std::mem::take(&mut group.options).into_iter().map(Some).collect();
                let mut ordered: Vec<ModifierOption> = kept.iter().filter_map(|&i| slots[i].take()).collect();
                ordered.extend(slots.into_iter().flatten());
                group.options = ordered;
                seen_groups.insert(gi);
                groups_by_remote.insert(g_remote, gi);
                group_codes.push(group.code.clone());
            }
            // Read borrowed; copied only into a product that changes or is new.
            let text = |k: &str| p.field(k).and_then(Node::text);
            let name = text("name").unwrap_or_default();
            let description = text("description");
            let price = f64_of(p, "price").unwrap_or(0.0);
            let tax = f64_of(p, "tax").unwrap_or(0.0);
            let max_per_order = i64_of(p, "maxPerOrder").unwrap_or(25);
            let image = text("image").and_then(|u| images.get(u)).map(String::as_str);
            match prod_by_code.get(&remote).and_then(|&i| slots[i].take()) {
                Some(mut old) => {
                    let same = old.active
                        && old.category == category_code
                        && old.name == name
                        && old.description.as_deref() == description
                        && old.price == price
                        && old.tax == tax
                        && old.max_per_order == max_per_order
                        && old.image.as_deref() == image
                        && old.groups == group_codes;
                    counts.created += usize::from(!old.active);
                    counts.updated += usize::from(old.active && !same);
                    counts.unchanged += usize::from(same);
                    if !same {
                        old.category = category_code.clone();
                        old.name = name.to_string();
                        old.description = description.map(str::to_string);
                        old.price = price;
                        old.tax = tax;
                        old.max_per_order = max_per_order;
                        old.image = image.map(str::to_string);
                        old.groups = group_codes;
                        old.active = true;
                    }
                    products.push(old);
                }
                None => {
                    products.push(Product {
                        code: code(ids, "prd"),
                        remote_code: remote,
                        category: category_code.clone(),
                        name: name.to_string(),
                        description: description.map(str::to_string),
                        price,
                        tax,
                        max_per_order,
                        image: image.map(str::to_string),
                        channels: vec!["delivery".into(), "pickup".into()],
                        groups: group_codes,
                        active: true,
                        store: None,
                    });
                    counts.created += 1;
                }
            }
        }
    }
    // What the submission left out is deactivated (replacement, not merge).
    for mut p in slots.into_iter().flatten() {
        if p.active {
            counts.deactivated += 1;
            counts.deactivated_products += 1;
            p.active = false;
        }
        products.push(p);
    }
    for (i, c) in cat.categories.iter_mut().enumerate() {
        if c.active && !seen_cats.contains(&i) {
            c.active = false;
            counts.deactivated += 1;
        }
    }
    for (i, g) in cat.groups.iter_mut().enumerate() {
        if g.active && !seen_groups.contains(&i) {
            g.active = false;
            counts.deactivated += 1;
        }
    }
    cat.products = products;
    // Products: the submitted ones, then the deactivated, newest first. Categories and groups: in
    // the order they were made. Options: the submitted ones, then the rest.
    forget_deactivated(&mut cat.products, |p| p.active, true);
    forget_deactivated(&mut cat.categories, |c| c.active, false);
    forget_deactivated(&mut cat.groups, |g| g.active, false);
    for g in &mut cat.groups {
        forget_deactivated(&mut g.options, |o| o.active, true);
    }
    counts
}

/// Where an item of a catalog is: a product (brand or local), an option, a category, a group.
fn find_product<'a>(cat: &'a Catalog, layer: Option<&'a StoreLayer>, target: &str) -> Option<&'a Product> {
    cat.products
        .iter()
        .chain(layer.map_or(&[][..], |l| l.local.as_slice()))
        .find(|p| p.active && (p.code == target || p.remote_code == target))
}

fn find_option<'a>(cat: &'a Catalog, target: &str, group: Option<&str>) -> Option<(&'a Group, &'a ModifierOption)> {
    cat.groups
        .iter()
        .filter(|g| g.active && group.is_none_or(|c| g.code == c || g.remote_code == c))
        .find_map(|g| g.options.iter().find(|o| o.active && (o.code == target || o.remote_code == target)).map(|o| (g, o)))
}

/// Where a change's targets are, built once per change (a batch of n targets on a catalog of m
/// items costs n + m, not n × m): active items by service code and by remoteCode.
#[derive(Default)]
struct Lookup {
    products: HashMap<String, usize>,
    options: HashMap<String, Vec<(usize, usize)>>,
    categories: HashMap<String, usize>,
    groups: HashMap<String, usize>,
    /// Per store: its local products by code and remoteCode (built when first needed).
    local: HashMap<String, HashMap<String, usize>>,
}

impl Lookup {
    fn of(cat: &Catalog) -> Self {
        let mut l = Self::default();
        for (i, p) in cat.products.iter().enumerate().filter(|(_, p)| p.active) {
            l.products.insert(p.remote_code.clone(), i);
            l.products.insert(p.code.clone(), i);
        }
        for (gi, g) in cat.groups.iter().enumerate().filter(|(_, g)| g.active) {
            l.groups.insert(g.code.clone(), gi);
            for (oi, o) in g.options.iter().enumerate().filter(|(_, o)| o.active) {
                l.options.entry(o.code.clone()).or_default().push((gi, oi));
                if o.remote_code != o.code {
                    l.options.entry(o.remote_code.clone()).or_default().push((gi, oi));
                }
            }
        }
        for (i, c) in cat.categories.iter().enumerate().filter(|(_, c)| c.active) {
            l.categories.insert(c.code.clone(), i);
        }
        l
    }

    fn local_of<'a>(&'a mut self, store: &str, layer: &StoreLayer) -> &'a mut HashMap<String, usize> {
        self.local.entry(store.to_string()).or_insert_with(|| {
            let mut m = HashMap::new();
            for (i, p) in layer.local.iter().enumerate().filter(|(_, p)| p.active) {
                m.insert(p.remote_code.clone(), i);
                m.insert(p.code.clone(), i);
            }
            m
        })
    }

    /// The option `target` in a group named by `group` (service code or remoteCode), or in any.
    fn option(&self, cat: &Catalog, target: &str, group: Option<&str>) -> Option<(usize, usize)> {
        self.options
            .get(target)?
            .iter()
            .copied()
            .find(|&(gi, _)| group.is_none_or(|c| cat.groups[gi].code == c || cat.groups[gi].remote_code == c))
    }
}

/// Result rows a change may hold (targets × stores): a bound of the sandbox's (a larger batch is
/// refused with 422 before it is accepted).
pub const MAX_CHANGE_ROWS: usize = 100_000;

impl Service {
    /// A menu write (`data.changeId`, 202), named by its endpoint's body kind: compiled to the
    /// batch shape of `POST /menu/changes`, checked against the client's stores, applied when the
    /// change is due.
    pub(super) fn menu_write(&mut self, client: usize, write: BodyKind, path_code: &str, body: &[u8], now_ms: i64) -> Answer {
        let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let stores: Vec<String> = arr(&v, "stores").iter().filter_map(Value::as_str).map(str::to_string).collect();
        let scope_of = |x: &Value| str_of(x, "scope").unwrap_or_else(|| "store".into());
        let set_of = |x: &Value| x.get("set").and_then(Value::as_object).cloned().unwrap_or_default();
        let one = |entity: &str, x: &Value| ChangeOp {
            target_entity: entity.into(),
            target_code: path_code.into(),
            scope: scope_of(x),
            category_code: str_of(x, "categoryCode"),
            set: set_of(x),
            local: None,
        };
        let (ops, stores) = match write {
            BodyKind::Availability | BodyKind::Prices => {
                let field = if write == BodyKind::Prices { "price" } else { "available" };
                let ops = arr(&v, "items")
                    .iter()
                    .map(|it| {
                        let mut set = Map::new();
                        set.insert(field.into(), it.get(field).cloned().unwrap_or(Value::Null));
                        ChangeOp {
                            target_entity: str_of(it, "targetEntity").unwrap_or_default(),
                            target_code: str_of(it, "targetCode").unwrap_or_default(),
                            scope: "store".into(),
                            category_code: str_of(it, "categoryCode"),
                            set,
                            local: None,
                        }
                    })
                    .collect();
                (ops, stores)
            }
            BodyKind::PatchProduct => (vec![one("product", &v)], stores),
            BodyKind::PatchOption => (vec![one("modifierOption", &v)], stores),
            BodyKind::PatchCategory => (vec![one("category", &v)], stores),
            BodyKind::PatchGroup => (vec![one("modifierGroup", &v)], stores),
            BodyKind::Changes => {
                let ops = arr(&v, "changes")
                    .iter()
                    .map(|c| ChangeOp {
                        target_entity: str_of(c, "targetEntity").unwrap_or_default(),
                        target_code: str_of(c, "targetCode").unwrap_or_default(),
                        scope: scope_of(c),
                        category_code: str_of(c, "categoryCode"),
                        set: set_of(c),
                        local: (str_of(c, "targetEntity").as_deref() == Some("localProduct"))
                            .then(|| c.get("set").cloned().unwrap_or(Value::Null)),
                    })
                    .collect();
                (ops, stores)
            }
            BodyKind::LocalProduct => {
                let op = ChangeOp {
                    target_entity: "localProduct".into(),
                    target_code: str_of(&v, "code").unwrap_or_default(),
                    scope: "store".into(),
                    category_code: str_of(&v, "categoryCode"),
                    set: Map::new(),
                    local: Some(v.clone()),
                };
                (vec![op], vec![path_code.to_string()])
            }
            BodyKind::None | BodyKind::Accept | BodyKind::Reject | BodyKind::Status | BodyKind::Menu => {
                return self.not_found_menu("not a menu write".into());
            }
        };
        // The stores: the client's, all of one brand (stated for the batch; assumed for the others).
        let mut brand = None;
        for st in &stores {
            match self.client_store(client, st) {
                None => return self.not_found_menu(format!("store {st} is not a store of this client")),
                Some((_, b)) if brand.is_some_and(|x| x != b) => {
                    return self.menu_validation("stores", format!("the stores must belong to one brand; {st} is of another"));
                }
                Some((_, b)) => brand = Some(b),
            }
        }
        let Some(brand) = brand.or_else(|| self.client_brand(client)) else {
            return self.not_found_menu("this client has no store, so no brand".into());
        };
        // A brand-scope PATCH names its target in the path: an unknown code is a 404 (stated:
        // "menu code"). Store-scope targets are judged per store when applied (results[]).
        if matches!(write, BodyKind::PatchProduct | BodyKind::PatchOption | BodyKind::PatchCategory | BodyKind::PatchGroup) {
            let empty = Catalog::default();
            let cat = self.menu.catalogs.get(&brand).unwrap_or(&empty);
            let found = match write {
                BodyKind::PatchProduct => {
                    find_product(cat, None, path_code).is_some()
                        || stores.iter().any(|s| find_product(&empty, self.menu.stores.get(s), path_code).is_some())
                }
                BodyKind::PatchOption => find_option(cat, path_code, None).is_some(),
                BodyKind::PatchCategory => cat.categories.iter().any(|c| c.active && c.code == path_code),
                _ => cat.groups.iter().any(|g| g.active && g.code == path_code),
            };
            if !found {
                return self.not_found_menu(format!("no menu item {path_code} in this client's catalog"));
            }
        }
        let rows = ops.iter().map(|op| if op.scope == "brand" { 1 } else { stores.len().max(1) }).sum::<usize>();
        if rows > MAX_CHANGE_ROWS {
            return self.menu_validation(
                "changes",
                format!("the change would hold {rows} result rows (targets × stores); the sandbox takes at most {MAX_CHANGE_ROWS} in one change"),
            );
        }
        // Images are refused before emission (stated).
        let (bad, base) = (self.options.bad_image_urls.clone(), self.image_base());
        for (i, op) in ops.iter().enumerate() {
            let url = op
                .set
                .get("image")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| op.local.as_ref().and_then(|l| str_of(l, "image")));
            if let Some(url) = url {
                if let Err(m) = rehost(&url, &bad, &base) {
                    let field = if write == BodyKind::Changes {
                        format!("changes[{i}].set.image")
                    } else if op.local.is_some() {
                        "image".into()
                    } else {
                        "set.image".into()
                    };
                    return self.menu_validation(&field, m);
                }
            }
        }
        while self.menu.changes.len() >= MAX_MENU_CHANGES {
            match self.menu.changes.iter().position(|c| c.completed_ms.is_some()) {
                Some(i) => {
                    self.menu.changes.remove(i);
                }
                None => {
                    return self.problem(
                        503,
                        None,
                        "Service Unavailable",
                        format!("{MAX_MENU_CHANGES} menu changes are pending"),
                        Value::Null,
                    )
                }
            }
        }
        let change_id = loop {
            let id = self.ids.change_id();
            if !self.menu.changes.iter().any(|c| c.change_id == id) {
                break id;
            }
        };
        self.menu.changes.push(MenuChange {
            change_id: change_id.clone(),
            client,
            brand,
            stores,
            ops,
            submitted_ms: now_ms,
            completed_ms: None,
            results: Vec::new(),
        });
        let at = now_ms + self.options.menu_change_delay_seconds * 1000;
        self.schedule(at, Timer::MenuChange { change_id: change_id.clone() });
        let body = json!({ "message": "Change accepted; it is applied asynchronously", "data": { "changeId": change_id } });
        Answer {
            status: 202,
            body: serde_json::to_vec(&body).unwrap_or_default(),
            problem: false,
            retry_after: None,
            delay_ms: 0,
            replayed: false,
        }
    }

    /// Applies a due change, best effort per store, and queues its completion webhook.
    pub(super) fn apply_menu_change(&mut self, change_id: &str, now_ms: i64) {
        let Some(i) = self.menu.changes.iter().position(|c| c.change_id == change_id && c.completed_ms.is_none()) else { return };
        let ch = self.menu.changes[i].clone();
        let mut rows = Vec::new();
        let mut ids = std::mem::replace(&mut self.ids, super::Ids::new(0));
        let (bad, base) = (self.options.bad_image_urls.clone(), self.image_base());
        self.menu.changed();
        let mut cat = self.menu.catalogs.remove(&ch.brand).unwrap_or_default();
        let mut look = Lookup::of(&cat);
        for op in &ch.ops {
            if op.scope == "brand" {
                let result = apply_brand(&mut cat, &look, op, &bad, &base);
                rows.push(row(None, None, op, result, now_ms));
                continue;
            }
            for st in &ch.stores {
                let store_id = self.config.store(st).map(|(_, s)| s.store_id);
                let result = match self.menu.failing.get(st) {
                    Some(code) => Err((code.clone(), format!("store {st} did not take the change (a failure the test injected)"))),
                    None => {
                        let layer = self.menu.stores.entry(st.clone()).or_default();
                        apply_store(&cat, &mut look, st, layer, op, &mut ids, &bad, &base)
                    }
                };
                rows.push(row(Some(st.clone()), store_id, op, result, now_ms));
            }
        }
        self.menu.catalogs.insert(ch.brand, cat);
        self.ids = ids;
        let ch = &mut self.menu.changes[i];
        ch.results = rows;
        ch.completed_ms = Some(now_ms);
        let ch = ch.clone();
        // The webhook's rows: store rows, and brand rows once per store of the brand (its
        // storeRemoteId is a string); only the entities in use there (category and group rows stay
        // in the resource).
        let brand_stores: Vec<String> = self
            .config
            .clients
            .get(ch.client)
            .map_or_else(Vec::new, |c| c.stores.iter().filter(|s| s.brand_id == ch.brand).map(|s| s.remote_id.clone()).collect());
        let mut results = Vec::new();
        for r in ch.results.iter().filter(|r| matches!(r.target_entity.as_str(), "product" | "modifierOption" | "localProduct")) {
            let stores = match &r.store_remote_id {
                Some(s) => vec![s.clone()],
                None => brand_stores.clone(),
            };
            for s in stores {
                let mut m = Map::new();
                m.insert("storeRemoteId".into(), json!(s));
                m.insert("targetEntity".into(), json!(r.target_entity));
                m.insert("targetCode".into(), json!(r.target_code));
                m.insert("applied".into(), json!(r.applied));
                if !r.applied {
                    m.insert("errorCode".into(), json!(r.error_code));
                    m.insert("errorMessage".into(), json!(r.error_message));
                }
                results.push(Value::Object(m));
            }
        }
        let ok = results.iter().filter(|r| r["applied"] == true).count();
        let status = if ok == results.len() {
            "applied"
        } else if ok == 0 {
            "failed"
        } else {
            "partial"
        };
        let body = json!({
            "changeKey": ch.change_id,
            "status": status,
            "submittedAt": crate::time::format_unix_seconds(now_secs(ch.submitted_ms)),
            "completedAt": crate::time::format_unix_seconds(now_secs(now_ms)),
            "results": results,
        });
        let path = format!("/v1/menu/change/{}", ch.change_id);
        self.queue(DeliveryKind::MenuChange, None, path, "POST", serde_json::to_string(&body).unwrap_or_default(), now_ms);
    }
}

type Outcome = Result<(), (String, String)>;

fn row(store: Option<String>, store_id: Option<i64>, op: &ChangeOp, result: Outcome, now_ms: i64) -> ResultRow {
    let (applied, error_code, error_message) = match result {
        Ok(()) => (true, None, None),
        Err((c, m)) => (false, Some(c), Some(m)),
    };
    ResultRow {
        store_remote_id: store,
        store_id,
        target_entity: op.target_entity.clone(),
        target_code: op.target_code.clone(),
        applied,
        error_code,
        error_message,
        applied_at_ms: applied.then_some(now_ms),
    }
}

fn unknown_target(op: &ChangeOp) -> Outcome {
    Err(("UNKNOWN_TARGET".into(), format!("no {} {} in this catalog", op.target_entity, op.target_code)))
}

fn unknown_category(code: &str) -> Outcome {
    Err(("UNKNOWN_CATEGORY".into(), format!("no category {code} in this catalog")))
}

fn set_str(set: &Map<String, Value>, k: &str) -> Option<String> {
    set.get(k).and_then(Value::as_str).map(str::to_string)
}

fn set_f64(set: &Map<String, Value>, k: &str) -> Option<f64> {
    set.get(k).and_then(Value::as_f64)
}

/// A brand-scope change to the master catalog.
fn apply_brand(cat: &mut Catalog, look: &Lookup, op: &ChangeOp, bad: &[String], base: &str) -> Outcome {
    let set = &op.set;
    match op.target_entity.as_str() {
        "product" => {
            let Some(&i) = look.products.get(&op.target_code) else {
                return unknown_target(op);
            };
            let p = &mut cat.products[i];
            if let Some(c) = op.category_code.as_deref().filter(|c| *c != p.category) {
                return unknown_category(c);
            }
            if let Some(x) = set_f64(set, "price") {
                p.price = x;
            }
            if let Some(x) = set_str(set, "name") {
                p.name = x;
            }
            if let Some(x) = set_str(set, "description") {
                p.description = Some(x);
            }
            if let Some(x) = set_f64(set, "tax") {
                p.tax = x;
            }
            if let Some(x) = set.get("maxPerOrder").and_then(Value::as_i64) {
                p.max_per_order = x;
            }
            if let Some(x) = set_str(set, "image") {
                p.image = Some(rehost(&x, bad, base).map_err(|m| ("IMAGE_UNUSABLE".to_string(), m))?);
            }
            Ok(())
        }
        "modifierOption" => {
            let group = op.category_code.as_deref();
            let Some((gi, oi)) = look.option(cat, &op.target_code, group) else {
                return match group {
                    Some(g) if look.option(cat, &op.target_code, None).is_some() => unknown_category(g),
                    _ => unknown_target(op),
                };
            };
            let o = &mut cat.groups[gi].options[oi];
            if let Some(x) = set_f64(set, "price") {
                o.price = x;
            }
            if let Some(x) = set_str(set, "name") {
                o.name = x;
            }
            if let Some(x) = set.get("isDefault").and_then(Value::as_bool) {
                o.is_default = x;
            }
            if let Some(x) = set.get("maxPerOrder").and_then(Value::as_i64) {
                o.max_per_order = Some(x);
            }
            Ok(())
        }
        "category" => {
            let Some(&i) = look.categories.get(&op.target_code) else { return unknown_target(op) };
            let c = &mut cat.categories[i];
            if let Some(x) = set_str(set, "name") {
                c.name = x;
            }
            if let Some(x) = set.get("position").and_then(Value::as_i64) {
                c.position = x;
            }
            Ok(())
        }
        "modifierGroup" => {
            let Some(&i) = look.groups.get(&op.target_code) else { return unknown_target(op) };
            let g = &mut cat.groups[i];
            if let Some(x) = set_str(set, "name") {
                g.name = x;
            }
            let min = set.get("min").and_then(Value::as_i64).unwrap_or(g.min);
            let max = set.get("max").and_then(Value::as_i64).unwrap_or(g.max);
            if max < min.max(1) {
                return Err(("INVALID_BOUNDS".into(), format!("max {max} would be lower than min {min} (or below 1)")));
            }
            (g.min, g.max) = (min, max);
            if let Some(x) = set_str(set, "type") {
                g.kind = x.to_ascii_lowercase();
            }
            Ok(())
        }
        _ => unknown_target(op),
    }
}

/// A store-scope change to one store's layer (or a local product's creation).
#[allow(clippy::too_many_arguments)]
fn apply_store(
    cat: &Catalog,
    look: &mut Lookup,
    store: &str,
    layer: &mut StoreLayer,
    op: &ChangeOp,
    ids: &mut super::Ids,
    bad: &[String],
    base: &str,
) -> Outcome {
    let set = &op.set;
    if let Some(body) = &op.local {
        if layer.local.len() >= MAX_LOCAL_PRODUCTS {
            return Err(("LIMIT".into(), format!("the store holds {MAX_LOCAL_PRODUCTS} local products, the sandbox's bound")));
        }
        if look.local_of(store, layer).contains_key(&op.target_code) {
            return Err(("DUPLICATE_CODE".into(), format!("the store already has a local product {}", op.target_code)));
        }
        // An unknown categoryCode: created, never displayed (stated).
        let category = op.category_code.clone().unwrap_or_default();
        let channels = body
            .get("channels")
            .and_then(Value::as_array)
            .map_or_else(|| vec!["delivery".to_string()], |a| a.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect());
        let image = match str_of(body, "image") {
            Some(u) => Some(rehost(&u, bad, base).map_err(|m| ("IMAGE_UNUSABLE".to_string(), m))?),
            None => None,
        };
        layer.local.push(Product {
            code: code(ids, "prd"),
            remote_code: op.target_code.clone(),
            category,
            name: str_of(body, "name").unwrap_or_default(),
            description: str_of(body, "description"),
            price: f64_of(body, "price").unwrap_or(0.0),
            tax: f64_of(body, "tax").unwrap_or(0.0),
            max_per_order: i64_of(body, "maxPerOrder").unwrap_or(25),
            image,
            channels,
            groups: Vec::new(),
            active: true,
            store: Some(store.to_string()),
        });
        let (i, new) = (layer.local.len() - 1, layer.local.last().map(|p| p.code.clone()).unwrap_or_default());
        let index = look.local_of(store, layer);
        index.insert(op.target_code.clone(), i);
        index.insert(new, i);
        return Ok(());
    }
    let code = match op.target_entity.as_str() {
        "product" | "localProduct" => {
            let p = match look.products.get(&op.target_code) {
                Some(&i) => &cat.products[i],
                None => match look.local_of(store, layer).get(&op.target_code) {
                    Some(&i) => &layer.local[i],
                    None => return unknown_target(op),
                },
            };
            if let Some(c) = op.category_code.as_deref().filter(|c| *c != p.category) {
                let by_remote = look.categories.get(&p.category).is_some_and(|&k| cat.categories[k].remote_code == c);
                if !by_remote {
                    return unknown_category(c);
                }
            }
            p.code.clone()
        }
        "modifierOption" => match look.option(cat, &op.target_code, op.category_code.as_deref()) {
            Some((gi, oi)) => cat.groups[gi].options[oi].code.clone(),
            None if op.category_code.is_some() && look.option(cat, &op.target_code, None).is_some() => {
                return unknown_category(op.category_code.as_deref().unwrap_or_default())
            }
            None => return unknown_target(op),
        },
        _ => return unknown_target(op),
    };
    let option = op.target_entity == "modifierOption";
    let o = layer.overrides.entry(code.clone()).or_default();
    for (k, v) in set {
        if v.is_null() {
            continue;
        }
        match k.as_str() {
            "available" => o.unavailable = v == &Value::Bool(false),
            "price" | "name" if option => {
                o.pending.insert(k.clone(), v.clone());
            }
            "price" => o.price = v.as_f64(),
            "name" => o.name = v.as_str().map(str::to_string),
            "description" => o.description = v.as_str().map(str::to_string),
            "schedule" => {
                o.schedule = Some(Window {
                    days: v
                        .get("days")
                        .and_then(Value::as_array)
                        .map_or_else(Vec::new, |a| a.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect()),
                    start_time: str_of(v, "startTime").unwrap_or_default(),
                    end_time: str_of(v, "endTime").unwrap_or_default(),
                });
            }
            "channels" => o.channels = v.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect()),
            _ => {}
        }
    }
    if *o == Override::default() {
        layer.overrides.remove(&code);
    }
    Ok(())
}

impl Service {
    /// The menu state as kept: catalogs, store layers, changes (JSON for the controls).
    pub fn menu_state(&self) -> &MenuState {
        &self.menu
    }

    /// Seeds brand `brand`'s catalog (default: the first client's first brand) with a full
    /// submission, as a confirmed PUT /menu would, without a request: the body must pass the
    /// menu linter.
    pub fn seed_menu(&mut self, brand: Option<i64>, body: &[u8]) -> Result<UploadCounts, super::ControlError> {
        let brand = brand.or_else(|| self.client_brand(0)).ok_or_else(|| super::ControlError::NotFound("no brand".into()))?;
        if !self.config.clients.iter().any(|c| c.stores.iter().any(|s| s.brand_id == brand)) {
            return Err(super::ControlError::NotFound(format!("no store of brand {brand}")));
        }
        let report = crate::menu::lint(body, &crate::menu::LintOptions::default());
        if let Some(d) = report.diagnostics.iter().find(|d| d.severity == crate::diagnostic::Severity::Error) {
            return Err(super::ControlError::Invalid(format!(
                "the menu does not pass the linter ({} error(s)); first: {} at {}",
                report.error_count, d.message, d.path
            )));
        }
        let arena = crate::json::Arena::for_input(body.len());
        let doc = crate::json::parse(body, &crate::json::Limits::default(), &arena).map_err(|e| super::ControlError::Invalid(e.message))?;
        let tree = &doc.root;
        let (bad, base) = (self.options.bad_image_urls.clone(), self.image_base());
        let mut images = HashMap::new();
        for c in arr(tree, "categories") {
            for p in arr(c, "products") {
                if let Some(url) = str_of(p, "image") {
                    let u = rehost(&url, &bad, &base).map_err(super::ControlError::Invalid)?;
                    images.insert(url, u);
                }
            }
        }
        let mut ids = self.ids.clone();
        let mut next = self.menu.catalogs.get(&brand).cloned().unwrap_or_default();
        let counts = upload(&mut next, tree, &images, &mut ids);
        self.ids = ids;
        *self.menu.catalog_mut(brand) = next;
        Ok(counts)
    }

    /// Makes every change fail for `store` with `error_code` (default `STORE_UNAVAILABLE`), or
    /// stops that (`None`).
    pub fn fail_menu_changes(&mut self, store: &str, error_code: Option<Option<String>>) -> Result<(), super::ControlError> {
        if self.config.store(store).is_none() {
            return Err(super::ControlError::NotFound(format!("no store {store}")));
        }
        match error_code {
            Some(code) => {
                let code = code.unwrap_or_else(|| "STORE_UNAVAILABLE".into());
                // Stable codes in the contract's style (UNKNOWN_CATEGORY): upper snake case.
                if code.is_empty() || code.len() > 64 || !code.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_') {
                    return Err(super::ControlError::Invalid(format!(
                        "errorCode must be UPPER_SNAKE_CASE, 1 to 64 characters, not {code:?}"
                    )));
                }
                self.menu.failing.insert(store.to_string(), code);
            }
            None => {
                self.menu.failing.remove(store);
            }
        }
        Ok(())
    }

    /// The store menu read of `store` (the `data`), without a request (no rate limit spent).
    pub fn store_menu(&mut self, store: &str, now_ms: i64) -> Result<Vec<u8>, super::ControlError> {
        let (client, _) = self.config.store(store).ok_or_else(|| super::ControlError::NotFound(format!("no store {store}")))?;
        let a = self.menu_read(client, store, now_ms);
        Ok(a.body)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn deactivated_items_past_the_bound_are_forgotten_oldest_first() {
        // (id, active): products keep their oldest deactivated at the end, categories at the start.
        let items = || vec![(1, true), (2, false), (3, true), (4, false), (5, false), (6, true)];
        let mut tail = items();
        super::forget_past(&mut tail, |x| x.1, true, 1);
        assert_eq!(tail, [(1, true), (2, false), (3, true), (6, true)]);
        let mut head = items();
        super::forget_past(&mut head, |x| x.1, false, 1);
        assert_eq!(head, [(1, true), (3, true), (5, false), (6, true)]);
        let mut none = items();
        super::forget_past(&mut none, |x| x.1, true, 3);
        assert_eq!(none, items(), "within the bound nothing goes");
    }
}
