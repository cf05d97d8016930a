//! The menu-diff manifest (`tests/fixtures/diff/cases.json`), checked the same way natively
//! (tests/menu_diff.rs) and as wasm (tests/wasm.rs): the result is compared through its JSON
//! form, which is what the JS face returns. See tests/fixtures/diff/README.md for the format.
#![allow(dead_code)]

use poscheck::menu::diff::{diff, DiffOptions};
use serde_json::Value;

fn same_number(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        _ => a == b,
    }
}

/// `expected` ⊆ `actual` for objects (every listed key equal), numbers by value, the rest exactly.
fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e.iter().all(|(k, v)| a.get(k).is_some_and(|w| matches(v, w))),
        (Value::Number(_), _) => same_number(expected, actual),
        _ => expected == actual,
    }
}

fn entry_key(e: &Value) -> String {
    format!("{} {} {} {}", e["change"], e["entity"], e["side"], e["path"])
}

fn diag_rows(result: &Value) -> Vec<(String, Value)> {
    let mut rows = Vec::new();
    for side in ["current", "next"] {
        for d in result[side]["diagnostics"].as_array().unwrap() {
            if d["ruleId"].as_str().unwrap().starts_with("diff/") {
                rows.push((format!("{side} {} {} {}", d["ruleId"], d["severity"], d["path"]), d.clone()));
            }
        }
    }
    rows
}

/// Runs every case; returns how many. `fixture` reads a path below tests/fixtures.
pub fn check(fixture: impl Fn(&str) -> Vec<u8>) -> usize {
    let manifest: Value = serde_json::from_slice(&fixture("diff/cases.json")).expect("cases.json parses");
    let cases = manifest.as_array().expect("an array");
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut options = DiffOptions::default();
        if let Some(t) = case["options"]["threshold"].as_f64() {
            options.threshold = t;
        }
        let result = diff(&fixture(case["current"].as_str().unwrap()), &fixture(case["next"].as_str().unwrap()), &options);
        let json = serde_json::to_value(&result).unwrap();
        let expect = &case["expect"];
        assert_eq!(json["compared"], expect["compared"], "{name}: compared");
        if let Some(summary) = expect.get("summary") {
            assert!(matches(summary, &json["summary"]), "{name}: summary\n  expected ⊆ {summary}\n  actual     {}", json["summary"]);
        }
        if let Some(entries) = expect["entries"].as_array() {
            let actual = json["entries"].as_array().unwrap();
            let mut a: Vec<String> = actual.iter().map(entry_key).collect();
            let mut e: Vec<String> = entries.iter().map(entry_key).collect();
            a.sort();
            e.sort();
            assert_eq!(a, e, "{name}: entries");
            for exp in entries {
                let act = actual.iter().find(|x| entry_key(x) == entry_key(exp)).unwrap();
                let mut shallow = exp.clone();
                let changes = shallow.as_object_mut().unwrap().remove("changes");
                assert!(matches(&shallow, act), "{name}: entry\n  expected ⊆ {exp}\n  actual     {act}");
                let got = act["changes"].as_array().map_or(0, Vec::len);
                let want = changes.as_ref().and_then(Value::as_array).map_or(0, Vec::len);
                assert_eq!(got, want, "{name}: changes of {act}");
                for c in changes.as_ref().and_then(Value::as_array).into_iter().flatten() {
                    let found = act["changes"].as_array().unwrap().iter().any(|x| {
                        x["field"] == c["field"]
                            && same_number(&c["old"], &x["old"])
                            && same_number(&c["new"], &x["new"])
                            && c.get("line").is_none_or(|l| *l == x["line"])
                            && c.get("column").is_none_or(|l| *l == x["column"])
                    });
                    assert!(found, "{name}: change {c} not in {}", act["changes"]);
                }
            }
        }
        if let Some(diags) = expect["diagnostics"].as_array() {
            let actual = diag_rows(&json);
            let mut a: Vec<&String> = actual.iter().map(|r| &r.0).collect();
            let expected: Vec<(String, &Value)> = diags
                .iter()
                .map(|d| (format!("{} {} {} {}", d["side"].as_str().unwrap(), d["ruleId"], d["severity"], d["path"]), d))
                .collect();
            let mut e: Vec<&String> = expected.iter().map(|r| &r.0).collect();
            a.sort();
            e.sort();
            assert_eq!(a, e, "{name}: the diff's diagnostics");
            for (key, d) in &expected {
                if d.get("line").is_none() {
                    continue;
                }
                let ok = actual.iter().any(|(k, x)| k == key && x["line"] == d["line"] && x["column"] == d["column"]);
                assert!(
                    ok,
                    "{name}: {key} at {}:{} not in {:?}",
                    d["line"],
                    d["column"],
                    actual.iter().map(|r| (&r.0, &r.1["line"], &r.1["column"])).collect::<Vec<_>>()
                );
            }
        }
    }
    cases.len()
}
