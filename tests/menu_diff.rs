//! The menu diff over the shared fixtures (`tests/fixtures/diff/cases.json`), its CLI-free faces
//! (text and Markdown rendering), hostile input, and a linear-time check that counts work.

mod common;
mod diff_cases;

#[path = "../benches/support/menugen.rs"]
mod menugen;
#[path = "../benches/support/storemenu.rs"]
mod storemenu;

use poscheck::menu::diff::{diff, render, Change, DiffOptions};
use std::path::PathBuf;

fn fixture(path: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_case_of_the_manifest() {
    assert!(diff_cases::check(fixture) >= 10);
}

#[test]
fn every_fixture_file_is_used_by_the_manifest() {
    let manifest = String::from_utf8(fixture("diff/cases.json")).unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff");
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().into_string().unwrap();
        if name.ends_with(".json") && name != "cases.json" {
            assert!(manifest.contains(&format!("\"diff/{name}\"")), "{name} is not in cases.json");
        }
    }
}

#[test]
fn text_and_markdown_name_every_change_and_escape_hostile_strings() {
    let d = diff(&fixture("diff/current.json"), &fixture("diff/next-one-of-each.json"), &DiffOptions::default());
    let t = render::text(&d, "current.json", "next.json");
    assert!(t.contains("next.json:41:25 updated product BURGER-2 \"Veggie burger\""), "{t}");
    assert!(t.contains("    price: 11 → 12.5"), "{t}");
    assert!(t.contains("deactivated product WATER"), "{t}");
    assert!(t.contains("deactivation: 1 of 5 active products (20%), threshold 20%: below"), "{t}");
    let m = render::markdown(&d, "current.json", "next.json");
    assert!(m.contains("| updated | product | BURGER\\-2 \"Veggie burger\" | next\\.json:41:25 | price: 11 → 12\\.5 |"), "{m}");

    // A name with a terminal escape, a newline starting a GitHub workflow command, Markdown and a mention.
    let hostile = String::from_utf8(fixture("diff/next-one-of-each.json"))
        .unwrap()
        .replace("\"Veggie burger\"", r#""Veggie\u001b[2J\n::error::pwned | <img src=x> @team [x](y)""#);
    let d = diff(&fixture("diff/current.json"), hostile.as_bytes(), &DiffOptions::default());
    let t = render::text(&d, "current.json", "next.json");
    assert!(!t.contains('\u{1b}'), "no raw ESC in text output");
    assert!(t.lines().all(|l| !l.starts_with("::")), "no line starts a workflow command:\n{t}");
    assert!(t.contains("Veggie\\u{001B}[2J\\u{000A}::error::pwned"), "{t}");
    let m = render::markdown(&d, "current.json", "next.json");
    assert!(!m.contains('\u{1b}') && m.lines().all(|l| !l.starts_with("::")));
    assert!(!m.contains("<img") && !m.contains("@team") && m.contains("\\| &lt;img"), "{m}");
}

#[test]
fn hostile_inputs_give_reports_never_a_panic() {
    let current = fixture("diff/current.json");
    for next in [&b""[..], b"[", b"\xff", b"null", b"{\"categories\": 3}", b"{\"categories\": [1, [], null, {\"products\": 7}]}"] {
        let d = diff(&current, next, &DiffOptions::default());
        assert!(
            !d.next.ok || !d.compared || d.entries.is_empty() || d.summary.deactivated.products > 0,
            "{:?}",
            String::from_utf8_lossy(next)
        );
    }
    let deep = "[".repeat(100_000);
    let d = diff(deep.as_bytes(), deep.as_bytes(), &DiffOptions::default());
    assert!(!d.compared);
    assert_eq!(d.current.diagnostics[0].rule_id, "json/too-deep");
    // Products, groups and options of the wrong types are skipped, not trusted.
    let odd =
        br#"{"categories": [{"code": "c", "name": 5, "products": [7, {"remoteCode": ["x"], "origin": "brand", "modifierGroups": "no"}]}]}"#;
    let d = diff(odd, &fixture("diff/next-identical.json"), &DiffOptions::default());
    assert!(d.compared);
    assert_eq!(d.summary.created.products, 5);
}

#[test]
fn the_output_is_bounded_with_a_marker() {
    let options = DiffOptions { max_entries: 3, max_diagnostics: 2, ..DiffOptions::default() };
    let d = diff(&fixture("diff/current.json"), &fixture("diff/next-replacement.json"), &options);
    assert_eq!(d.entries.len(), 3);
    let t = d.truncated.expect("a truncation marker");
    assert_eq!((t.shown, t.total), (3, 11));
    assert_eq!(d.summary.deactivated.products, 5, "the counts stay complete");
    assert!(d.next.diagnostics.iter().any(|x| x.rule_id == "diff/truncated"));
    // Every product a duplicate of one code: two diagnostics, then the marker.
    let mut menu = String::from(r#"{"categories": [{"remoteCode": "C", "name": "C", "position": 0, "products": ["#);
    for i in 0..50 {
        menu.push_str(&format!(
            r#"{}{{"remoteCode": "SAME", "name": "P{i}", "price": 1, "image": "https://x.example/i.png"}}"#,
            if i > 0 { "," } else { "" }
        ));
    }
    menu.push_str("]}]}");
    let d = diff(&fixture("diff/current.json"), menu.as_bytes(), &options);
    let own: Vec<_> = d.next.diagnostics.iter().filter(|x| x.rule_id.starts_with("diff/")).map(|x| x.rule_id).collect();
    assert!(own.len() <= 4, "{own:?}");
    assert!(own.contains(&"diff/too-many-diagnostics"), "{own:?}");
}

/// Work (items visited, map operations) counted on inputs of size n and 2n: linear when the
/// ratio stays near 2, whatever the shape (a realistic pair, every code duplicated, every
/// group of one name, one huge group).
#[test]
fn linear_work_on_realistic_and_hostile_pairs() {
    fn hostile(n: usize, kind: u8) -> (String, String) {
        let mut cur = String::from(r#"{"categories": [{"code": "c", "name": "C", "position": 0, "products": ["#);
        let mut next = String::from(r#"{"categories": [{"remoteCode": "C", "name": "C", "position": 0, "products": ["#);
        let code = |i: usize| if kind == 0 { "SAME".to_string() } else { format!("P{i}") };
        let groups = |i: usize, read: bool| -> String {
            match kind {
                1 => format!(
                    r#"[{{"name": "G", {}"options": []}}, {{"name": "G", "options": []}}]"#,
                    if read { "\"code\": \"g\", " } else { "" }
                ),
                2 if i == 0 => {
                    let opts: Vec<String> =
                        (0..n).map(|k| format!(r#"{{"remoteCode": "O{}", "name": "o", "price": 1}}"#, k % (n / 2 + 1))).collect();
                    format!(r#"[{{"name": "G", "options": [{}]}}]"#, opts.join(","))
                }
                _ => "[]".into(),
            }
        };
        for i in 0..n {
            let sep = if i > 0 { "," } else { "" };
            cur.push_str(&format!(
                r#"{sep}{{"code": "p{i}", "name": "N", "price": 1, "origin": "brand", "remoteCode": "{}", "modifierGroups": {}}}"#,
                code(i),
                groups(i, true)
            ));
            next.push_str(&format!(
                r#"{sep}{{"remoteCode": "{}", "name": "N", "price": 2, "image": "https://x.example/i.png", "modifierGroups": {}}}"#,
                code(i),
                groups(i, false)
            ));
        }
        cur.push_str("]}]}");
        next.push_str("]}]}");
        (cur, next)
    }
    let work = |cur: &str, next: &str| diff(cur.as_bytes(), next.as_bytes(), &DiffOptions::default()).work;
    for kind in 0..3u8 {
        let (c1, n1) = hostile(4_000, kind);
        let (c2, n2) = hostile(8_000, kind);
        let (w1, w2) = (work(&c1, &n1), work(&c2, &n2));
        assert!(w1 > 4_000, "the count counts ({w1})");
        let ratio = w2 as f64 / w1 as f64;
        assert!(ratio < 2.2, "hostile shape {kind}: work {w1} → {w2} (×{ratio:.2}) when the input doubles");
    }
    let small = menugen::generate(512 * 1024);
    let large = menugen::generate(1024 * 1024);
    let w = |sub: &str| {
        let (next, _) = storemenu::changed(sub, 10);
        work(&storemenu::store_menu(sub), &next) as f64 / sub.len() as f64
    };
    let (a, b) = (w(&small), w(&large));
    assert!(b < a * 1.1, "work per byte grows with the size: {a:.4} → {b:.4}");
}

/// The 10 MB pair: a generated submission, the store menu the service would return for it, and a
/// changed copy; the diff finds exactly the changes made.
#[test]
fn a_ten_megabyte_pair_gives_exactly_the_changes_made() {
    let sub = menugen::generate(10 * 1024 * 1024);
    let current = storemenu::store_menu(&sub);
    let (next, made) = storemenu::changed(&sub, 25);
    let d = diff(current.as_bytes(), next.as_bytes(), &DiffOptions { max_entries: 100, ..DiffOptions::default() });
    assert!(d.compared && d.next.ok && d.current.ok, "{:?} {:?}", d.next.diagnostics.first(), d.current.diagnostics.first());
    let s = &d.summary;
    assert_eq!(s.active_products, made.products);
    assert_eq!(s.deactivated.products, made.dropped);
    assert_eq!(s.created.products, made.added);
    // Repriced and not dropped: every 25th product (n % 25 == 0 never drops, n % 25 == 1 does).
    assert_eq!(s.updated.products, made.repriced);
    assert_eq!(s.unchanged.products, made.products - made.dropped - made.repriced);
    assert_eq!(s.deactivated.categories + s.created.categories + s.updated.categories, 0);
    assert!(!s.above_threshold && (s.deactivated_share - made.dropped as f64 / made.products as f64).abs() < 1e-12);
    assert_eq!(d.entries.len(), 100);
    assert!(d.truncated.is_some());
    let first = d.entries.iter().find(|e| e.change == Change::Updated).unwrap();
    assert_eq!(first.changes[0].field, "price");
}

/// The hostile shapes every checker is tested with (tests/common/hostile.rs), on either side of
/// the diff: reports within the same bounds, the entries within `max_entries`.
#[test]
fn the_hostile_shapes_stay_bounded_through_the_diff() {
    let current = fixture("diff/current.json");
    for shape in common::hostile::SHAPES {
        let input = (shape.make)(shape.size / 4);
        for d in [diff(&current, &input, &DiffOptions::default()), diff(&input, &input, &DiffOptions::default())] {
            common::hostile::assert_bounded(shape.name, &d.next);
            common::hostile::assert_bounded(shape.name, &d.current);
            assert!(d.entries.len() <= DiffOptions::default().max_entries);
        }
    }
}

#[test]
fn a_field_left_out_of_the_submission_is_a_change_resting_on_an_assumption() {
    let next = String::from_utf8(fixture("diff/next-identical.json")).unwrap().replacen("\"tax\": 0.18,\n", "", 1);
    let d = diff(&fixture("diff/current.json"), next.as_bytes(), &DiffOptions::default());
    let burger = d.entries.iter().find(|e| e.remote_code.as_deref() == Some("BURGER-1")).expect("BURGER-1 updated");
    let tax = &burger.changes[0];
    assert_eq!((tax.field.as_str(), tax.old.clone(), tax.new.clone()), ("tax", Some(serde_json::json!(0.18)), None));
    assert_eq!(tax.basis, poscheck::menu::diff::Basis::Assumed);
    assert!(tax.note.as_deref().unwrap().contains("not shown"));
    assert_eq!(d.summary.updated.products, 1);
}
