//! `PUT /api/v1/menu` and `POST /api/v1/menu/preview`: a full submission matched with the
//! catalog by the menu matcher and applied (replacement, not merge).

use super::read::render_store;
use super::rest::rehost;
use super::state::{forget_deactivated, Catalog, Category, Group, ModifierOption, Product};
use super::{arr, code, f64_of, i64_of, str_of, Node};
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
        let mut ids = std::mem::replace(&mut self.ids, crate::service::Ids::new(0));
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
        let counts = upload(&mut next, tree, &images, &mut ids);
        self.ids = ids;
        *self.menu.catalog_mut(brand) = next;
        Ok(counts)
    }
}

/// Applies a full submission to a catalog (replacement, not merge); what it did.
fn upload(cat: &mut Catalog, tree: &crate::json::Value, images: &HashMap<String, String>, ids: &mut crate::service::Ids) -> UploadCounts {
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
