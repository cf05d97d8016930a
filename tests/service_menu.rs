//! The service model's menu half (issue 27), through REST calls whose every answer is held to the
//! toolkit's own checkers (`validate_payload`, `classify_problem`) and whose webhooks a fake POS
//! verifies: a POS from an empty catalog to uploads, store overrides, asynchronous changes and
//! their completion webhooks; and the upload predicted by `diffMenu` on generated catalogs.

#[path = "common/sandbox.rs"]
mod sandbox;

use poscheck::menu::diff::{diff, Change, DiffOptions, Entity};
use poscheck::menu::{lint, LintOptions};
use poscheck::service::{DeliveryKind, Options};
use sandbox::{suffix, Harness};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A full submission: `categories` × `products` products, every product sharing the SIZE group
/// (declared on each, defined once at brand level) and the first product of each category with an
/// EXTRAS group of its own. Product remoteCodes are `P{c}-{p}`, priced by `price(c, p)`.
fn menu(categories: usize, products: usize, price: impl Fn(usize, usize) -> f64) -> Value {
    let cats: Vec<Value> = (0..categories)
        .map(|c| {
            let prods: Vec<Value> = (0..products)
                .map(|p| {
                    let mut groups = vec![json!({ "remoteCode": "SIZE", "name": "Size", "min": 1, "max": 1, "type": "radio", "options": [
                        { "remoteCode": "SIZE-S", "name": "Small", "price": 0, "isDefault": true, "maxPerOrder": 1 },
                        { "remoteCode": "SIZE-L", "name": "Large", "price": 1.5, "isDefault": false, "maxPerOrder": 1 }
                    ] })];
                    if p == 0 {
                        groups.push(json!({ "remoteCode": format!("EXTRAS-{c}"), "name": format!("Extras {c}"), "min": 0, "max": 3, "type": "checkbox", "options": [
                            { "remoteCode": format!("X{c}-CHEESE"), "name": "Cheese", "price": 0.5, "isDefault": false, "maxPerOrder": 2 }
                        ] }));
                    }
                    json!({
                        "remoteCode": format!("P{c}-{p}"), "name": format!("Product {c}-{p}"), "description": format!("Made to order {c}-{p}"),
                        "price": price(c, p), "tax": 0.18, "maxPerOrder": 10,
                        "image": format!("https://cdn.example.com/menu/p{c}-{p}.png"), "modifierGroups": groups,
                    })
                })
                .collect();
            json!({ "remoteCode": format!("C{c}"), "name": format!("Category {c}"), "position": c, "products": prods })
        })
        .collect();
    json!({ "categories": cats })
}

