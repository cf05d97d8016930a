//! The asynchronous menu writes: compiled to the batch shape of `POST /api/v1/menu/changes`,
//! applied when due, best effort per store, with their completion webhook.

use super::rest::{answer, rehost};
use super::state::{Catalog, ChangeOp, Group, MenuChange, ModifierOption, Override, Product, ResultRow, StoreLayer, Window};
use super::{arr, code, f64_of, i64_of, str_of, MAX_LOCAL_PRODUCTS, MAX_MENU_CHANGES};
use crate::contract::{Channel, MenuChangeOutcome, Scope, TargetEntity, LOCAL_PRODUCT_MAX_PER_ORDER_DEFAULT};
use crate::payload::BodyKind;
use crate::service::outbox::{DeliveryKind, MENU_CHANGE_PATH};
use crate::service::rest::Answer;
use crate::service::{now_secs, Service, Timer};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

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
    pub(in crate::service) fn menu_write(&mut self, client: usize, write: BodyKind, path_code: &str, body: &[u8], now_ms: i64) -> Answer {
        let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let stores: Vec<String> = arr(&v, "stores").iter().filter_map(Value::as_str).map(str::to_string).collect();
        let scope_of = |x: &Value| str_of(x, "scope").unwrap_or_else(|| Scope::Store.as_str().into());
        let set_of = |x: &Value| x.get("set").and_then(Value::as_object).cloned().unwrap_or_default();
        let one = |entity: TargetEntity, x: &Value| ChangeOp {
            target_entity: entity.as_str().into(),
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
                            scope: Scope::Store.as_str().into(),
                            category_code: str_of(it, "categoryCode"),
                            set,
                            local: None,
                        }
                    })
                    .collect();
                (ops, stores)
            }
            BodyKind::PatchProduct => (vec![one(TargetEntity::Product, &v)], stores),
            BodyKind::PatchOption => (vec![one(TargetEntity::ModifierOption, &v)], stores),
            BodyKind::PatchCategory => (vec![one(TargetEntity::Category, &v)], stores),
            BodyKind::PatchGroup => (vec![one(TargetEntity::ModifierGroup, &v)], stores),
            BodyKind::Changes => {
                let ops = arr(&v, "changes")
                    .iter()
                    .map(|c| ChangeOp {
                        target_entity: str_of(c, "targetEntity").unwrap_or_default(),
                        target_code: str_of(c, "targetCode").unwrap_or_default(),
                        scope: scope_of(c),
                        category_code: str_of(c, "categoryCode"),
                        set: set_of(c),
                        local: (str_of(c, "targetEntity").as_deref() == Some(TargetEntity::LocalProduct.as_str()))
                            .then(|| c.get("set").cloned().unwrap_or(Value::Null)),
                    })
                    .collect();
                (ops, stores)
            }
            BodyKind::LocalProduct => {
                let op = ChangeOp {
                    target_entity: TargetEntity::LocalProduct.as_str().into(),
                    target_code: str_of(&v, "code").unwrap_or_default(),
                    scope: Scope::Store.as_str().into(),
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
        let rows = ops.iter().map(|op| if op.scope == Scope::Brand.as_str() { 1 } else { stores.len().max(1) }).sum::<usize>();
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
        answer(202, &body)
    }

    /// Applies a due change, best effort per store, and queues its completion webhook.
    pub(in crate::service) fn apply_menu_change(&mut self, change_id: &str, now_ms: i64) {
        let Some(i) = self.menu.changes.iter().position(|c| c.change_id == change_id && c.completed_ms.is_none()) else { return };
        let ch = self.menu.changes[i].clone();
        let mut rows = Vec::new();
        let mut ids = std::mem::replace(&mut self.ids, crate::service::Ids::new(0));
        let (bad, base) = (self.options.bad_image_urls.clone(), self.image_base());
        self.menu.changed();
        let mut cat = self.menu.catalogs.remove(&ch.brand).unwrap_or_default();
        let mut look = Lookup::of(&cat);
        for op in &ch.ops {
            if op.scope == Scope::Brand.as_str() {
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
        for r in ch.results.iter().filter(|r| {
            matches!(
                TargetEntity::parse(&r.target_entity),
                Some(TargetEntity::Product | TargetEntity::ModifierOption | TargetEntity::LocalProduct)
            )
        }) {
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
            MenuChangeOutcome::Applied
        } else if ok == 0 {
            MenuChangeOutcome::Failed
        } else {
            MenuChangeOutcome::Partial
        };
        let body = json!({
            "changeKey": ch.change_id,
            "status": status.as_str(),
            "submittedAt": crate::time::format_unix_seconds(now_secs(ch.submitted_ms)),
            "completedAt": crate::time::format_unix_seconds(now_secs(now_ms)),
            "results": results,
        });
        let path = format!("{MENU_CHANGE_PATH}{}", ch.change_id);
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
    Err((crate::contract::ERROR_CODE_UNKNOWN_CATEGORY.into(), format!("no category {code} in this catalog")))
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
    match TargetEntity::parse(&op.target_entity) {
        Some(TargetEntity::Product) => {
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
        Some(TargetEntity::ModifierOption) => {
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
        Some(TargetEntity::Category) => {
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
        Some(TargetEntity::ModifierGroup) => {
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
    ids: &mut crate::service::Ids,
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
        let channels = body.get("channels").and_then(Value::as_array).map_or_else(
            || vec![Channel::Delivery.as_str().to_string()],
            |a| a.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect(),
        );
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
            max_per_order: i64_of(body, "maxPerOrder").unwrap_or(LOCAL_PRODUCT_MAX_PER_ORDER_DEFAULT),
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
    let entity = TargetEntity::parse(&op.target_entity);
    let code = match entity {
        Some(TargetEntity::Product | TargetEntity::LocalProduct) => {
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
        Some(TargetEntity::ModifierOption) => match look.option(cat, &op.target_code, op.category_code.as_deref()) {
            Some((gi, oi)) => cat.groups[gi].options[oi].code.clone(),
            None if op.category_code.is_some() && look.option(cat, &op.target_code, None).is_some() => {
                return unknown_category(op.category_code.as_deref().unwrap_or_default())
            }
            None => return unknown_target(op),
        },
        _ => return unknown_target(op),
    };
    let option = entity == Some(TargetEntity::ModifierOption);
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
    /// Makes every change fail for `store` with `error_code` (default `STORE_UNAVAILABLE`), or
    /// stops that (`None`).
    pub fn fail_menu_changes(&mut self, store: &str, error_code: Option<Option<String>>) -> Result<(), crate::service::ControlError> {
        if self.config.store(store).is_none() {
            return Err(crate::service::ControlError::NotFound(format!("no store {store}")));
        }
        match error_code {
            Some(code) => {
                let code = code.unwrap_or_else(|| "STORE_UNAVAILABLE".into());
                // Stable codes in the contract's style (UNKNOWN_CATEGORY): upper snake case.
                if code.is_empty() || code.len() > 64 || !code.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_') {
                    return Err(crate::service::ControlError::Invalid(format!(
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
}
