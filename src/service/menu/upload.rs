//! `PUT /api/v1/menu` and `POST /api/v1/menu/preview`: a full submission matched with the
//! catalog by the menu matcher and applied (replacement, not merge).

use super::read::render_store;
use super::rest::{answer, rehost};
use super::state::{forget_deactivated, Catalog, Category, Group, ModifierOption, Product};
use super::{arr, code, f64_of, i64_of, str_of, Node};
use crate::contract::{Channel, GroupType, LOCAL_PRODUCT_MAX_PER_ORDER_DEFAULT};
use crate::menu::diff::{deactivation_share, match_level, Keys, Known, Left, Match, Matching};
use crate::service::rest::Answer;
use crate::service::{now_secs, Service};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

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

impl Service {
    /// `PUT /api/v1/menu` (`apply`) and `POST /api/v1/menu/preview`: the body passed the linter.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::service) fn menu_upload(
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
            return answer(200, &body);
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
        let empty = Catalog::default();
        let plan = plan(self.menu.catalogs.get(&brand).unwrap_or(&empty), tree);
        let share = deactivation_share(plan.leaving, plan.active, threshold);
        if share.above && !confirm {
            return self.problem(
                409,
                None,
                "Large deactivation",
                format!(
                    "the upload would deactivate {} of {} active products ({:.0} %, above the {:.0} % threshold): send confirmLargeDeactivation=true to apply it",
                    plan.leaving,
                    plan.active,
                    share.share * 100.0,
                    threshold * 100.0
                ),
                Value::Null,
            );
        }
        let mut ids = std::mem::replace(&mut self.ids, crate::service::Ids::new(0));
        let counts = upload(self.menu.catalog_mut(brand), tree, &plan, &images, &mut ids);
        self.ids = ids;
        let body = json!({ "message": "Menu applied", "data": counts });
        answer(200, &body)
    }

    /// Seeds brand `brand`'s catalog (default: the first client's first brand) with a full
    /// submission, as a confirmed PUT /menu would, without a request: the body must pass the
    /// menu linter.
    pub fn seed_menu(&mut self, brand: Option<i64>, body: &[u8]) -> Result<UploadCounts, crate::service::ControlError> {
        let brand = brand.or_else(|| self.client_brand(0)).ok_or_else(|| crate::service::ControlError::NotFound("no brand".into()))?;
        if !self.config.clients.iter().any(|c| c.stores.iter().any(|s| s.brand_id == brand)) {
            return Err(crate::service::ControlError::NotFound(format!("no store of brand {brand}")));
        }
        let report = crate::menu::lint(body, &crate::menu::LintOptions::default());
        if let Some(d) = report.diagnostics.iter().find(|d| d.severity == crate::diagnostic::Severity::Error) {
            return Err(crate::service::ControlError::Invalid(format!(
                "the menu does not pass the linter ({} error(s)); first: {} at {}",
                report.error_count, d.message, d.path
            )));
        }
        let arena = crate::json::Arena::for_input(body.len());
        let doc = crate::json::parse(body, &crate::json::Limits::default(), &arena)
            .map_err(|e| crate::service::ControlError::Invalid(e.message))?;
        let tree = &doc.root;
        let (bad, base) = (self.options.bad_image_urls.clone(), self.image_base());
        let mut images = HashMap::new();
        for c in arr(tree, "categories") {
            for p in arr(c, "products") {
                if let Some(url) = str_of(p, "image") {
                    let u = rehost(&url, &bad, &base).map_err(crate::service::ControlError::Invalid)?;
                    images.insert(url, u);
                }
            }
        }
        let mut ids = self.ids.clone();
        let mut next = self.menu.catalogs.get(&brand).cloned().unwrap_or_default();
        let plan = plan(&next, tree);
        let counts = upload(&mut next, tree, &plan, &images, &mut ids);
        self.ids = ids;
        *self.menu.catalog_mut(brand) = next;
        Ok(counts)
    }
}

/// The catalog's products each submitted product is (in the submission's order: categories, then
/// their products), found with the menu matcher before anything changes, and the deactivation it
/// makes: a refused upload changes nothing, not even the ids drawn.
pub(super) struct Plan {
    /// Per submitted product, the catalog product it is (`Matched`) or `Created`.
    products: Vec<Match>,
    /// Active brand products before the upload.
    active: usize,
    /// Active brand products the upload deactivates.
    leaving: usize,
}