fn body(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

/// `GET /api/v1/menu/stores/{store}`: 200, checked; its `data`.
fn read(h: &mut Harness, store: &str) -> Value {
    let (a, b) = h.send("GET", &format!("/api/v1/menu/stores/{store}"), None, b"");
    assert_eq!(a.status, 200, "{b}");
    b["data"].clone()
}

fn products(read: &Value) -> BTreeMap<String, Value> {
    read["categories"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["products"].as_array().unwrap().clone())
        .map(|p| (p["remoteCode"].as_str().unwrap().to_string(), p))
        .collect()
}

/// Runs what is due `secs` seconds later; returns the menu change webhooks received.
fn settle(h: &mut Harness, secs: i64) -> Vec<Value> {
    h.advance(secs);
    h.pump().into_iter().filter(|r| r.attempt.kind == DeliveryKind::MenuChange).map(|r| r.body).collect()
}

fn change(h: &mut Harness, id: &str) -> Value {
    let (a, b) = h.send("GET", &format!("/api/v1/menu/changes/{id}"), None, b"");
    assert_eq!(a.status, 200, "{b}");
    b["data"].clone()
}

#[test]
fn a_pos_from_an_empty_catalog_through_uploads_overrides_and_changes() {
    let mut h = Harness::default_account();
    assert_eq!(read(&mut h, "STORE-1")["categories"], json!([]), "an empty catalog");

    // PUT /menu with a full submission (a shared group included): the read shows it with service codes.
    let submission = menu(2, 3, |c, p| 5.0 + c as f64 + p as f64 / 10.0);
    assert!(lint(&body(&submission), &LintOptions::default()).ok, "the test's own submission passes the linter");
    let (a, b) = h.mutate("PUT", "/api/v1/menu", &body(&submission));
    assert_eq!(a.status, 200, "{b}");
    assert_eq!(b["data"]["deactivated"], 0);
    let r1 = read(&mut h, "STORE-1");
    let ps = products(&r1);
    assert_eq!(ps.len(), 6);
    let p00 = &ps["P0-0"];
    assert!(p00["code"].as_str().unwrap().starts_with("prd_"), "a service code: {p00}");
    assert_eq!(p00["origin"], "brand");
    assert_eq!(p00["orderable"], true);
    assert!(p00.get("overrides").is_none(), "no override: the field is omitted");
    assert!(p00["image"].as_str().unwrap().ends_with(".webp") && !p00["image"].as_str().unwrap().contains("cdn.example.com"), "re-hosted");
    let size_codes: BTreeSet<&str> = ps.values().map(|p| p["modifierGroups"][0]["code"].as_str().unwrap()).collect();
    assert_eq!(size_codes.len(), 1, "the shared SIZE group has one code in every product");
    assert_eq!(r1, read(&mut h, "STORE-2"), "no override yet: both stores read the same");

    // Availability off for one product in one store: 202, Pending, then Applied with its webhook.
    let (a, b) = h.mutate(
        "PUT",
        "/api/v1/menu/availability",
        &body(&json!({ "stores": ["STORE-1"], "items": [{ "targetEntity": "product", "targetCode": "P0-1", "available": false }] })),
    );
    assert_eq!(a.status, 202, "{b}");
    let id = b["data"]["changeId"].as_str().unwrap().to_string();
    assert!(id.starts_with("chg_") && id.len() == 20);
    let pending = change(&mut h, &id);
    assert_eq!((pending["status"].as_str(), pending["completedAt"].is_null()), (Some("Pending"), true));
    assert_eq!(products(&read(&mut h, "STORE-1"))["P0-1"]["orderable"], true, "a 202 does not mean applied");
    let delay = h.sb.options().menu_change_delay_seconds;
    let hooks = settle(&mut h, delay);
    assert_eq!(hooks.len(), 1, "the completion webhook, verified and validated by the POS");
    assert_eq!((hooks[0]["changeKey"].as_str(), hooks[0]["status"].as_str()), (Some(id.as_str()), Some("applied")));
    assert!(hooks[0]["results"][0].get("errorCode").is_none(), "errorCode omitted on an applied row, not null");
    let done = change(&mut h, &id);
    assert_eq!(done["status"], "Applied");
    assert_eq!(done["results"][0]["storeRemoteId"], "STORE-1");
    assert_eq!(done["results"][0]["applied"], true);
    let p01 = &products(&read(&mut h, "STORE-1"))["P0-1"];
    assert_eq!(p01["orderable"], false);
    assert_eq!(p01["overrides"][0]["type"], "unavailable", "{p01}");
    assert_eq!(products(&read(&mut h, "STORE-2"))["P0-1"]["orderable"], true, "the other store is untouched");

    // A store-scope price override shows as a value override with its base.
    let (a, _) = h.mutate(
        "PUT",
        "/api/v1/menu/prices",
        &body(&json!({ "stores": ["STORE-2"], "items": [{ "targetEntity": "product", "targetCode": "P1-2", "price": 9.99 }] })),
    );
    assert_eq!(a.status, 202);
    settle(&mut h, 60);
    let p12 = &products(&read(&mut h, "STORE-2"))["P1-2"];
    assert_eq!(p12["price"], 9.99);
    assert_eq!(p12["overrides"][0]["type"], "value");
    assert_eq!(p12["overrides"][0]["fields"][0], json!({ "field": "price", "value": 9.99, "base": 6.2 }));

    // A batch with an unknown target: partial, the failed row with a stable errorCode.
    let (a, b) = h.mutate(
        "POST",
        "/api/v1/menu/changes",
        &body(&json!({ "stores": ["STORE-1", "STORE-2"], "changes": [
            { "targetEntity": "product", "targetCode": "P0-0", "scope": "store", "set": { "name": "Renamed" } },
            { "targetEntity": "product", "targetCode": "NOPE", "scope": "store", "set": { "name": "Ghost" } }
        ] })),
    );
    assert_eq!(a.status, 202, "{b}");
    let hooks = settle(&mut h, 60);
    assert_eq!(hooks[0]["status"], "partial");
    let failed: Vec<&Value> = hooks[0]["results"].as_array().unwrap().iter().filter(|r| r["applied"] == false).collect();
    assert_eq!(failed.len(), 2, "the unknown target fails in both stores");
    assert_eq!(failed[0]["errorCode"], "UNKNOWN_TARGET");
    let id = b["data"]["changeId"].as_str().unwrap().to_string();
    let done = change(&mut h, &id);
    assert_eq!(done["status"], "Applied", "a global Applied with failed rows");
    assert!(done["results"].as_array().unwrap().iter().any(|r| r["applied"] == false && r["appliedAt"].is_null()));

    // Not shipped: available in brand scope; a category in store scope.
    let code = p00["code"].as_str().unwrap().to_string();
    let (a, b) =
        h.mutate("PATCH", &format!("/api/v1/menu/products/{code}"), &body(&json!({ "scope": "brand", "set": { "available": false } })));
    assert_eq!((a.status, suffix(&b).as_deref()), (422, Some("validation")), "{b}");
    let cat = r1["categories"][0]["code"].as_str().unwrap().to_string();
    let (a, b) = h.mutate(
        "PATCH",
        &format!("/api/v1/menu/categories/{cat}"),
        &body(&json!({ "scope": "store", "stores": ["STORE-1"], "set": { "name": "X" } })),
    );
    assert_eq!(a.status, 422, "{b}");
    // A brand-scope PATCH that is shipped: applied to the master catalog, seen in every store.
    let (a, b) =
        h.mutate("PATCH", &format!("/api/v1/menu/categories/{cat}"), &body(&json!({ "scope": "brand", "set": { "name": "Burgers" } })));
    assert_eq!(a.status, 202, "{b}");
    settle(&mut h, 60);
    assert_eq!(read(&mut h, "STORE-2")["categories"][0]["name"], "Burgers");

    // A store-local product: origin store, last in its category, only in its store.
    let (a, b) = h.mutate(
        "POST",
        "/api/v1/menu/stores/STORE-1/products",
        &body(&json!({ "code": "LOCAL-1", "name": "House special", "price": 4.5, "categoryCode": cat })),
    );
    assert_eq!(a.status, 202, "{b}");
    settle(&mut h, 60);
    let local_read = read(&mut h, "STORE-1");
    let last = local_read["categories"][0]["products"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["remoteCode"].as_str(), last["origin"].as_str(), last["maxPerOrder"].as_i64()),
        (Some("LOCAL-1"), Some("store"), Some(25))
    );
    assert_eq!(last["channels"], json!(["delivery"]));
    assert!(!products(&read(&mut h, "STORE-2")).contains_key("LOCAL-1"));

    // Preview changes nothing; an upload that drops most products is refused, then confirmed.
    let mut small = menu(1, 1, |_, _| 5.0);
    // Categories are matched by name (their remoteCodes are not preserved): the renamed one.
    small["categories"][0]["name"] = json!("Burgers");
    let before = read(&mut h, "STORE-2");
    let (a, b) = h.mutate("POST", "/api/v1/menu/preview", &body(&small));
    assert_eq!(a.status, 200, "{b}");
    assert_eq!(b["data"]["deactivated"]["products"], 5, "{}", b["data"]);
    assert_eq!(before, read(&mut h, "STORE-2"), "preview applies nothing");
    let (a, b) = h.mutate("PUT", "/api/v1/menu", &body(&small));
    assert_eq!(a.status, 409, "{b}");
    assert!(b["detail"].as_str().unwrap().contains("5 of 6"), "the counts in detail: {b}");
    assert_eq!(before, read(&mut h, "STORE-2"), "a refused upload changes nothing");
    let (a, b) = h.mutate("PUT", "/api/v1/menu?confirmLargeDeactivation=true", &body(&small));
    assert_eq!(a.status, 200, "{b}");
    assert_eq!(products(&read(&mut h, "STORE-2")).keys().collect::<Vec<_>>(), ["P0-0"]);
    let store1 = read(&mut h, "STORE-1");
    assert_eq!(store1["categories"][0]["code"].as_str(), Some(cat.as_str()), "the category kept its code");
    assert!(products(&store1).contains_key("LOCAL-1"), "a local product is not part of the master catalog");
    // An upload without that category: the local product stays the store's, but is not displayed.
    let (a, _) = h.mutate("PUT", "/api/v1/menu?confirmLargeDeactivation=true", &body(&menu(1, 1, |_, _| 5.0)));
    assert_eq!(a.status, 200);
    assert!(!products(&read(&mut h, "STORE-1")).contains_key("LOCAL-1"));
    assert_eq!(h.sb.menu_state().stores["STORE-1"].local[0].remote_code, "LOCAL-1");

    // Capabilities list what is shipped.
    let (a, b) = h.send("GET", "/api/v1/menu/capabilities", None, b"");
    assert_eq!(a.status, 200);
    let caps = b["data"]["capabilities"].as_array().unwrap();
    assert!(caps.iter().any(|c| c["entity"] == "product" && c["field"] == "available" && c["scope"] == "store"));
    assert!(!caps.iter().any(|c| c["field"] == "available" && c["scope"] == "brand"));
    assert!(caps
        .iter()
        .any(|c| c["entity"] == "modifierOption" && c["field"] == "price" && c["scope"] == "store" && c["pendingCustomerRollout"] == true));
}

