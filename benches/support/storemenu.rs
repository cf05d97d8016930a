//! Turns a generated full submission (`menugen.rs`) into the pair the menu diff compares: the
//! store menu read the service would return for it (the "Store menu" field table, with
//! service codes, re-hosted image URLs, `origin: brand`), and a next submission with known
//! changes. Deterministic; for the diff's linear-time test and its benchmark.

#![allow(dead_code)]

use serde_json::{json, Map, Value};

/// The store menu read (`data` of GET /api/v1/menu/stores/{storeRemoteId}) of `submission`.
pub fn store_menu(submission: &str) -> String {
    let sub: Value = serde_json::from_str(submission).expect("a generated submission");
    let mut categories = Vec::new();
    for (ci, c) in sub["categories"].as_array().unwrap().iter().enumerate() {
        let code = format!("cat_{ci}");
        let mut products = Vec::new();
        for (pi, p) in c["products"].as_array().unwrap().iter().enumerate() {
            let rc = p["remoteCode"].as_str().unwrap();
            let mut groups = Vec::new();
            for (gi, g) in p["modifierGroups"].as_array().map(Vec::as_slice).unwrap_or(&[]).iter().enumerate() {
                let options: Vec<Value> = g["options"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .enumerate()
                    .map(|(oi, o)| {
                        json!({
                            "code": format!("opt_{ci}_{pi}_{gi}_{oi}"), "name": o["name"], "price": o["price"],
                            "isDefault": o.get("isDefault").cloned().unwrap_or(Value::Bool(false)), "orderable": true,
                            "remoteCode": o["remoteCode"], "maxPerOrder": o.get("maxPerOrder").cloned().unwrap_or(Value::Null),
                            "resumesAt": null
                        })
                    })
                    .collect();
                groups.push(json!({
                    "code": format!("grp_{ci}_{pi}_{gi}"), "name": g["name"], "min": g["min"], "max": g["max"],
                    "type": g["type"], "position": gi, "options": options
                }));
            }
            products.push(json!({
                "code": format!("prd_{rc}"), "categoryCode": code, "name": p["name"], "price": p["price"], "tax": p["tax"],
                "position": pi, "maxPerOrder": p["maxPerOrder"], "origin": "brand", "orderable": true,
                "channels": ["delivery", "pickup"], "remoteCode": rc, "description": p.get("description").cloned().unwrap_or(Value::Null),
                "image": format!("https://images.example.test/prd_{rc}.webp"), "resumesAt": null, "modifierGroups": groups
            }));
        }
        categories.push(json!({ "code": code, "name": c["name"], "position": ci, "products": products }));
    }
    serde_json::to_string_pretty(&json!({ "categories": categories })).unwrap()
}

/// What [`changed`] did, to check the diff's counts against.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Changes {
    pub products: usize,
    pub repriced: usize,
    pub dropped: usize,
    pub added: usize,
}

/// `submission` with every `every`-th product repriced, every `every`-th (offset by 1) dropped
/// and one new product per `every` products added at the end of its category.
pub fn changed(submission: &str, every: usize) -> (String, Changes) {
    let mut sub: Value = serde_json::from_str(submission).expect("a generated submission");
    let mut ch = Changes::default();
    let mut n = 0usize;
    for c in sub["categories"].as_array_mut().unwrap() {
        let products = c["products"].as_array_mut().unwrap();
        let mut kept = Vec::with_capacity(products.len());
        let mut added = Vec::new();
        for mut p in products.drain(..) {
            ch.products += 1;
            n += 1;
            if n % every == 0 {
                let price = p["price"].as_f64().unwrap();
                p["price"] = json!(price + 1.0);
                ch.repriced += 1;
            }
            if n % every == 1 {
                ch.dropped += 1;
                continue;
            }
            if n % every == 2 {
                let mut q: Map<String, Value> = p.as_object().unwrap().clone();
                q.insert("remoteCode".into(), json!(format!("NEW-{n:06}")));
                q.remove("modifierGroups");
                added.push(Value::Object(q));
                ch.added += 1;
            }
            kept.push(p);
        }
        kept.extend(added);
        *products = kept;
    }
    (serde_json::to_string_pretty(&sub).unwrap(), ch)
}
