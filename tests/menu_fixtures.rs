//! The shared menu fixtures (`tests/fixtures/menu/`), read through the manifest `cases.json` that
//! every test ring uses (native here; wasm in Node and Chromium, the JS package and the page
//! later).
//!
//! Manifest semantics: for each `file`, `expect` lists EVERY diagnostic `menu::lint` reports with
//! default options (order does not matter): `ruleId`, `severity`, `path`, `line` (1-based) and
//! `column` (1-based, in UTF-16 code units).

use poscheck::menu::{lint, LintOptions, RULES};
use poscheck::{Report, Severity};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/menu")
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join("cases.json")).expect("tests/fixtures/menu/cases.json");
    serde_json::from_str::<Value>(&text).expect("the manifest is JSON").as_array().expect("the manifest is an array").clone()
}

fn lint_file(file: &str) -> Report {
    let bytes = std::fs::read(dir().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    lint(&bytes, &LintOptions::default())
}

type Row = (String, String, String, u64, u64);

fn actual_rows(report: &Report) -> Vec<Row> {
    let mut rows: Vec<Row> = report
        .diagnostics
        .iter()
        .map(|d| (d.rule_id.to_string(), d.severity.as_str().to_string(), d.path.clone(), u64::from(d.line), u64::from(d.column)))
        .collect();
    rows.sort();
    rows
}

fn expected_rows(case: &Value) -> Vec<Row> {
    let s = |e: &Value, k: &str| e[k].as_str().unwrap_or_else(|| panic!("{k} in {e}")).to_string();
    let n = |e: &Value, k: &str| e[k].as_u64().unwrap_or_else(|| panic!("{k} in {e}"));
    let mut rows: Vec<Row> = case["expect"]
        .as_array()
        .expect("expect")
        .iter()
        .map(|e| (s(e, "ruleId"), s(e, "severity"), s(e, "path"), n(e, "line"), n(e, "column")))
        .collect();
    rows.sort();
    rows
}

#[test]
fn every_fixture_gives_exactly_its_expected_diagnostics() {
    let cases = manifest();
    assert!(cases.len() >= 30, "the manifest lists every fixture");
    let mut failures = Vec::new();
    for case in &cases {
        let file = case["file"].as_str().expect("file");
        let report = lint_file(file);
        let (actual, expected) = (actual_rows(&report), expected_rows(case));
        if actual != expected {
            failures.push(format!("{file}:\n  expected {expected:?}\n  actual   {actual:?}"));
        }
        // The severities in the manifest are those of the rules.
        for d in &report.diagnostics {
            let rule = RULES.iter().find(|r| r.id == d.rule_id).unwrap_or_else(|| panic!("{} is not in menu::RULES", d.rule_id));
            assert_eq!(rule.severity, d.severity, "{file}: {}", d.rule_id);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fixture_file_is_in_the_manifest_and_every_rule_has_a_fixture() {
    let cases = manifest();
    let listed: BTreeSet<String> = cases.iter().map(|c| c["file"].as_str().unwrap().to_string()).collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".json") && f != "cases.json")
        .collect();
    assert_eq!(listed, on_disk);
    let fired: BTreeSet<&str> = cases.iter().flat_map(|c| c["expect"].as_array().unwrap()).map(|e| e["ruleId"].as_str().unwrap()).collect();
    // These need options other than the defaults: see the unit tests of menu.
    let need_options = ["json/too-large", "menu/too-many-diagnostics"];
    let missing: Vec<&str> = RULES.iter().map(|r| r.id).filter(|id| !fired.contains(id) && !need_options.contains(id)).collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
    // A fixture named after its rule breaks that rule and only that one.
    for case in &cases {
        let file = case["file"].as_str().unwrap();
        let stem = file.trim_end_matches(".json");
        if let Some(rule) = RULES.iter().find(|r| r.id.replacen('/', "-", 1) == stem) {
            let ids: BTreeSet<&str> = case["expect"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["severity"] != "info")
                .map(|e| e["ruleId"].as_str().unwrap())
                .collect();
            if rule.severity != Severity::Info {
                assert_eq!(ids, BTreeSet::from([rule.id]), "{file}");
            }
        }
    }
}

#[test]
fn the_valid_menu_has_no_error_and_no_warning() {
    let report = lint_file("valid.json");
    let findings: Vec<_> = report.diagnostics.iter().filter(|d| d.severity != Severity::Info).collect();
    assert!(findings.is_empty(), "{findings:#?}");
    assert!(report.ok);
    assert_eq!(report.info_count, 1);
    let text = std::fs::read_to_string(dir().join("valid.json")).unwrap();
    assert!(!text.is_ascii(), "the valid menu has non-ASCII names");
}

#[test]
fn some_expectations_sit_after_non_ascii_text_on_their_line() {
    // Spots where bytes, characters and UTF-16 units before the column all count differently
    // (accents and astral characters such as emoji), so that a ring counting the wrong unit fails.
    let mut found = BTreeSet::new();
    for case in manifest() {
        let file = case["file"].as_str().unwrap().to_string();
        let Ok(text) = std::fs::read_to_string(dir().join(&file)) else { continue };
        for e in case["expect"].as_array().unwrap() {
            let (line, column) = (e["line"].as_u64().unwrap() as usize, e["column"].as_u64().unwrap() as usize);
            let Some(line) = text.lines().nth(line - 1) else { continue };
            let (mut units, mut end) = (0, 0);
            for (i, ch) in line.char_indices() {
                if units >= column - 1 {
                    break;
                }
                units += ch.len_utf16();
                end = i + ch.len_utf8();
            }
            let prefix = &line[..end];
            let (bytes, chars, utf16) = (prefix.len(), prefix.chars().count(), prefix.encode_utf16().count());
            if bytes != chars && chars != utf16 {
                found.insert(file.clone());
            }
        }
    }
    assert!(found.contains("field-price.json") && found.contains("example.json"), "{found:?}");
}

#[test]
fn the_example_fires_every_rule_that_can_fire_alongside_others() {
    let report = lint_file("example.json");
    let fired: BTreeSet<&str> = report.diagnostics.iter().map(|d| d.rule_id).collect();
    // These end the check of the whole input, so no other rule can fire with them (and the
    // diagnostic budget is not reached by a readable example).
    let alone = [
        "json/syntax",
        "json/invalid-utf8",
        "json/too-deep",
        "json/too-large",
        "menu/root-shape",
        "menu/empty-categories",
        "menu/too-many-diagnostics",
    ];
    let missing: Vec<&str> = RULES.iter().map(|r| r.id).filter(|id| !alone.contains(id) && !fired.contains(id)).collect();
    assert!(missing.is_empty(), "example.json does not fire {missing:?}");
}