/// Matches one level with the menu matcher, knowing what the catalog holds beyond the read:
/// `back`, a second key per catalog item (a deactivated item's key, a group's remoteCode), and
/// the items `taken` by an earlier level.
fn resolve(current: &[Option<&str>], back: &[Option<&str>], next: &[Option<&str>], next_back: &[Option<&str>], taken: &[bool]) -> Matching {
    let mut work = 0;
    match_level(Keys { current, next }, Some(Known { current: back, next: next_back, taken }), &mut work)
}

/// A submitted item's key: its text (absent: empty, as the catalog keeps it).
fn key<'t>(v: &'t crate::json::Value, k: &str) -> Option<&'t str> {
    Some(v.field(k).and_then(Node::text).unwrap_or_default())
}

/// Active items keyed by `key`, and deactivated ones (what the read does not show) apart.
fn split_active<'c, T>(
    items: &'c [T],
    active: impl Fn(&T) -> bool,
    key: impl Fn(&'c T) -> &'c str,
) -> (Vec<Option<&'c str>>, Vec<Option<&'c str>>) {
    items.iter().map(|x| if active(x) { (Some(key(x)), None) } else { (None, Some(key(x))) }).unzip()
}

/// The products of a submission matched with the catalog's by remoteCode (a deactivated one comes
/// back by its code), and the share of the active ones it leaves out.
pub(super) fn plan(cat: &Catalog, tree: &crate::json::Value) -> Plan {
    let (current, back) = split_active(&cat.products, |p| p.active, |p| p.remote_code.as_str());
    let next: Vec<Option<&str>> = arr(tree, "categories").iter().flat_map(|c| arr(c, "products")).map(|p| key(p, "remoteCode")).collect();
    let m = resolve(&current, &back, &next, &next, &[]);
    let active = cat.products.iter().filter(|p| p.active).count();
    let leaving = cat.products.iter().zip(&m.current).filter(|(p, l)| p.active && !matches!(l, Left::Matched(_))).count();
    Plan { products: m.next, active, leaving }
}

/// The categories of a submission matched with the catalog's by name: an active one held once,
/// else a deactivated one no active category names (it comes back with its code).
fn match_categories(cat: &Catalog, tree: &crate::json::Value) -> Vec<Match> {
    let held: HashSet<&str> = cat.categories.iter().filter(|c| c.active).map(|c| c.name.as_str()).collect();
    let mut given = HashSet::new();
    let current: Vec<Option<&str>> = cat.categories.iter().map(|c| c.active.then_some(c.name.as_str())).collect();
    let back: Vec<Option<&str>> = cat
        .categories
        .iter()
        .map(|c| (!c.active && !held.contains(c.name.as_str()) && given.insert(c.name.as_str())).then_some(c.name.as_str()))
        .collect();
    let next: Vec<Option<&str>> = arr(tree, "categories").iter().map(|c| key(c, "name")).collect();
    resolve(&current, &back, &next, &next, &[]).next
}

/// An upload under way.
struct Upload<'a> {
    cat: &'a mut Catalog,
    ids: &'a mut crate::service::Ids,
    counts: UploadCounts,
    /// Groups matched or made by this upload.
    seen_groups: HashSet<usize>,
    /// The groups this upload defined, by remoteCode (a group shared in the submission is one).
    groups_by_remote: HashMap<String, usize>,
}

