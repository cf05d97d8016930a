//! A generated large valid menu (the generator lives in `benches/support/`) lints clean.

#[path = "../benches/support/menugen.rs"]
mod menugen;

use poscheck::menu::{lint, LintOptions};

#[test]
fn a_large_generated_menu_has_no_errors_or_warnings() {
    let text = menugen::generate(2 * 1024 * 1024);
    assert!(text.len() >= 2 * 1024 * 1024);
    // The generator is deterministic.
    assert_eq!(text, menugen::generate(2 * 1024 * 1024));
    // It is JSON an independent parser accepts.
    let value: serde_json::Value = serde_json::from_str(&text).expect("the generator writes valid JSON");
    let categories = value["categories"].as_array().unwrap();
    assert!(categories.len() > 10);
    assert!(text.contains("Crème brûlée") && text.contains("寿司"));

    let report = lint(text.as_bytes(), &LintOptions::default());
    let findings: Vec<_> = report.diagnostics.iter().filter(|d| d.severity != poscheck::Severity::Info).take(5).collect();
    assert!(findings.is_empty(), "{findings:#?}");
    assert!(report.ok);
    assert_eq!((report.error_count, report.warning_count, report.info_count), (0, 0, 1));
}

#[test]
fn breaking_the_large_menu_is_caught() {
    // The same menu with the second product's code replaced by the first one's.
    let text = menugen::generate(256 * 1024).replacen("\"SKU-000001\"", "\"SKU-000000\"", 1);
    let report = lint(text.as_bytes(), &LintOptions::default());
    let d = report.by_rule("remote-code/unique-product").next().expect("a duplicate product");
    assert_eq!(d.path, "categories[0].products[1].remoteCode");
    assert_eq!(report.error_count, 1);
}
