//! Ring 1, hostile input (issue 8): each hostile shape, doubled, costs at most twice the work —
//! counted (bytes and blocks allocated, by a counting global allocator), not timed — and every
//! report stays within its budget. The shapes live in tests/common/hostile.rs, shared with the
//! wasm ring and the benchmarks.

mod common;

use common::hostile::{assert_bounded, SHAPES};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// Counts what the process allocates. Tests run on several threads, so each measurement holds
/// `SERIAL` and reads the counters around the call.
struct Counting;

static BYTES: AtomicUsize = AtomicUsize::new(0);
static BLOCKS: AtomicUsize = AtomicUsize::new(0);
static SERIAL: Mutex<()> = Mutex::new(());

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size(), Relaxed);
        BLOCKS.fetch_add(1, Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        BYTES.fetch_add(new_size, Relaxed);
        BLOCKS.fetch_add(1, Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (bytes, blocks) allocated by `f`.
fn work(f: impl FnOnce()) -> (usize, usize) {
    let (b0, n0) = (BYTES.load(Relaxed), BLOCKS.load(Relaxed));
    f();
    (BYTES.load(Relaxed) - b0, BLOCKS.load(Relaxed) - n0)
}

#[test]
fn doubling_a_hostile_shape_at_most_doubles_the_work() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut table = Vec::new();
    for shape in SHAPES {
        // Sizes small enough for a debug build, large enough for quadratic costs to dominate.
        let n = shape.size / 8;
        let (small, large) = ((shape.make)(n), (shape.make)(2 * n));
        // Warm up once (lazy statics, first-use tables), then measure.
        let _ = (shape.run)(&small);
        let (b1, k1) = work(|| {
            for r in (shape.run)(&small) {
                assert_bounded(shape.name, &r);
            }
        });
        let (b2, k2) = work(|| {
            for r in (shape.run)(&large) {
                assert_bounded(shape.name, &r);
            }
        });
        let (rb, rk) = (b2 as f64 / b1.max(1) as f64, k2 as f64 / k1.max(1) as f64);
        table.push(format!("{:<48} n={n:>8}: {b1:>12} B {k1:>8} blocks; 2n: ×{rb:.2} bytes ×{rk:.2} blocks", shape.name));
        // Linear work doubles (a little less, for the fixed part); quadratic work quadruples.
        assert!(rb <= 2.25, "{}: bytes allocated ×{rb:.2} when the input doubles ({b1} → {b2})", shape.name);
        assert!(rk <= 2.25, "{}: allocations ×{rk:.2} when the input doubles ({k1} → {k2})", shape.name);
    }
    println!("{}", table.join("\n"));
}

#[test]
fn every_budget_rule_fires_once_with_the_count_of_what_was_left_out() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let input = common::hostile::unknown_fields(20_000);
    let options = poscheck::payload::PayloadOptions {
        limits: poscheck::json::Limits { max_diagnostics: 100, ..Default::default() },
        ..Default::default()
    };
    let r = poscheck::payload::validate_payload(&input, &options);
    let stop: Vec<_> = r.by_rule("payload/too-many-diagnostics").collect();
    assert_eq!(stop.len(), 1, "{:?}", r.diagnostics.iter().map(|d| d.rule_id).collect::<Vec<_>>());
    assert!(stop[0].message.starts_with("19900 more diagnostics were not listed"), "{}", stop[0].message);
    assert_eq!(r.diagnostics.len(), 101);
    assert!(!r.ok);

    let order = poscheck::order::check_order(
        &input,
        &poscheck::order::CheckOptions { limits: poscheck::json::Limits { max_diagnostics: 50, ..Default::default() } },
    );
    assert_eq!(order.by_rule("order/too-many-diagnostics").count(), 1);
    assert!(order.diagnostics.len() <= 51);

    // The default budget holds for every checker.
    for shape in SHAPES {
        for r in (shape.run)(&(shape.make)(shape.size / 8)) {
            assert_bounded(shape.name, &r);
        }
    }
}

#[test]
fn messages_quote_a_bounded_prefix_of_a_huge_value() {
    let input = common::hostile::long_value(5_000_000);
    let r = poscheck::payload::validate_payload(&input, &Default::default());
    let d = r.diagnostics.iter().find(|d| d.path == "event").expect("the event value is reported");
    assert!(d.message.len() <= poscheck::diagnostic::MAX_MESSAGE_BYTES, "{}", d.message.len());
    assert!(d.message.contains("bytes omitted"), "{}", d.message);
}

#[test]
fn depth_options_are_clamped_so_no_input_can_overflow_the_stack() {
    use poscheck::json::{parse, Arena, Limits, MAX_DEPTH};
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let huge = Limits { max_depth: usize::MAX, ..Limits::default() };
    assert!(parse(deep(MAX_DEPTH).as_bytes(), &huge, &Arena::new()).is_ok());
    assert_eq!(parse(deep(MAX_DEPTH + 1).as_bytes(), &huge, &Arena::new()).unwrap_err().code, "TOO_DEEP");
    // A zero depth means one level, not "nothing parses".
    assert!(parse(b"[]", &Limits { max_depth: 0, ..Limits::default() }, &Arena::new()).is_ok());
    let deep_menu = deep(200_000);
    let options = poscheck::menu::LintOptions { limits: huge, ..Default::default() };
    assert_eq!(poscheck::menu::lint(deep_menu.as_bytes(), &options).diagnostics[0].rule_id, "json/too-deep");
}

#[test]
fn related_pointers_are_exact_for_keys_with_special_characters() {
    let input = br#"{"a.b[0]/c~d": {"k": 1, "k": 2}}"#;
    let r = poscheck::payload::validate_payload(input, &Default::default());
    let d = r.by_rule("json/duplicate-key").next().expect("duplicate reported");
    assert_eq!(d.pointer, "/a.b[0]~1c~0d/k");
    assert_eq!(d.related[0].pointer, "/a.b[0]~1c~0d/k");
}

#[test]
fn numbers_past_2_pow_53_serialize_as_numbers() {
    let headers =
        poscheck::http::Headers::from_pairs([("X-Service-Timestamp", "9100000000000000"), ("X-Service-Signature-256", "sha256=00")]);
    let d = poscheck::signature::diagnose(b"{}", &headers, &[b"s".as_slice()], 1_786_492_800, 300);
    let json = serde_json::to_value(&d).unwrap();
    assert!(json["skewSeconds"].as_f64().unwrap() > 9.0e15, "{json}");
    let small = poscheck::signature::diagnose(
        b"{}",
        &poscheck::http::Headers::from_pairs([("X-Service-Timestamp", "1786492810")]),
        &[b"s".as_slice()],
        1_786_492_800,
        300,
    );
    assert_eq!(serde_json::to_value(&small).unwrap()["skewSeconds"].as_i64(), Some(10));
}

#[test]
fn too_many_secrets_are_refused_before_any_mac() {
    let secrets: Vec<Vec<u8>> = (0..1000).map(|i| format!("s{i}").into_bytes()).collect();
    let headers = poscheck::http::Headers::from_pairs([
        ("X-Service-Timestamp".to_string(), "1786492800".to_string()),
        ("X-Service-Signature-256".to_string(), format!("sha256={}", "0".repeat(64))),
    ]);
    let e = poscheck::signature::verify(&vec![b'x'; 4 << 20], &headers, &secrets, 1_786_492_800, 300).unwrap_err();
    assert_eq!(e.code(), "INVALID_SECRET");
    assert!(e.to_string().contains("16"), "{e}");
}
