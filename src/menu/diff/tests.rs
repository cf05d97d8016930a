use super::render::{clean, md};
use super::values::same;
use super::*;

#[test]
fn thresholds_as_fractions_or_percentages() {
    assert_eq!(parse_threshold("0.2"), Ok(0.2));
    assert_eq!(parse_threshold(" 15% "), Ok(0.15));
    assert_eq!(parse_threshold("100%"), Ok(1.0));
    for bad in ["", "abc", "-0.1", "1.01", "150%", "NaN", "inf"] {
        assert_eq!(parse_threshold(bad).unwrap_err().code(), "INVALID_ARGUMENT", "{bad}");
    }
    assert_eq!((percent(0.2), percent(0.125), percent(1.0 / 3.0)), ("20%".into(), "12.5%".into(), "33.3%".into()));
}

#[test]
fn an_out_of_range_threshold_in_options_falls_back_to_the_default() {
    let menu = br#"{"categories": []}"#;
    let d = diff(menu, menu, &DiffOptions { threshold: f64::NAN, ..DiffOptions::default() });
    assert_eq!(d.summary.threshold, DEFAULT_THRESHOLD);
}

#[test]
fn escaping_for_terminals_and_markdown() {
    assert_eq!(clean("a\u{1b}[31mb\nc\u{202e}d\u{85}"), "a\\u{001B}[31mb\\u{000A}c\\u{202E}d\\u{0085}");
    assert_eq!(clean("Crème 🍔"), "Crème 🍔");
    assert_eq!(md("a|b <i>@x [l](u) `c`"), "a\\|b &lt;i&gt;&#64;x \\[l\\]\\(u\\) \\`c\\`");
}

#[test]
fn same_treats_null_and_absent_alike_and_numbers_by_value() {
    let arena = crate::json::Arena::new();
    let doc = crate::json::parse(br#"[null, 2, 2.0, "Radio", "radio"]"#, &Limits::default(), &arena).unwrap();
    let v = doc.root.as_array().unwrap();
    assert!(same(None, Some(&v[0]), false));
    assert!(same(Some(&v[1]), Some(&v[2]), false));
    assert!(!same(Some(&v[3]), Some(&v[4]), false));
    assert!(same(Some(&v[3]), Some(&v[4]), true));
}
