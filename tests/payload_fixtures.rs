//! Runs the shared payload, request and problem manifests (tests/fixtures/*/cases.json) against
//! the core. The manifests are exact: every diagnostic a case produces is listed, and nothing
//! listed is missing. Other rings (wasm, JS, page) read the same manifests.

use poscheck::http::Headers;
use poscheck::json::Limits;
use poscheck::payload::{classify_problem, validate_payload, validate_request, PayloadKind, PayloadOptions, ProblemInput, Request, RULES};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn manifest(name: &str) -> Vec<Value> {
    let path = fixtures().join(name).join("cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

fn s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Compares two multisets of rendered diagnostics and explains the difference.
fn same(case: &str, mut expected: Vec<String>, mut actual: Vec<String>) -> Result<(), String> {
    expected.sort();
    actual.sort();
    if expected == actual {
        return Ok(());
    }
    let missing: Vec<_> = expected.iter().filter(|e| !actual.contains(e)).collect();
    let extra: Vec<_> = actual.iter().filter(|a| !expected.contains(a)).collect();
    Err(format!("{case}\n  missing: {missing:?}\n  unexpected: {extra:?}"))
}

fn expected_rules(case: &Value, key: &str) -> Vec<String> {
    case[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let mut out = format!("{} {} @{}", s(&e["ruleId"]), s(&e["severity"]), s(&e["path"]));
            if let (Some(l), Some(c)) = (e["line"].as_u64(), e["column"].as_u64()) {
                out.push_str(&format!(" {l}:{c}"));
            }
            out
        })
        .collect()
}

#[test]
fn payload_manifest() {
    let cases = manifest("payload");
    assert!(cases.len() >= 100, "payload manifest holds {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let file = s(&case["file"]);
        let input = std::fs::read(fixtures().join("payload").join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let kind = case["kind"].as_str().map(|k| PayloadKind::from_id(k).unwrap_or_else(|| panic!("{file}: unknown kind {k}")));
        let mut limits = Limits::default();
        if let Some(n) = case["limits"]["maxBytes"].as_u64() {
            limits.max_bytes = n as usize;
        }
        if let Some(n) = case["limits"]["maxDepth"].as_u64() {
            limits.max_depth = n as usize;
        }
        let options = PayloadOptions { kind, path: case["path"].as_str().map(str::to_string), limits };
        let report = validate_payload(&input, &options);
        let name = format!("{file} (kind {:?}, path {:?})", case["kind"], case["path"]);
        if report.kind.as_deref() != case["expectKind"].as_str() {
            failures.push(format!("{name}\n  kind {:?}, expected {:?}", report.kind, case["expectKind"]));
        }
        let actual = report
            .diagnostics
            .iter()
            .map(|d| format!("{} {} @{} {}:{}", d.rule_id, d.severity.as_str(), d.path, d.line, d.column))
            .collect();
        if let Err(e) = same(&name, expected_rules(case, "expect"), actual) {
            failures.push(e);
        }
        // The report is consistent with itself.
        assert_eq!(report.ok, report.error_count == 0, "{name}");
    }
    assert!(failures.is_empty(), "{} of {} payload cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn valid_payload_examples_pass_and_are_detected() {
    let mut kinds = BTreeSet::new();
    for case in manifest("payload") {
        let file = s(&case["file"]);
        let only_infos = case["expect"].as_array().unwrap().iter().all(|e| e["severity"] == "info");
        if !file.ends_with(".valid.json") || !case["path"].is_null() || !only_infos {
            continue;
        }
        let input = std::fs::read(fixtures().join("payload").join(&file)).unwrap();
        let kind = case["kind"].as_str().and_then(PayloadKind::from_id);
        let report = validate_payload(&input, &PayloadOptions { kind, ..Default::default() });
        assert!(report.ok && report.error_count + report.warning_count == 0, "{file}: {:#?}", report.diagnostics);
        assert_eq!(report.kind.as_deref(), case["expectKind"].as_str(), "{file}");
        if case["kind"].is_null() {
            kinds.insert(report.kind.clone().unwrap());
        }
    }
    let all: BTreeSet<String> = PayloadKind::ALL.iter().map(|k| k.id().to_string()).collect();
    assert_eq!(kinds, all, "every kind has a valid example detected from its shape");
}

fn headers(v: &Value) -> Headers {
    let mut h = Headers::new();
    for (name, value) in v.as_object().unwrap() {
        match value {
            Value::Array(values) => values.iter().for_each(|x| h.push(name.clone(), s(x))),
            other => h.push(name.clone(), s(other)),
        }
    }
    h
}

fn body(case: &Value) -> Option<Vec<u8>> {
    if let Some(text) = case["bodyText"].as_str() {
        return Some(text.as_bytes().to_vec());
    }
    match &case["body"] {
        Value::Null => None,
        b => Some(serde_json::to_vec(b).unwrap()),
    }
}

#[test]
fn requests_manifest() {
    let cases = manifest("requests");
    let mut failures = Vec::new();
    let mut endpoints_with_a_valid_case = BTreeSet::new();
    for case in &cases {
        let name = s(&case["name"]);
        let r = &case["request"];
        let request = Request {
            method: s(&r["method"]),
            path: s(&r["path"]),
            headers: headers(&r["headers"]),
            body: body(r),
            now: r["now"].as_i64().unwrap(),
        };
        let p = validate_request(&request);
        let expect_status = case["expectStatus"].as_u64().unwrap() as u16;
        if p.status != expect_status {
            failures.push(format!(
                "{name}\n  status {}, expected {expect_status}: {:?}",
                p.status,
                p.report.diagnostics.iter().map(|d| d.rule_id).collect::<Vec<_>>()
            ));
        }
        match (&p.problem, case["expectProblemTypeSuffix"].as_str()) {
            (None, None) if p.status < 400 => {}
            (Some(problem), Some(suffix)) => {
                let t = problem["type"].as_str().unwrap();
                if !t.ends_with(&format!("/{suffix}")) {
                    failures.push(format!("{name}\n  problem type {t}, expected suffix {suffix}"));
                }
                if suffix == "validation" {
                    // meta.errors = the report's errors, without the 409-class ones.
                    let mut want = serde_json::Map::new();
                    for d in p
                        .report
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity.as_str() == "error" && d.rule_id != "status-update/preparing-conflict")
                    {
                        want.entry(d.path.clone())
                            .or_insert_with(|| Value::Array(Vec::new()))
                            .as_array_mut()
                            .unwrap()
                            .push(Value::String(d.message.clone()));
                    }
                    if problem["meta"]["errors"] != Value::Object(want) {
                        failures.push(format!("{name}\n  meta.errors {} differs from the report's 422 errors", problem["meta"]["errors"]));
                    }
                }
                if problem["status"].as_u64() != Some(u64::from(p.status)) {
                    failures.push(format!("{name}\n  problem status differs"));
                }
            }
            (Some(problem), None) if p.status >= 400 => {
                // "Known type suffixes" list none for 400 and 401: the type is not predicted.
                if !problem["type"].is_null() || p.basis.problem_type.as_ref().map(|g| g.basis.as_str()) != Some("assumed") {
                    failures
                        .push(format!("{name}\n  problem type {}, expected null with an assumed basis (no suffix shown)", problem["type"]));
                }
            }
            (problem, suffix) => failures.push(format!("{name}\n  problem {problem:?}, expected suffix {suffix:?}")),
        }
        if let Some(b) = case["expectBasis"].as_str() {
            if p.basis.status.basis.as_str() != b {
                failures.push(format!("{name}\n  basis {}, expected {b} ({})", p.basis.status.basis.as_str(), p.basis.status.source));
            }
        }
        // An assumed status never comes from an error diagnostic alone (errors rest on stated or derived rules).
        if p.basis.status.basis.as_str() == "assumed"
            && p.status >= 400
            && p.report.error_count > 0
            && p.report.diagnostics.iter().any(|d| {
                d.severity.as_str() == "error"
                    && poscheck::rules::grounds(d.rule_id).0.as_str() == "assumed"
                    && !poscheck::rules::is_toolkit_bound(d.rule_id)
            })
        {
            failures.push(format!("{name}\n  an error rests on an assumption"));
        }
        let actual = p.report.diagnostics.iter().map(|d| format!("{} {} @{}", d.rule_id, d.severity.as_str(), d.path)).collect();
        if let Err(e) = same(&name, expected_rules(case, "expect"), actual) {
            failures.push(e);
        }
        // Valid: accepted with nothing to fix (an info such as remote-code/not-preserved is fine).
        if p.status < 400 && p.report.error_count + p.report.warning_count == 0 {
            if let Some(e) = &p.endpoint {
                endpoints_with_a_valid_case.insert(e.clone());
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} request cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    let all: BTreeSet<String> = poscheck::payload::ENDPOINTS.iter().map(|e| e.id()).collect();
    assert_eq!(endpoints_with_a_valid_case, all, "every endpoint has a valid case");
}

#[test]
fn problems_manifest() {
    let cases = manifest("problems");
    let mut failures = Vec::new();
    for case in &cases {
        let name = s(&case["name"]);
        let input = ProblemInput {
            status: case["status"].as_u64().unwrap() as u16,
            headers: headers(&case["headers"]),
            body: body(case).unwrap_or_default(),
            now: case["now"].as_i64(),
        };
        let c = classify_problem(&input);
        let got = serde_json::to_value(&c).unwrap();
        for (key, want) in case["expect"].as_object().unwrap() {
            if &got[key] != want {
                failures.push(format!("{name}\n  {key} = {}, expected {want}", got[key]));
            }
        }
        assert!(!c.advice.is_empty(), "{name}");
        let actual = c.report.diagnostics.iter().map(|d| format!("{} {} @{}", d.rule_id, d.severity.as_str(), d.path)).collect();
        if let Err(e) = same(&name, expected_rules(case, "expectRules"), actual) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{} of {} problem cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn every_rule_has_a_fixture_that_breaks_it() {
    let mut covered = BTreeSet::new();
    for name in ["payload", "requests"] {
        for case in manifest(name) {
            for e in case["expect"].as_array().unwrap() {
                covered.insert(s(&e["ruleId"]));
            }
        }
    }
    for case in manifest("problems") {
        for e in case["expectRules"].as_array().unwrap() {
            covered.insert(s(&e["ruleId"]));
        }
    }
    // The budget rules need thousands of diagnostics: tests/hostile.rs exercises them.
    for id in ["payload/too-many-diagnostics", "request/too-many-diagnostics", "problem/too-many-diagnostics"] {
        covered.insert(id.to_string());
    }
    let missing: Vec<&str> = RULES.iter().map(|r| r.id).filter(|id| !covered.contains(*id)).collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
    // Request bodies of PUT /menu and preview are checked by the menu linter: its rules may appear too.
    // The order detail is checked by the order checker: its rules may appear too (one checker).
    let known: BTreeSet<&str> = poscheck::payload::all_rules().iter().map(|r| r.id).collect();
    let stray: Vec<&String> = covered.iter().filter(|id| !known.contains(id.as_str())).collect();
    assert!(stray.is_empty(), "manifests name rules that RULES does not list: {stray:?}");
}