#[test]
fn an_unchanged_upload_changes_nothing_and_keeps_every_code() {
    let mut h = Harness::default_account();
    let m = menu(3, 4, |c, p| (c + p) as f64);
    let first = h.sb.seed_menu(None, &body(&m)).unwrap();
    assert_eq!((first.deactivated, first.unchanged), (0, 0));
    let before = read(&mut h, "STORE-1");
    let (a, b) = h.mutate("PUT", "/api/v1/menu", &body(&m));
    assert_eq!(a.status, 200, "{b}");
    assert_eq!(
        (b["data"]["created"].as_u64(), b["data"]["updated"].as_u64(), b["data"]["deactivated"].as_u64()),
        (Some(0), Some(0), Some(0)),
        "{b}"
    );
    assert_eq!(read(&mut h, "STORE-1"), before, "the same read, every code kept");
}

#[test]
fn failures_for_a_store_give_partial_and_failed_webhooks() {
    let mut h = Harness::default_account();
    h.sb.seed_menu(None, &body(&menu(1, 2, |_, _| 3.0))).expect("a seed");
    h.sb.fail_menu_changes("STORE-2", Some(None)).unwrap();
    let items =
        json!({ "stores": ["STORE-1", "STORE-2"], "items": [{ "targetEntity": "product", "targetCode": "P0-0", "available": false }] });
    let (a, _) = h.mutate("PUT", "/api/v1/menu/availability", &body(&items));
    assert_eq!(a.status, 202);
    let hooks = settle(&mut h, 60);
    assert_eq!(hooks[0]["status"], "partial");
    assert!(hooks[0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["storeRemoteId"] == "STORE-2" && r["errorCode"] == "STORE_UNAVAILABLE"));
    h.sb.fail_menu_changes("STORE-1", Some(Some("CATALOG_LOCKED".into()))).unwrap();
    let (a, _) = h.mutate("PUT", "/api/v1/menu/availability", &body(&items));
    assert_eq!(a.status, 202);
    assert_eq!(settle(&mut h, 60)[0]["status"], "failed");
    assert!(h.sb.fail_menu_changes("STORE-1", Some(Some("not a code".into()))).is_err(), "error codes are UPPER_SNAKE_CASE");
    h.sb.fail_menu_changes("STORE-1", None).unwrap();
    h.sb.fail_menu_changes("STORE-2", None).unwrap();
    let (a, _) = h.mutate("PUT", "/api/v1/menu/availability", &body(&items));
    assert_eq!(a.status, 202);
    assert_eq!(settle(&mut h, 60)[0]["status"], "applied");
    // Unknown stores and images the sandbox is told are bad: answers, not rows.
    let (a, b) = h.mutate(
        "PUT",
        "/api/v1/menu/prices",
        &body(&json!({ "stores": ["STORE-9"], "items": [{ "targetEntity": "product", "targetCode": "P0-0", "price": 1 }] })),
    );
    assert_eq!((a.status, suffix(&b).as_deref()), (404, Some("not-found")));
    // A change is bounded in rows (targets × stores).
    let many: Vec<Value> =
        (0..50_001).map(|i| json!({ "targetEntity": "product", "targetCode": format!("P{i}"), "available": false })).collect();
    let (a, b) = h.mutate("PUT", "/api/v1/menu/availability", &body(&json!({ "stores": ["STORE-1", "STORE-2"], "items": many })));
    assert_eq!((a.status, suffix(&b).as_deref()), (422, Some("validation")), "{}", b["detail"]);
    let mut bad = menu(1, 1, |_, _| 1.0);
    bad["categories"][0]["products"][0]["image"] = json!("https://images.invalid/x.png");
    let (a, b) = h.mutate("PUT", "/api/v1/menu?confirmLargeDeactivation=true", &body(&bad));
    assert_eq!(a.status, 422, "{b}");
}

