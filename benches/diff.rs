//! The menu diff of a generated ≥ 10 MB pair against linting the two menus (the submission with
//! `menu::lint`, the store menu read with `validate_payload`), in the same run: the ratio is what
//! the diff costs on top of the checks it runs anyway. Not a test: `cargo bench --bench diff`.

#[path = "support/menugen.rs"]
mod menugen;
#[path = "support/storemenu.rs"]
mod storemenu;
#[path = "support/timing.rs"]
mod timing;

use poscheck::menu::diff::{diff, DiffOptions};
use poscheck::payload::{validate_payload, PayloadKind, PayloadOptions};
use std::time::Duration;

const TARGET_BYTES: usize = 10 * 1024 * 1024;
const ITERATIONS: usize = 7;

/// The fastest and the median of `ITERATIONS` timed runs after one warm-up.
fn time<T>(f: impl FnMut() -> T) -> (Duration, Duration) {
    timing::best_and_median(ITERATIONS, f)
}

fn main() {
    let sub = menugen::generate(TARGET_BYTES);
    let current = storemenu::store_menu(&sub);
    let (next, _) = storemenu::changed(&sub, 25);
    let (cur, nxt) = (current.as_bytes(), next.as_bytes());
    let options = DiffOptions::default();
    let d = diff(cur, nxt, &options);
    assert!(d.compared && d.next.ok && d.current.ok, "the generated pair must compare clean");

    let store = PayloadOptions { kind: Some(PayloadKind::StoreMenu), ..Default::default() };
    let lint_options = poscheck::menu::LintOptions::default();
    let checks = time(|| (poscheck::menu::lint(nxt, &lint_options).ok, validate_payload(cur, &store).ok));
    let full = time(|| diff(cur, nxt, &options).summary.deactivated.products);
    let limits = poscheck::json::Limits::default();
    let parses = time(|| {
        (
            poscheck::json::parse(cur, &limits, &poscheck::json::Arena::for_input(cur.len())).is_ok(),
            poscheck::json::parse(nxt, &limits, &poscheck::json::Arena::for_input(nxt.len())).is_ok(),
        )
    });

    println!("pair: store menu {:.1} MB, submission {:.1} MB", cur.len() as f64 / 1e6, nxt.len() as f64 / 1e6);
    println!(
        "summary: {} created, {} updated, {} deactivated products of {} ({:.1}%)",
        d.summary.created.products,
        d.summary.updated.products,
        d.summary.deactivated.products,
        d.summary.active_products,
        d.summary.deactivated_share * 100.0
    );
    println!("{:<44} {:>10} {:>10}", "", "best", "median");
    for (name, (best, median)) in [
        ("lint(next) + validate_payload(current)", checks),
        ("json::parse(current) + json::parse(next)", parses),
        ("diff(current, next) (runs both checks)", full),
    ] {
        println!("{name:<44} {:>8.1}ms {:>8.1}ms", best.as_secs_f64() * 1e3, median.as_secs_f64() * 1e3);
    }
    println!("ratio (best): diff / checking the two menus = {:.2}x the time", full.0.as_secs_f64() / checks.0.as_secs_f64());
    println!(
        "ratio (best): the matching walk alone (diff - checks - one more parse of each side) / checking = {:.2}x",
        (full.0.as_secs_f64() - checks.0.as_secs_f64() - parses.0.as_secs_f64()) / checks.0.as_secs_f64()
    );
}