impl Upload<'_> {
    fn count(&mut self, was_active: bool, same: bool) {
        self.counts.created += usize::from(!was_active);
        self.counts.updated += usize::from(was_active && !same);
        self.counts.unchanged += usize::from(same);
    }

    /// A product's groups: one the submission already defined (by remoteCode) is that one;
    /// the others matched among the groups of the catalog product `had` by name, and by the
    /// remoteCode last submitted where a name is held twice (kept inside the model, not shown in
    /// the read: where diffMenu says "ambiguous"). Their codes, in order.
    fn groups(&mut self, p: &crate::json::Value, had: &[usize]) -> Vec<String> {
        let submitted = arr(p, "modifierGroups");
        let remotes: Vec<&str> = submitted.iter().map(|g| key(g, "remoteCode").unwrap_or_default()).collect();
        let mut defined_here = HashSet::new();
        let fresh: Vec<usize> = (0..submitted.len())
            .filter(|&k| {
                let first_here = defined_here.insert(remotes[k]);
                first_here && !self.groups_by_remote.contains_key(remotes[k])
            })
            .collect();
        let groups = &self.cat.groups;
        let names: Vec<Option<&str>> = had.iter().map(|&i| Some(groups[i].name.as_str())).collect();
        let codes: Vec<Option<&str>> = had.iter().map(|&i| Some(groups[i].remote_code.as_str())).collect();
        let taken: Vec<bool> = had.iter().map(|i| self.seen_groups.contains(i)).collect();
        let next_names: Vec<Option<&str>> = fresh.iter().map(|&k| key(&submitted[k], "name")).collect();
        let next_codes: Vec<Option<&str>> = fresh.iter().map(|&k| Some(remotes[k])).collect();
        let matched = resolve(&names, &codes, &next_names, &next_codes, &taken).next;
        let mut fresh_match = fresh.iter().zip(matched).peekable();
        let mut group_codes = Vec::new();
        for (k, g) in submitted.iter().enumerate() {
            let m = match fresh_match.next_if(|(f, _)| **f == k) {
                Some((_, m)) => m,
                None => {
                    let gi = self.groups_by_remote.get(remotes[k]).copied().unwrap_or_default();
                    group_codes.push(self.cat.groups[gi].code.clone());
                    continue;
                }
            };
            let gi = match m {
                Match::Matched(j) => had[j],
                _ => {
                    let name = key(g, "name").unwrap_or_default().to_string();
                    self.cat.groups.push(Group {
                        code: code(self.ids, "grp"),
                        remote_code: remotes[k].to_string(),
                        name,
                        min: 0,
                        max: 1,
                        kind: GroupType::Radio.as_str().into(),
                        options: Vec::new(),
                        active: false,
                    });
                    self.cat.groups.len() - 1
                }
            };
            let group = &mut self.cat.groups[gi];
            let was_active = group.active;
            let (min, max, kind) =
                (i64_of(g, "min").unwrap_or(0), i64_of(g, "max").unwrap_or(1), str_of(g, "type").unwrap_or_default().to_ascii_lowercase());
            let same = was_active && group.min == min && group.max == max && group.kind == kind;
            group.remote_code = remotes[k].to_string();
            group.min = min;
            group.max = max;
            group.kind = kind;
            group.active = true;
            self.count(was_active, same);
            self.options(gi, arr(g, "options"));
            self.seen_groups.insert(gi);
            self.groups_by_remote.insert(remotes[k].to_string(), gi);
            group_codes.push(self.cat.groups[gi].code.clone());
        }
        group_codes
    }

    /// A group's options, matched by remoteCode (a deactivated one comes back by its code); the
    /// others deactivated. The submitted ones first, in the submitted order.
    fn options(&mut self, gi: usize, submitted: &[crate::json::Value]) {
        let group = &self.cat.groups[gi];
        let (current, back) = split_active(&group.options, |o| o.active, |o| o.remote_code.as_str());
        let next: Vec<Option<&str>> = submitted.iter().map(|o| key(o, "remoteCode")).collect();
        let m = resolve(&current, &back, &next, &next, &[]);
        let mut kept = Vec::new();
        for (o, matched) in submitted.iter().zip(m.next) {
            let option = ModifierOption {
                code: String::new(),
                remote_code: str_of(o, "remoteCode").unwrap_or_default(),
                name: str_of(o, "name").unwrap_or_default(),
                price: f64_of(o, "price").unwrap_or(0.0),
                is_default: o.field("isDefault").and_then(Node::flag).unwrap_or(false),
                max_per_order: i64_of(o, "maxPerOrder"),
                active: true,
            };
            match matched {
                Match::Matched(i) => {
                    let old = &self.cat.groups[gi].options[i];
                    let same = old.active
                        && old.name == option.name
                        && old.price == option.price
                        && old.is_default == option.is_default
                        && old.max_per_order == option.max_per_order;
                    let was_active = old.active;
                    self.count(was_active, same);
                    let old = &mut self.cat.groups[gi].options[i];
                    *old = ModifierOption { code: std::mem::take(&mut old.code), ..option };
                    kept.push(i);
                }
                _ => {
                    let options = &mut self.cat.groups[gi].options;
                    options.push(ModifierOption { code: code(self.ids, "opt"), ..option });
                    self.counts.created += 1;
                    kept.push(options.len() - 1);
                }
            }
        }
        let group = &mut self.cat.groups[gi];
        for (o, left) in group.options.iter_mut().zip(&m.current) {
            if o.active && !matches!(left, Left::Matched(_)) {
                o.active = false;
                self.counts.deactivated += 1;
            }
        }
        // Options in the submitted order.
        let mut slots: Vec<Option<ModifierOption>> = std::mem::take(&mut group.options).into_iter().map(Some).collect();
        let mut ordered: Vec<ModifierOption> = kept.iter().filter_map(|&i| slots[i].take()).collect();
        ordered.extend(slots.into_iter().flatten());
        group.options = ordered;
    }
}