/// Generated catalogs: `diffMenu(read before, submission)` predicts what the read after PUT
/// /menu shows: created products are new in the read, deactivated ones gone, updated ones carry
/// the submitted price, unchanged ones keep their code.
#[test]
fn diff_menu_predicts_the_read_after_an_upload() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..40 {
        let mut h = Harness::new(None, Options { deactivation_threshold: 1.0, ..Options::default() });
        let (c1, p1) = (1 + (next() % 4) as usize, 1 + (next() % 5) as usize);
        let first = menu(c1, p1, |c, p| (c * 10 + p) as f64);
        h.sb.seed_menu(None, &body(&first)).unwrap();
        let before = read(&mut h, "STORE-1");
        let (c2, p2) = (1 + (next() % 4) as usize, 1 + (next() % 5) as usize);
        let bump = next() % 3;
        let second = menu(c2, p2, |c, p| (c * 10 + p) as f64 + if (c + p) as u64 % 3 == bump { 0.5 } else { 0.0 });
        let d = diff(&body(&before), &body(&second), &DiffOptions { threshold: 1.0, ..Default::default() });
        let (a, b) = h.mutate("PUT", "/api/v1/menu", &body(&second));
        assert_eq!(a.status, 200, "round {round}: {b}");
        let after = products(&read(&mut h, "STORE-1"));
        let old = products(&before);
        let mut predicted: std::collections::HashMap<Change, BTreeSet<String>> = std::collections::HashMap::new();
        for e in d.entries.iter().filter(|e| e.entity == Entity::Product) {
            predicted.entry(e.change).or_default().insert(e.remote_code.clone().unwrap_or_default());
        }
        let seen = |c: Change| predicted.get(&c).cloned().unwrap_or_default();
        let created: BTreeSet<String> = after.keys().filter(|k| !old.contains_key(*k)).cloned().collect();
        let gone: BTreeSet<String> = old.keys().filter(|k| !after.contains_key(*k)).cloned().collect();
        let updated: BTreeSet<String> =
            after.iter().filter(|(k, p)| old.get(*k).is_some_and(|o| o["price"] != p["price"])).map(|(k, _)| k.clone()).collect();
        assert_eq!(seen(Change::Created), created, "round {round}: created");
        assert_eq!(seen(Change::Deactivated), gone, "round {round}: deactivated");
        assert_eq!(seen(Change::Updated), updated, "round {round}: updated");
        for (k, p) in &after {
            if let Some(o) = old.get(k) {
                assert_eq!(o["code"], p["code"], "round {round}: {k} keeps its code");
            }
        }
        assert_eq!(
            d.summary.deactivated.products,
            b["data"]["deactivatedProducts"].as_u64().unwrap() as usize,
            "round {round}: the counts agree"
        );
        // Categories, matched by name on both sides.
        let names = |r: &Value| -> BTreeSet<String> {
            r["categories"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect()
        };
        let (was, now) = (names(&before), names(&read(&mut h, "STORE-1")));
        let cats = |c: Change| -> BTreeSet<String> {
            d.entries.iter().filter(|e| e.entity == Entity::Category && e.change == c).map(|e| e.name.clone().unwrap_or_default()).collect()
        };
        assert_eq!(cats(Change::Created), now.difference(&was).cloned().collect(), "round {round}: categories created");
        assert_eq!(cats(Change::Deactivated), was.difference(&now).cloned().collect(), "round {round}: categories deactivated");
    }
}

