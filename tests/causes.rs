//! The catalogue of causes' probe variants, written for the faulty receivers' test
//! (tests/js/faulty-receiver.test.mjs): every diagnostic delivery of the plan, made from genuine
//! deliveries at a fixed time with a seeded id generator, in tests/fixtures/causes/variants.json.
//!
//! The file is compared with what the core makes now: a change of a variant fails here until the
//! file is written again (`POSCHECK_BLESS=1 cargo test --test causes`), so the JS test always
//! reads the variants this core sends.

#![cfg(not(target_arch = "wasm32"))]

use poscheck::service::Ids;
use poscheck::signature::{plan, probe_variant, sign, Delivery, Headers};
use serde_json::{json, Value};

/// The faulty receivers' pinned clock (`FAULTY_RECEIVER_NOW`), unix seconds.
const NOW: u64 = 1_795_903_332;
const SECRET: &str = "sbx_secret_Ab9Ab9Ab9Ab9Ab9Ab9Ab9Ab9Ab9Ab9Zq";
/// A creation body as the sandbox writes it.
const CREATION: &str = r#"{"orderKey":"ord_exnivjLxN4uMWTaO","displayCode":"S-0001","storeRemoteId":"STORE-1","currency":"USD","createdAt":"2026-11-28T22:02:12Z","expiresAt":"2026-11-28T22:07:12Z","fulfillment":{"type":"delivery","isExpress":false,"prepareBy":"2026-11-28T22:22:12Z","driverPickupAt":"2026-11-28T22:27:12Z"},"customer":null,"payment":{"methods":[{"type":"card","amount":10.5}],"amountToCollect":0.0,"changeFor":null},"summary":{"subtotal":10.5,"taxes":0.0,"discounts":0.0,"additionalCharges":0.0,"grandTotal":10.5},"charges":[],"discounts":[],"items":[{"code":"prd_VTK0jL","remoteCode":"BURGER-1","name":"burger 1","quantity":1,"unitPrice":10.5,"tax":0.0,"lineTotal":10.5,"note":null,"modifierGroups":[]}],"customerNote":null,"invoice":null}"#;

fn path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/causes/variants.json")
}

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = c.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            s.push(if i <= c.len() { A[((n >> (18 - 6 * i)) & 63) as usize] as char } else { '=' });
        }
    }
    s
}

fn headers_json(h: &Headers) -> Value {
    Value::Array(h.pairs().iter().map(|(k, v)| json!([k, v])).collect())
}

/// What the core makes now.
fn made() -> Value {
    let pretty = serde_json::to_vec_pretty(&serde_json::from_str::<Value>(CREATION).unwrap()).unwrap();
    let mut genuine = Vec::new();
    let mut variants = Vec::new();
    let mut ids = Ids::new(40);
    for (name, body) in [("creation", CREATION.as_bytes().to_vec()), ("pretty", pretty)] {
        let g = Delivery {
            method: "POST".into(),
            url: "/v1/order/STORE-1".into(),
            headers: Headers::from_pairs([
                ("Content-Type".to_string(), "application/json".to_string()),
                ("X-Service-Timestamp".to_string(), NOW.to_string()),
                ("X-Service-Signature-256".to_string(), sign(SECRET.as_bytes(), NOW, &body).unwrap()),
                ("X-Service-Delivery-Id".to_string(), ids.uuid_v4()),
                ("X-Service-Event-Type".to_string(), "order.created".to_string()),
            ]),
            body,
        };
        genuine.push(
            json!({ "name": name, "method": g.method, "path": g.url, "headers": headers_json(&g.headers), "bodyBase64": b64(&g.body) }),
        );
        for a in plan() {
            let Some(v) = probe_variant(a, &g, SECRET.as_bytes(), NOW, &mut || ids.uuid_v4()).unwrap() else { continue };
            variants.push(json!({
                "genuine": name,
                "cause": a.cause.id,
                "step": a.step,
                "offsetSeconds": a.offset_seconds(),
                "method": v.method,
                "path": v.url,
                "headers": headers_json(&v.headers),
                "bodyBase64": b64(&v.body),
            }));
        }
    }
    json!({
        "comment": "Written by tests/causes.rs (POSCHECK_BLESS=1 cargo test --test causes); read by tests/js/faulty-receiver.test.mjs.",
        "now": NOW,
        "secret": SECRET,
        "genuine": genuine,
        "variants": variants,
    })
}

#[test]
fn the_variants_file_is_what_the_core_makes() {
    let now = serde_json::to_string_pretty(&made()).unwrap() + "\n";
    if std::env::var_os("POSCHECK_BLESS").is_some() {
        std::fs::create_dir_all(path().parent().unwrap()).unwrap();
        std::fs::write(path(), &now).unwrap();
    }
    let file = std::fs::read_to_string(path()).unwrap_or_default();
    assert!(file == now, "{} is stale: write it again with POSCHECK_BLESS=1 cargo test --test causes", path().display());
    // Every probed cause has a variant in it, and the plan is within its bound.
    let v: Value = serde_json::from_str(&file).unwrap();
    let causes: std::collections::BTreeSet<&str> = v["variants"].as_array().unwrap().iter().map(|x| x["cause"].as_str().unwrap()).collect();
    let planned: std::collections::BTreeSet<&str> = plan().iter().map(|a| a.cause.id).collect();
    assert_eq!(causes, planned);
    assert!(plan().len() <= poscheck::signature::MAX_DIAGNOSTIC_DELIVERIES);
}