/// Applies a full submission to a catalog (replacement, not merge), its products matched as
/// `plan` says (made from this catalog and this tree); what it did.
fn upload(
    cat: &mut Catalog,
    tree: &crate::json::Value,
    plan: &Plan,
    images: &HashMap<String, String>,
    ids: &mut crate::service::Ids,
) -> UploadCounts {
    // Matching (the menu matcher's, as diffMenu's): categories by name, products by remoteCode,
    // groups by name within their matched product, options by remoteCode within their group. A
    // name held twice is not matched (a new item is made, or the catalog's remoteCode decides).
    let categories = match_categories(cat, tree);
    let group_index: HashMap<String, usize> = cat.groups.iter().enumerate().map(|(i, g)| (g.code.clone(), i)).collect();
    // The products are moved, not copied: a matched one is taken from its slot and updated in place.
    let mut slots: Vec<Option<Product>> = std::mem::take(&mut cat.products).into_iter().map(Some).collect();
    let mut up = Upload {
        counts: UploadCounts { active_products: plan.active, ..Default::default() },
        cat,
        ids,
        seen_groups: HashSet::new(),
        groups_by_remote: HashMap::new(),
    };
    let mut seen_cats = HashSet::new();
    let mut products = Vec::new();
    let mut product_match = plan.products.iter();
    for (c, matched) in arr(tree, "categories").iter().zip(categories) {
        let remote = str_of(c, "remoteCode").unwrap_or_default();
        let position = i64_of(c, "position").unwrap_or(0);
        let ci = match matched {
            Match::Matched(i) => {
                let old = &mut up.cat.categories[i];
                let (was_active, same) = (old.active, old.active && old.position == position);
                old.remote_code = remote;
                old.position = position;
                old.active = true;
                up.count(was_active, same);
                i
            }
            _ => {
                let name = str_of(c, "name").unwrap_or_default();
                up.cat.categories.push(Category { code: code(up.ids, "cat"), remote_code: remote, name, position, active: true });
                up.counts.created += 1;
                up.cat.categories.len() - 1
            }
        };
        seen_cats.insert(ci);
        let category_code = up.cat.categories[ci].code.clone();
        for p in arr(c, "products") {
            let slot = match product_match.next() {
                Some(&Match::Matched(i)) => Some(i),
                _ => None,
            };
            // The matched product's groups, for its groups to be matched among them.
            let had: Vec<usize> = slot
                .and_then(|i| slots[i].as_ref())
                .map_or_else(Vec::new, |p| p.groups.iter().filter_map(|g| group_index.get(g).copied()).collect());
            let group_codes = up.groups(p, &had);
            // Read borrowed; copied only into a product that changes or is new.
            let text = |k: &str| p.field(k).and_then(Node::text);
            let name = text("name").unwrap_or_default();
            let description = text("description");
            let price = f64_of(p, "price").unwrap_or(0.0);
            let tax = f64_of(p, "tax").unwrap_or(0.0);
            // Not shown for a brand product: the local product's default.
            let max_per_order = i64_of(p, "maxPerOrder").unwrap_or(LOCAL_PRODUCT_MAX_PER_ORDER_DEFAULT);
            let image = text("image").and_then(|u| images.get(u)).map(String::as_str);
            match slot.and_then(|i| slots[i].take()) {
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
                    up.count(old.active, same);
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
                        code: code(up.ids, "prd"),
                        remote_code: text("remoteCode").unwrap_or_default().to_string(),
                        category: category_code.clone(),
                        name: name.to_string(),
                        description: description.map(str::to_string),
                        price,
                        tax,
                        max_per_order,
                        image: image.map(str::to_string),
                        channels: Channel::ALL.iter().map(|c| c.as_str().to_string()).collect(),
                        groups: group_codes,
                        active: true,
                        store: None,
                    });
                    up.counts.created += 1;
                }
            }
        }
    }
    let Upload { cat, mut counts, seen_groups, .. } = up;
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