#[test]
fn overrides_schedules_channels_rollout_idempotency_and_state() {
    let mut h = Harness::default_account();
    h.sb.seed_menu(None, &body(&menu(1, 3, |_, p| 2.0 + p as f64))).unwrap();
    let read0 = read(&mut h, "STORE-1");
    let p1 = products(&read0)["P0-1"]["code"].as_str().unwrap().to_string();
    let size_l = read0["categories"][0]["products"][0]["modifierGroups"][0]["options"][1].clone();

    // A submission that fails the linter is a 422 and changes nothing.
    let mut broken = menu(1, 1, |_, _| 1.0);
    broken["categories"][0]["products"][0]["price"] = json!("free");
    let (a, _) = h.mutate("PUT", "/api/v1/menu?confirmLargeDeactivation=true", &body(&broken));
    assert_eq!(a.status, 422);
    assert_eq!(read(&mut h, "STORE-1"), read0);

    // The same Idempotency-Key and body: the same changeId, one change.
    let patch = body(&json!({ "stores": ["STORE-1"], "set": { "channels": [] } }));
    let key = h.fresh_key();
    let (a1, b1) = h.send("PATCH", &format!("/api/v1/menu/products/{p1}"), Some(&key), &patch);
    let (a2, b2) = h.send("PATCH", &format!("/api/v1/menu/products/{p1}"), Some(&key), &patch);
    assert_eq!((a1.status, a2.status, a2.replayed), (202, 202, true));
    assert_eq!(b1["data"]["changeId"], b2["data"]["changeId"]);
    assert_eq!(h.sb.menu_state().changes.len(), 1, "replayed, not executed again");

    // A schedule (outside its window now), channels emptied, a name override: precedence order.
    // T0 is a Monday 14:13 UTC: a Sunday-only window is closed, and opens next Sunday 09:00.
    let (a, b) = h.mutate(
        "PATCH",
        &format!("/api/v1/menu/products/{p1}"),
        &body(&json!({ "stores": ["STORE-1"], "set": { "schedule": { "days": ["SUN"], "startTime": "09:00", "endTime": "12:00" }, "name": "Brunch" } })),
    );
    assert_eq!(a.status, 202, "{b}");
    settle(&mut h, 60);
    let p = products(&read(&mut h, "STORE-1"))["P0-1"].clone();
    let types: Vec<&str> = p["overrides"].as_array().unwrap().iter().map(|o| o["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["scheduled", "channel", "value"], "{p}");
    assert_eq!(p["orderable"], false, "element 0 (the closed window) drives orderable");
    assert_eq!(
        p["resumesAt"],
        sandbox::iso(sandbox::T0 + (6 * 86_400 - (14 * 3600 + 13 * 60 + 20) + 9 * 3600) * 1000),
        "the window opens next Sunday 09:00 UTC"
    );
    assert_eq!(p["channels"], json!([]));
    assert_eq!(p["overrides"][1]["fields"][0], json!({ "field": "channels", "value": [], "base": ["delivery", "pickup"] }));
    assert_eq!(p["name"], "Brunch");
    assert_eq!(p["overrides"][2]["fields"][0], json!({ "field": "name", "value": "Brunch", "base": "Product 0-1" }));

    // Option price in store scope: accepted and persisted, not reflected (pendingCustomerRollout).
    let (a, b) = h.mutate(
        "PATCH",
        &format!("/api/v1/menu/modifier-options/{}", size_l["code"].as_str().unwrap()),
        &body(&json!({ "stores": ["STORE-1"], "set": { "price": 3.25 } })),
    );
    assert_eq!(a.status, 202, "{b}");
    settle(&mut h, 60);
    let after = read(&mut h, "STORE-1");
    assert_eq!(after["categories"][0]["products"][0]["modifierGroups"][0]["options"][1]["price"], size_l["price"]);
    let pending = &h.sb.menu_state().stores["STORE-1"].overrides[size_l["code"].as_str().unwrap()].pending;
    assert_eq!(pending.get("price"), Some(&json!(3.25)));

    // A brand image that the sandbox is told is bad: 422 before emission, no change made.
    let before = h.sb.menu_state().changes.len();
    let (a, b) = h.mutate(
        "PATCH",
        &format!("/api/v1/menu/products/{p1}"),
        &body(&json!({ "scope": "brand", "set": { "image": "https://img.invalid/x.png" } })),
    );
    assert_eq!(a.status, 422, "{b}");
    assert_eq!(h.sb.menu_state().changes.len(), before);

    // The menu survives export and import.
    let copy = poscheck::service::Service::import_state(&h.sb.export_state()).unwrap();
    assert_eq!(copy.menu_state(), h.sb.menu_state());
}

/// Where diffMenu and the sandbox part: two groups of one product with one name. The diff cannot
/// tell them apart (the read carries no group remoteCode, stated) and reports them "ambiguous",
/// never guessing; the sandbox, which is the service here, keeps the remoteCode each group was
/// last submitted with and matches by it. Neither is wrong: the diff declines to predict, and the
/// sandbox's choice keeps an unchanged upload unchanged.
#[test]
fn two_groups_with_one_name_are_ambiguous_to_the_diff_and_kept_by_the_sandbox() {
    let mut h = Harness::default_account();
    let mut m = menu(1, 1, |_, _| 4.0);
    let second = json!({ "remoteCode": "SIZE-2", "name": "Size", "min": 0, "max": 1, "type": "radio", "options": [
        { "remoteCode": "B-1", "name": "Big", "price": 1, "isDefault": false, "maxPerOrder": 1 }
    ] });
    m["categories"][0]["products"][0]["modifierGroups"].as_array_mut().unwrap().push(second);
    assert!(lint(&body(&m), &LintOptions::default()).ok);
    h.sb.seed_menu(None, &body(&m)).unwrap();
    let before = read(&mut h, "STORE-1");
    let d = diff(&body(&before), &body(&m), &DiffOptions::default());
    assert!(d.entries.iter().any(|e| e.change == Change::Ambiguous && e.entity == Entity::ModifierGroup), "the diff reports the ambiguity");
    let (a, b) = h.mutate("PUT", "/api/v1/menu", &body(&m));
    assert_eq!(a.status, 200, "{b}");
    assert_eq!(read(&mut h, "STORE-1"), before, "the sandbox keeps both groups and their codes");
}

#[test]
fn local_products_take_the_stated_taxes_only() {
    let mut h = Harness::default_account();
    h.sb.seed_menu(None, &body(&menu(1, 1, |_, _| 4.0))).unwrap();
    let cat = read(&mut h, "STORE-1")["categories"][0]["code"].as_str().unwrap().to_string();
    for (tax, status) in [(0.15, 202), (0.2, 422)] {
        let (a, b) = h.mutate(
            "POST",
            "/api/v1/menu/stores/STORE-1/products",
            &body(&json!({ "code": format!("L-{tax}"), "name": "Local", "price": 1, "categoryCode": cat, "tax": tax })),
        );
        assert_eq!(a.status, status, "tax {tax}: {b}");
    }
    let (a, b) = h.mutate(
        "POST",
        "/api/v1/menu/stores/STORE-9/products",
        &body(&json!({ "code": "L", "name": "Local", "price": 1, "categoryCode": cat })),
    );
    assert_eq!((a.status, suffix(&b).as_deref()), (404, Some("not-found")), "another client's or no store");
}

fn after(h: &mut Harness, secs: i64) -> Vec<sandbox::Received> {
    h.advance(secs);
    h.pump()
}

/// The completion webhook is a delivery like the others: a non-2xx answer is retried with the same
/// X-Service-Delivery-Id and body; any 2xx settles it (the answer expected is not shown: assumed).
#[test]
fn a_failed_completion_webhook_is_retried_with_the_same_delivery_id() {
    use sandbox::Reply;
    let mut h = Harness::default_account();
    h.sb.seed_menu(None, &body(&menu(1, 1, |_, _| 1.0))).unwrap();
    let items = json!({ "stores": ["STORE-1"], "items": [{ "targetEntity": "product", "targetCode": "P0-0", "available": false }] });
    h.pos.script.extend([Reply::Status(500), Reply::Status(204)]);
    let (a, _) = h.mutate("PUT", "/api/v1/menu/availability", &body(&items));
    assert_eq!(a.status, 202);
    let first = after(&mut h, 60);
    assert_eq!(first.len(), 1);
    let settled = first[0].settled.clone().unwrap();
    assert!(!settled.ok && settled.retry_at_ms.is_some(), "a 500 is a failed attempt, retried: {settled:?}");
    let retry_in = (settled.retry_at_ms.unwrap() - h.now) / 1000;
    let again = after(&mut h, retry_in);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].attempt.delivery_id, first[0].attempt.delivery_id, "the same delivery id");
    assert_eq!(again[0].attempt.body, first[0].attempt.body, "the same body");
    assert!(again[0].settled.as_ref().unwrap().ok, "a 204 settles it");
    assert!(after(&mut h, 600).is_empty(), "nothing more is sent");
}
