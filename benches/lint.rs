//! Throughput of the menu linter on a generated ≥ 10 MB valid menu, with `json::parse` alone and
//! `serde_json::from_slice::<Value>` as baselines. Not a test: `cargo bench --bench lint`.
//!
//! The text is also written to `target/bench/menu-10mb.json` so that other benchmarks (Node's
//! `JSON.parse`, the wasm build) can read the very same bytes.

#[path = "support/menugen.rs"]
mod menugen;
#[path = "support/timing.rs"]
mod timing;

use std::time::Duration;

const TARGET_BYTES: usize = 10 * 1024 * 1024;
const ITERATIONS: usize = 10;

/// The fastest and the median of `ITERATIONS` timed runs after one warm-up.
fn time<T>(f: impl FnMut() -> T) -> (Duration, Duration) {
    timing::best_and_median(ITERATIONS, f)
}

fn mb_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn main() {
    let text = menugen::generate(TARGET_BYTES);
    let bytes = text.as_bytes();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("bench");
    let file = dir.join("menu-10mb.json");
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&file, bytes)) {
        eprintln!("could not write {}: {e}", file.display());
    }

    let options = poscheck::menu::LintOptions::default();
    let report = poscheck::menu::lint(bytes, &options);
    assert!(report.ok && report.warning_count == 0, "the generated menu must lint clean: {:?}", report.diagnostics.first());

    let lint = time(|| poscheck::menu::lint(bytes, &options));
    let parse =
        time(|| poscheck::json::parse(bytes, &options.limits, &poscheck::json::Arena::for_input(bytes.len())).map(|d| d.root.span.end));
    let serde = time(|| serde_json::from_slice::<serde_json::Value>(bytes).map(|v| v.is_object()));

    println!("menu: {} bytes ({:.1} MB) written to {}", bytes.len(), bytes.len() as f64 / 1e6, file.display());
    println!("{:<34} {:>10} {:>10} {:>12}", "", "best", "median", "MB/s (best)");
    for (name, (best, median)) in
        [("menu::lint (all rules, positions)", lint), ("json::parse alone", parse), ("serde_json::from_slice::<Value>", serde)]
    {
        println!(
            "{name:<34} {:>8.2}ms {:>8.2}ms {:>12.1}",
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            mb_per_s(bytes.len(), best)
        );
    }
    println!(
        "ratios (best): lint / json::parse = {:.2}x the time, lint / serde_json = {:.2}x the time",
        lint.0.as_secs_f64() / parse.0.as_secs_f64(),
        lint.0.as_secs_f64() / serde.0.as_secs_f64()
    );
}
