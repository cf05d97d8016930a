//! One focused test per rule, plus robustness. Menus are built from a valid base so that each test
//! breaks one thing and can assert that nothing else fires.

use super::*;
use crate::diagnostic::{Diagnostic, Rule, Severity};

const IMG: &str = "https://cdn.example.com/p.png";

fn run(text: &str) -> Report {
    lint(text.as_bytes(), &LintOptions::default())
}

/// Errors and warnings only (the `remote-code/not-preserved` info fires on every menu).
fn findings(r: &Report) -> Vec<&Diagnostic> {
    r.diagnostics.iter().filter(|d| d.severity != Severity::Info).collect()
}

/// The one error or warning of `report`, asserting it is of `rule`.
fn only(r: &Report, rule: &Rule) -> Diagnostic {
    let f = findings(r);
    assert_eq!(f.len(), 1, "expected exactly one finding of {}, got {:#?}", rule.id, f);
    assert_eq!(f[0].rule_id, rule.id, "{:#?}", f[0]);
    assert_eq!(f[0].severity, rule.severity);
    f[0].clone()
}

fn option(code: &str) -> String {
    format!(r#"{{"remoteCode": "{code}", "name": "Opt {code}", "price": 0, "isDefault": false, "maxPerOrder": null}}"#)
}

fn group(code: &str, kind: &str, min: i64, max: i64, options: &[String]) -> String {
    format!(
        r#"{{"remoteCode": "{code}", "name": "Group {code}", "min": {min}, "max": {max}, "type": "{kind}", "options": [{}]}}"#,
        options.join(", ")
    )
}

fn product_with(code: &str, name: &str, extra: &str) -> String {
    format!(
        r#"{{"remoteCode": "{code}", "name": "{name}", "description": "d", "price": 5.5, "tax": 0.18, "maxPerOrder": 10, "image": "{IMG}"{extra}}}"#
    )
}

fn product(code: &str) -> String {
    product_with(code, &format!("Product {code}"), "")
}

fn category(code: &str, products: &[String]) -> String {
    format!(r#"{{"remoteCode": "{code}", "name": "Category {code}", "position": 0, "products": [{}]}}"#, products.join(", "))
}

fn menu(categories: &[String]) -> String {
    format!(r#"{{"categories": [{}]}}"#, categories.join(",\n"))
}

/// A menu of one category holding `products`.
fn menu_of(products: &[String]) -> String {
    menu(&[category("C1", products)])
}

/// A menu of one product whose modifierGroups are `groups`.
fn menu_with_groups(groups: &[String]) -> String {
    menu_of(&[product_with("P1", "Burger", &format!(r#", "modifierGroups": [{}]"#, groups.join(", ")))])
}

fn opts(codes: &[&str]) -> Vec<String> {
    codes.iter().map(|c| option(c)).collect()
}

#[test]
fn valid_menu_has_only_the_info() {
    let g = group("SIZE", "radio", 1, 1, &opts(&["S", "M", "L"]));
    let text = menu(&[
        category("C1", &[product_with("P1", "Burger", &format!(r#", "modifierGroups": [{g}]"#)), product("P2")]),
        category("C2", &[product_with("P3", "Menu", &format!(r#", "modifierGroups": [{g}]"#))]),
    ]);
    let r = run(&text);
    assert!(r.ok, "{:#?}", r.diagnostics);
    assert!(findings(&r).is_empty(), "{:#?}", r.diagnostics);
    assert_eq!(r.info_count, 1);
    assert_eq!(r.kind.as_deref(), Some(KIND));
}

#[test]
fn every_rule_is_listed_once_with_a_kebab_case_id_and_a_doc() {
    let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    for r in RULES {
        assert!(
            r.id.split('/').count() == 2 && r.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'/'),
            "{}",
            r.id
        );
        assert!(!r.doc.is_empty() && !r.doc.contains('\n'), "{}", r.id);
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), RULES.len());
    assert_eq!(RULES.iter().filter(|r| r.severity == Severity::Info).count(), 1);
}

// --- structure ---------------------------------------------------------------------------------

#[test]
fn root_must_be_an_object() {
    let d = only(&run("[1, 2]"), &ROOT_SHAPE);
    assert_eq!((d.path.as_str(), d.line, d.column), ("", 1, 1));
}

#[test]
fn root_needs_categories() {
    let r = run("{\n  \"categorie\": []\n}");
    assert_eq!(r.by_rule(ROOT_SHAPE.id).count(), 1);
    let d = r.by_rule(ROOT_SHAPE.id).next().unwrap();
    assert_eq!((d.path.as_str(), d.pointer.as_str(), d.line, d.column), ("categories", "/categories", 1, 1));
    let u = r.by_rule(UNKNOWN_FIELD.id).next().unwrap();
    assert_eq!(u.help.as_deref(), Some("did you mean \"categories\"?"));
}

#[test]
fn categories_must_be_an_array() {
    let d = only(&run(r#"{"categories": {"remoteCode": "C1"}}"#), &ROOT_SHAPE);
    assert_eq!(d.path, "categories");
    assert_eq!(d.span.start, 15);
}

#[test]
fn a_node_of_the_wrong_type_is_reported_once_and_skipped() {
    let d = only(&run(&menu(&["\"Drinks\"".into()])), &TREE_SHAPE);
    assert_eq!(d.path, "categories[0]");
    let d = only(&run(&menu(&[r#"{"remoteCode": "C1", "products": {"remoteCode": "bad code"}}"#.into()])), &TREE_SHAPE);
    assert_eq!(d.path, "categories[0].products");
    let d = only(&run(&menu_of(&[product_with("P1", "Burger", r#", "modifierGroups": "SIZE""#)])), &TREE_SHAPE);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups");
    let g = group("G", "checkbox", 0, 2, &["[\"x y\"]".into(), option("A")]);
    let d = only(&run(&menu_with_groups(&[g])), &TREE_SHAPE);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options[0]");
    assert!(d.message.contains("an array"), "{}", d.message);
}

// --- remoteCode --------------------------------------------------------------------------------

#[test]
fn remote_code_is_required_and_points_at_the_parent_object() {
    let text = menu_of(&[r#"{"name": "Burger", "image": "https://cdn.example.com/b.png"}"#.into()]);
    let d = only(&run(&text), &REMOTE_CODE_REQUIRED);
    assert_eq!(d.path, "categories[0].products[0].remoteCode");
    assert_eq!(&text[d.span.start..d.span.start + 1], "{");
    assert_eq!(d.span.start, text.find(r#"{"name": "Burger""#).unwrap());
}

#[test]
fn remote_code_format() {
    let cases: &[(&str, &str)] = &[
        ("\"BURGER 1\"", "a space at character 7"),
        ("\"\"", "must not be empty"),
        ("42", "must be a string, found the number 42"),
        ("\"A/B\"", "the character '/'"),
    ];
    for (code, needle) in cases {
        let text = menu_of(&[format!(r#"{{"remoteCode": {code}, "image": "{IMG}"}}"#)]);
        let d = only(&run(&text), &REMOTE_CODE_FORMAT);
        assert_eq!(d.path, "categories[0].products[0].remoteCode");
        assert!(d.message.contains(needle), "{code}: {}", d.message);
    }
    let long = "A".repeat(REMOTE_CODE_MAX_LEN + 1);
    let d = only(&run(&menu_of(&[product(&long)])), &REMOTE_CODE_FORMAT);
    assert!(d.message.contains("101 characters"), "{}", d.message);
    let ok = format!("{}_.-:9", "a".repeat(REMOTE_CODE_MAX_LEN - 5));
    assert!(findings(&run(&menu_of(&[product(&ok)]))).is_empty());
    // "letters, digits and _ . - :": whether é is a letter the service accepts is not shown.
    let d = only(&run(&menu_of(&[product("Café")])), &REMOTE_CODE_NON_ASCII);
    assert_eq!(d.severity, Severity::Warning);
}

#[test]
fn a_product_with_a_bad_remote_code_is_still_checked() {
    let text = menu_of(&[format!(r#"{{"remoteCode": "A B", "price": -1, "image": "{IMG}"}}"#)]);
    let r = run(&text);
    let mut rules: Vec<&str> = findings(&r).iter().map(|d| d.rule_id).collect();
    rules.sort_unstable();
    assert_eq!(rules, [FIELD_PRICE.id, REMOTE_CODE_FORMAT.id]);
}

#[test]
fn malformed_codes_are_not_reported_again_as_duplicates() {
    let r = run(&menu_of(&[product("A B"), product("A B")]));
    assert_eq!(findings(&r).iter().filter(|d| d.rule_id == REMOTE_CODE_FORMAT.id).count(), 2);
    assert_eq!(r.by_rule(UNIQUE_PRODUCT.id).count(), 0);
}

#[test]
fn category_codes_are_unique() {
    let text = menu(&[category("C1", &[product("P1")]), category("C1", &[product("P2")])]);
    let d = only(&run(&text), &UNIQUE_CATEGORY);
    assert_eq!(d.path, "categories[1].remoteCode");
    assert_eq!(d.related[0].path, "categories[0].remoteCode");
    assert_eq!(d.related[0].span.start, text.find("\"C1\"").unwrap());
    assert_eq!(d.span.start, text.rfind("\"C1\"").unwrap());
}

#[test]
fn product_codes_are_unique_across_the_menu() {
    let text = menu(&[category("C1", &[product("P0"), product("P1")]), category("C2", &[product("P1")])]);
    let d = only(&run(&text), &UNIQUE_PRODUCT);
    assert_eq!(d.path, "categories[1].products[0].remoteCode");
    assert_eq!(d.message, "product remoteCode \"P1\" is already used by categories[0].products[1]");
    assert_eq!(d.related[0].path, "categories[0].products[1].remoteCode");
    assert_eq!(d.related[0].pointer, "/categories/0/products/1/remoteCode");
    assert_eq!(d.related[0].span.start, text.find("\"P1\"").unwrap());
    // Codes are compared exactly: case differs, so no duplicate.
    assert!(findings(&run(&menu_of(&[product("p1"), product("P1")]))).is_empty());
}

#[test]
fn product_code_uniqueness_scales_past_the_small_list() {
    let products: Vec<String> = (0..40).map(|i| product(&format!("P{i}"))).chain([product_with("P7", "Another", "")]).collect();
    let d = only(&run(&menu_of(&products)), &UNIQUE_PRODUCT);
    assert_eq!(d.path, "categories[0].products[40].remoteCode");
    assert_eq!(d.related[0].path, "categories[0].products[7].remoteCode");
}

#[test]
fn group_codes_are_unique_within_a_product() {
    let text = menu_with_groups(&[group("G", "checkbox", 0, 1, &opts(&["A"])), group("G", "checkbox", 0, 1, &opts(&["B"]))]);
    let d = only(&run(&text), &UNIQUE_GROUP);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[1].remoteCode");
    assert_eq!(d.related[0].path, "categories[0].products[0].modifierGroups[0].remoteCode");
}

#[test]
fn option_codes_are_unique_within_a_group_and_many_options_stay_linear() {
    let mut options = opts(&["A", "B"]);
    options.extend((0..30).map(|i| option(&format!("X{i}"))));
    options.push(option("B"));
    let text = menu_with_groups(&[group("G", "checkbox", 0, 3, &options)]);
    let d = only(&run(&text), &UNIQUE_OPTION);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options[32].remoteCode");
    assert_eq!(d.related[0].path, "categories[0].products[0].modifierGroups[0].options[1].remoteCode");
    // The same option code in two groups is fine.
    let ok = menu_with_groups(&[group("G1", "checkbox", 0, 1, &opts(&["A"])), group("G2", "checkbox", 0, 1, &opts(&["A"]))]);
    assert!(findings(&run(&ok)).is_empty());
}

// --- fields ------------------------------------------------------------------------------------

#[test]
fn field_types() {
    let r = run(&menu_of(&[product_with("P1", "x", r#", "description": 3"#).replace(r#""description": "d", "#, "")]));
    assert_eq!(only(&r, &FIELD_TYPE).path, "categories[0].products[0].description");
    let ok = menu_of(&[product_with("P1", "x", r#", "description": null"#).replace(r#""description": "d", "#, "")]);
    assert!(findings(&run(&ok)).is_empty());
    let text = menu(&[r#"{"remoteCode": "C1", "name": 7, "products": []}"#.into()]);
    let r = run(&text);
    assert_eq!(r.by_rule(FIELD_TYPE.id).next().unwrap().path, "categories[0].name");
    let bad_default = r#"{"remoteCode": "A", "isDefault": "yes"}"#.to_string();
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 0, 1, &[bad_default])])), &FIELD_TYPE);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options[0].isDefault");
}

#[test]
fn position_is_an_integer_of_at_least_zero() {
    for bad in ["-1", "1.5", "\"1\""] {
        let text = menu(&[format!(r#"{{"remoteCode": "C1", "position": {bad}, "products": [{}]}}"#, product("P1"))]);
        assert_eq!(only(&run(&text), &FIELD_POSITION).path, "categories[0].position");
    }
}

#[test]
fn prices_are_numbers_of_at_least_zero() {
    let text = menu_of(&[product_with("P1", "x", "").replace("5.5", "-0.5")]);
    assert_eq!(only(&run(&text), &FIELD_PRICE).path, "categories[0].products[0].price");
    let o = option("A").replace(r#""price": 0"#, r#""price": "2""#);
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 0, 1, &[o])])), &FIELD_PRICE);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options[0].price");
}

#[test]
fn tax_is_a_fraction() {
    let d = only(&run(&menu_of(&[product("P1").replace("0.18", "18")])), &FIELD_TAX);
    assert!(d.help.as_deref().unwrap().contains("18% is 0.18"), "{:?}", d.help);
    only(&run(&menu_of(&[product("P1").replace("0.18", "-0.1")])), &FIELD_TAX);
    only(&run(&menu_of(&[product("P1").replace("0.18", "101")])), &FIELD_TAX);
    assert!(findings(&run(&menu_of(&[product("P1").replace("0.18", "1")]))).is_empty());
}

#[test]
fn max_per_order_is_above_zero_or_null_on_options() {
    let d = only(&run(&menu_of(&[product("P1").replace(r#""maxPerOrder": 10"#, r#""maxPerOrder": 0"#)])), &FIELD_MAX_PER_ORDER);
    assert_eq!(d.path, "categories[0].products[0].maxPerOrder");
    only(&run(&menu_of(&[product("P1").replace(r#""maxPerOrder": 10"#, r#""maxPerOrder": null"#)])), &FIELD_MAX_PER_ORDER);
    let o = option("A").replace("null", "2.5");
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 0, 1, &[o])])), &FIELD_MAX_PER_ORDER);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options[0].maxPerOrder");
}

// --- image -------------------------------------------------------------------------------------

#[test]
fn image_is_required() {
    let text = menu_of(&[r#"{"remoteCode": "P1", "name": "Burger"}"#.into()]);
    let d = only(&run(&text), &IMAGE_REQUIRED);
    assert_eq!((d.path.as_str(), d.span.start), ("categories[0].products[0].image", text.find(r#"{"remoteCode": "P1""#).unwrap()));
    only(&run(&menu_of(&[product("P1").replace(&format!("\"{IMG}\""), "null")])), &IMAGE_REQUIRED);
}

#[test]
fn image_is_an_absolute_http_url() {
    for bad in ["\"/images/b.png\"", "\"ftp://cdn.example.com/b.png\"", "\"https://\"", "42"] {
        let d = only(&run(&menu_of(&[product("P1").replace(&format!("\"{IMG}\""), bad)])), &IMAGE_URL);
        assert_eq!(d.path, "categories[0].products[0].image");
    }
}

#[test]
fn image_over_plain_http_is_a_warning() {
    let r = run(&menu_of(&[product("P1").replace("https://", "http://")]));
    assert!(r.ok);
    assert_eq!(only(&r, &IMAGE_INSECURE).path, "categories[0].products[0].image");
}

// --- modifier groups ---------------------------------------------------------------------------

#[test]
fn group_min_max_and_type() {
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", -1, 1, &opts(&["A"]))])), &GROUP_MIN);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].min");
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 0, 0, &opts(&["A"]))])), &GROUP_MAX);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].max");
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 2, 1, &opts(&["A", "B"]))])), &GROUP_MAX_BELOW_MIN);
    assert_eq!(d.related[0].path, "categories[0].products[0].modifierGroups[0].min");
    let d = only(&run(&menu_with_groups(&[group("G", "single", 0, 1, &opts(&["A"]))])), &GROUP_TYPE);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].type");
    for kind in ["RADIO", "Checkbox", "radio"] {
        assert!(findings(&run(&menu_with_groups(&[group("G", kind, 0, 1, &opts(&["A"]))]))).is_empty(), "{kind}");
    }
}

#[test]
fn shared_groups_must_match() {
    let a = group("SIZE", "radio", 1, 1, &opts(&["S", "M"]));
    let b = group("SIZE", "RADIO", 1, 1, &[option("S"), option("M").replace(r#""price": 0"#, r#""price": 1.5"#)]);
    let c = group("SIZE", "checkbox", 0, 2, &opts(&["S", "M", "L"]));
    let text = menu(&[
        category("C1", &[product_with("P1", "Burger", &format!(r#", "modifierGroups": [{a}]"#))]),
        category(
            "C2",
            &[
                product_with("P2", "Wrap", &format!(r#", "modifierGroups": [{b}]"#)),
                product_with("P3", "Bowl", &format!(r#", "modifierGroups": [{c}]"#)),
            ],
        ),
    ]);
    let r = run(&text);
    let found: Vec<_> = r.by_rule(SHARED_GROUP_MISMATCH.id).collect();
    assert_eq!(found.len(), 2, "{:#?}", r.diagnostics);
    assert_eq!(found[0].path, "categories[1].products[0].modifierGroups[0].remoteCode");
    assert!(found[0].message.contains("options[1].price (1.5 here, 0 there)"), "{}", found[0].message);
    assert!(!found[0].message.contains("type"), "type is compared case-insensitively: {}", found[0].message);
    assert_eq!(found[0].related[0].path, "categories[0].products[0].modifierGroups[0].remoteCode");
    assert!(found[1].message.contains("min (0 here, 1 there)"), "{}", found[1].message);
    assert!(found[1].message.contains("max (2 here, 1 there)"), "{}", found[1].message);
    assert!(found[1].message.contains("type (\"checkbox\" here, \"radio\" there)"), "{}", found[1].message);
    assert!(found[1].message.contains("options (3 here, 2 there)"), "{}", found[1].message);
    assert_eq!(findings(&r).len(), 2);
    // Member order does not matter.
    let reordered = a.replace(r#""min": 1, "max": 1"#, r#""max": 1, "min": 1"#);
    let text = menu_of(&[
        product_with("P1", "Burger", &format!(r#", "modifierGroups": [{a}]"#)),
        product_with("P2", "Wrap", &format!(r#", "modifierGroups": [{reordered}]"#)),
    ]);
    assert!(findings(&run(&text)).is_empty());
}

#[test]
fn min_over_options() {
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 3, 3, &opts(&["A", "B"]))])), &GROUP_MIN_OVER_OPTIONS);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].min");
    assert!(d.message.contains("only 2 options"), "{}", d.message);
}

#[test]
fn radio_max() {
    let d = only(&run(&menu_with_groups(&[group("G", "Radio", 0, 2, &opts(&["A", "B"]))])), &GROUP_RADIO_MAX);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].max");
}

fn default_option(code: &str) -> String {
    option(code).replace("false", "true")
}

#[test]
fn defaults_over_max() {
    let options = [default_option("A"), default_option("B"), default_option("C"), option("D")];
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 0, 2, &options)])), &GROUP_DEFAULTS_OVER_MAX);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options[2].isDefault");
    assert_eq!(d.related[0].path, "categories[0].products[0].modifierGroups[0].max");
    assert!(findings(&run(&menu_with_groups(&[group("G", "checkbox", 0, 3, &options)]))).is_empty());
}

#[test]
fn radio_defaults() {
    let options = [option("A"), default_option("B"), default_option("C")];
    let d = only(&run(&menu_with_groups(&[group("G", "radio", 1, 1, &options)])), &GROUP_RADIO_DEFAULTS);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options[2].isDefault");
    assert_eq!(d.related[0].path, "categories[0].products[0].modifierGroups[0].options[1].isDefault");
}

#[test]
fn no_options() {
    let d = only(&run(&menu_with_groups(&[group("G", "checkbox", 0, 1, &[])])), &GROUP_NO_OPTIONS);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0].options");
    let g = r#"{"remoteCode": "G", "min": 1, "max": 1, "type": "radio"}"#.to_string();
    let d = only(&run(&menu_with_groups(&[g])), &GROUP_NO_OPTIONS);
    assert_eq!(d.path, "categories[0].products[0].modifierGroups[0]");
}

// --- other warnings ----------------------------------------------------------------------------

#[test]
fn unknown_fields_suggest_the_contract_names() {
    let text = menu_of(&[
        r#"{"RemoteCode": "P1", "remoteCode": "P1", "image": "https://a.example/p.png", "imageUrl": "https://a.example/p.png", "modifiers": []}"#.into(),
    ]);
    let r = run(&text);
    let helps: Vec<_> = r.by_rule(UNKNOWN_FIELD.id).map(|d| (d.path.as_str(), d.help.as_deref().unwrap_or(""))).collect();
    assert_eq!(
        helps,
        [
            ("categories[0].products[0].RemoteCode", "did you mean \"remoteCode\"?"),
            ("categories[0].products[0].imageUrl", "did you mean \"image\"?"),
            ("categories[0].products[0].modifiers", "did you mean \"modifierGroups\"?"),
        ]
    );
    assert!(r.ok);
    assert_eq!(findings(&r).len(), 3);
}

#[test]
fn empty_category() {
    let d = only(&run(&menu(&[category("C1", &[])])), &CATEGORY_EMPTY);
    assert_eq!(d.path, "categories[0].products");
    let d = only(&run(&menu(&[r#"{"remoteCode": "C1"}"#.into()])), &CATEGORY_EMPTY);
    assert_eq!(d.path, "categories[0]");
}

#[test]
fn duplicate_product_names_within_a_category() {
    let text = menu(&[
        category("C1", &[product_with("P1", "Café", ""), product_with("P2", "Café", "")]),
        category("C2", &[product_with("P3", "Café", "")]),
    ]);
    let d = only(&run(&text), &PRODUCT_DUPLICATE_NAME);
    assert_eq!(d.path, "categories[0].products[1].name");
    assert_eq!(d.related[0].path, "categories[0].products[0].name");
}

#[test]
fn empty_categories_array() {
    let d = only(&run(r#"{"categories": []}"#), &EMPTY_CATEGORIES);
    assert_eq!(d.path, "categories");
    assert!(run(r#"{"categories": []}"#).ok);
}

#[test]
fn not_preserved_is_reported_once() {
    let g = group("G", "checkbox", 0, 1, &opts(&["A"]));
    let text =
        menu(&[category("C1", &[product_with("P1", "x", &format!(r#", "modifierGroups": [{g}]"#))]), category("C2", &[product("P2")])]);
    let r = run(&text);
    let infos: Vec<_> = r.by_rule(NOT_PRESERVED.id).collect();
    assert_eq!(infos.len(), 1);
    assert_eq!(infos[0].path, "categories[0].remoteCode");
    assert_eq!(infos[0].severity, Severity::Info);
}

// --- JSON level and robustness ------------------------------------------------------------------

#[test]
fn invalid_json_gives_one_diagnostic_at_the_error() {
    let text = "{\"categories\": [\n  {\"remoteCode\": \"C1\",}\n]}";
    let r = run(text);
    assert_eq!(r.diagnostics.len(), 1);
    let d = &r.diagnostics[0];
    assert_eq!((d.rule_id, d.line, d.column), ("json/syntax", 2, 23));
    assert_eq!(r.kind.as_deref(), Some(KIND));
}

#[test]
fn limits_are_options() {
    let text = menu_of(&[product("P1")]);
    let small = LintOptions { limits: Limits { max_bytes: 10, ..Limits::default() }, ..LintOptions::default() };
    assert_eq!(lint(text.as_bytes(), &small).diagnostics[0].rule_id, "json/too-large");
    let shallow = LintOptions { limits: Limits { max_depth: 2, ..Limits::default() }, ..LintOptions::default() };
    assert_eq!(lint(text.as_bytes(), &shallow).diagnostics[0].rule_id, "json/too-deep");
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(run(&deep).diagnostics[0].rule_id, "json/too-deep");
    let r = lint(b"{\"categories\": [\"\xff\"]}", &LintOptions::default());
    assert_eq!((r.diagnostics[0].rule_id, r.diagnostics[0].column), ("json/invalid-utf8", 18));
}

#[test]
fn duplicate_keys_are_warned_and_the_last_one_is_checked() {
    let text = menu_of(&[product("P1").replace(r#""price": 5.5"#, r#""price": -1, "price": 2"#)]);
    let d = only(&run(&text), &crate::diagnostic::json_rules::DUPLICATE_KEY);
    assert_eq!(d.path, "categories[0].products[0].price");
}

#[test]
fn never_panics_on_mangled_input() {
    let g = group("SIZE", "radio", 1, 1, &[default_option("S"), option("M")]);
    let text = menu(&[category("C1", &[product_with("P1", "Crème brûlée 🍮", &format!(r#", "modifierGroups": [{g}]"#)), product("P2")])]);
    let bytes = text.as_bytes();
    for cut in 0..bytes.len() {
        let r = lint(&bytes[..cut], &LintOptions::default());
        assert!(!r.diagnostics.is_empty() || cut == 0);
    }
    // Deterministic byte mutations (xorshift).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let alphabet = b"{}[]\",:0-1.eE \\tnul\xff\xc3";
    for _ in 0..3000 {
        let mut m = bytes.to_vec();
        for _ in 0..(next() % 4 + 1) {
            let at = (next() % m.len() as u64) as usize;
            m[at] = alphabet[(next() % alphabet.len() as u64) as usize];
        }
        let r = lint(&m, &LintOptions::default());
        for d in &r.diagnostics {
            assert!(d.line >= 1 && d.column >= 1 && d.span.start <= m.len());
        }
    }
}

#[test]
fn the_diagnostic_budget_stops_the_lint_and_says_where() {
    let broken: Vec<String> = (0..50).map(|i| format!(r#"{{"name": "Sin código {i}"}}"#)).collect();
    let text = menu_of(&broken);
    let options = LintOptions { max_diagnostics: 10, ..LintOptions::default() };
    let r = lint(text.as_bytes(), &options);
    let stop: Vec<_> = r.by_rule(TOO_MANY_DIAGNOSTICS.id).collect();
    assert_eq!(stop.len(), 1);
    // 1 info + 2 per product (remoteCode, image): the budget runs out at the sixth product.
    assert_eq!(stop[0].path, "categories[0].products[5]");
    assert!(!r.ok);
    assert!(r.diagnostics.len() <= 12, "{}", r.diagnostics.len());
    // The default budget is not reached by a normal broken menu.
    assert_eq!(run(&text).by_rule(TOO_MANY_DIAGNOSTICS.id).count(), 0);
}

#[test]
fn hostile_inputs_stay_within_the_budget() {
    let many_categories = format!(r#"{{"categories": [{}{{}}]}}"#, "{}, ".repeat(100_000));
    let r = run(&many_categories);
    assert!(r.diagnostics.len() <= LintOptions::default().max_diagnostics + 4, "{}", r.diagnostics.len());
    assert_eq!(r.by_rule(TOO_MANY_DIAGNOSTICS.id).count(), 1);

    let keys: Vec<String> = (0..20_000).map(|i| format!(r#""k{i}": 1"#)).collect();
    let wide = menu_of(&[format!(r#"{{"remoteCode": "P1", "image": "{IMG}", {}}}"#, keys.join(", "))]);
    let r = lint(wide.as_bytes(), &LintOptions { max_diagnostics: 100, ..LintOptions::default() });
    assert!(r.diagnostics.len() <= 104, "{}", r.diagnostics.len());
    assert_eq!(r.by_rule(TOO_MANY_DIAGNOSTICS.id).next().unwrap().path, "categories[0].products[0]");

    let dups = format!("{{{}\"categories\": []}}", "\"x\": 1, ".repeat(5_000));
    let r = lint(dups.as_bytes(), &LintOptions { max_diagnostics: 100, ..LintOptions::default() });
    assert!(r.diagnostics.len() <= 104, "{}", r.diagnostics.len());
    assert_eq!(r.by_rule(TOO_MANY_DIAGNOSTICS.id).count(), 1);
}
