//! The fuzzed entry points, shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`) and by the
//! stable regression replay (`tests/regressions.rs`, which includes this file with `#[path]`).
//!
//! Each function takes the raw fuzzer input, calls public entry points of `poscheck` the way a
//! caller would (CLI, wasm bindings, page) and panics when a property fails: a panic inside
//! poscheck, an output larger than [`max_output`] allows, a parser that disagrees with serde_json,
//! a signature that does not verify under the secret it was made with. Time and memory are not
//! checked here: libFuzzer's `-timeout` and `-rss_limit_mb` do that (see `fuzz/README.md`).
//!
//! Only `poscheck` and `serde_json` are used, so the root crate's tests can compile this file.

#![allow(dead_code)]

use poscheck::http::{self, Headers};
use poscheck::json::{self, Kind, Limits, Value};
use poscheck::menu::{self, LintOptions};
use poscheck::order::{self, Action, CheckOptions, ServiceTrigger};
use poscheck::payload::{self, PayloadKind, PayloadOptions, ProblemInput, Request};
use poscheck::signature;
use serde::Serialize;

/// The "now" of the fixtures (2026-08-12T00:00:00Z), unix seconds.
pub const NOW: i64 = 1_786_492_800;

/// Output allowed per input byte, plus a constant: a checker's serialized result must stay within
/// `OUTPUT_PER_BYTE * input + OUTPUT_BASE` bytes (linear in the input). The constant is the
/// report's text budget (`MAX_REPORT_TEXT_BYTES`, 16 MiB of messages, paths and pointers) plus
/// 4 MiB for the JSON around them (a full budget of 10,000 diagnostics).
pub const OUTPUT_PER_BYTE: usize = 256;
pub const OUTPUT_BASE: usize = poscheck::diagnostic::MAX_REPORT_TEXT_BYTES + (4 << 20);

pub fn max_output(input_len: usize) -> usize {
    OUTPUT_PER_BYTE.saturating_mul(input_len).saturating_add(OUTPUT_BASE)
}

/// Serializes `out` as the bindings would (JSON) and checks its size against the input's.
pub fn bounded<T: Serialize + ?Sized>(what: &str, input_len: usize, out: &T) {
    let mut count = Count(0);
    serde_json::to_writer(&mut count, out).unwrap_or_else(|e| panic!("{what}: the result does not serialize: {e}"));
    let n = count.0;
    assert!(n <= max_output(input_len), "{what}: {n} bytes of output for {input_len} bytes of input (limit {})", max_output(input_len));
}

/// Counts the bytes written (the size of the serialization, without keeping it).
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads fuzzer bytes as small numbers; past the end it yields zeros.
pub struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }
    pub fn u16(&mut self) -> u16 {
        u16::from(self.u8()) << 8 | u16::from(self.u8())
    }
    /// A size from 0 to `max`, log-uniform-ish (small sizes as likely as large ones).
    pub fn size(&mut self, max: usize) -> usize {
        let bits = (self.u8() % 24) as u32;
        let base = 1usize << bits;
        let n = base + (usize::from(self.u16()) * 31 + usize::from(self.u8())) % base;
        n.min(max)
    }
    pub fn rest(self) -> &'a [u8] {
        self.data
    }
}

/// The input up to the first NUL byte, and what follows it (if there is a NUL).
fn split_nul(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    }
}

// ---- json: the parser, differential against serde_json ------------------------------------------

/// Parses with poscheck's parser and with serde_json: both accept or both reject, and accepted
/// documents hold the same values (duplicate keys: the last value, at the first key's place, as
/// serde_json's `preserve_order` map does). Spans are checked to lie inside the input. The
/// duplicate keys poscheck reports (recorded and omitted) are those [`duplicate_keys_in`] finds in
/// the bytes: in every object, also in an object that a later duplicate key replaces (a
/// `serde_json::Value` keeps only the last value of a key, so it cannot be counted there).
///
/// Documented differences, not reported: poscheck tolerates a leading UTF-8 byte order mark (it is
/// stripped before serde_json sees the input); a long number may differ by a few ulps (serde_json's
/// default float parsing is not always the nearest f64, Rust's is); a number too large for f64 is ±inf for poscheck and
/// an error for serde_json; poscheck stops at its depth limit (64 by default, below serde_json's 128).
pub fn json(data: &[u8]) {
    let limits = Limits::default();
    let arena = json::Arena::for_input(data.len());
    let ours = json::parse(data, &limits, &arena);
    let theirs_input = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let theirs = serde_json::from_slice::<serde_json::Value>(theirs_input);
    match (&ours, &theirs) {
        (Ok(doc), Ok(v)) => {
            same_value(&doc.root, v, data.len());
            let expected = duplicate_keys_in(theirs_input)
                .unwrap_or_else(|e| panic!("oracle: serde_json accepts the input, its tokenizer fails on it: {e}"));
            let reported = doc.duplicate_keys.len() + doc.omitted_duplicate_keys;
            assert_eq!(reported, expected.len(), "duplicate keys reported (recorded + omitted) vs found in the bytes");
            if doc.omitted_duplicate_keys == 0 {
                let mut keys: Vec<&str> = doc.duplicate_keys.iter().map(|d| d.key.as_str()).collect();
                let mut found: Vec<&str> = expected.iter().map(String::as_str).collect();
                keys.sort_unstable();
                found.sort_unstable();
                assert_eq!(keys, found, "duplicated keys reported vs found in the bytes");
            }
            for d in &doc.duplicate_keys {
                assert!(d.first.end <= d.span.start && d.span.end <= data.len(), "duplicate key spans {d:?}");
            }
        }
        (Err(e), Ok(_)) => {
            assert!(e.code == "TOO_DEEP" || e.code == "TOO_LARGE", "poscheck rejects what serde_json accepts: {} ({})", e.message, e.code);
        }
        (Ok(doc), Err(e)) => {
            assert!(has_infinite(&doc.root), "poscheck accepts what serde_json rejects ({e})");
        }
        (Err(e), Err(_)) => {
            assert!(e.offset <= data.len(), "error offset {} past the input ({} bytes)", e.offset, data.len());
        }
    }
}

/// The duplicate keys of a JSON text, counted from its bytes (the oracle of [`json`]): the key of
/// every member whose object already had a member of that key, decoded (`"a"` and `"\u0061"` are one
/// key), in every object of the text, an object replaced by a later duplicate key included. The
/// text is read by serde_json's tokenizer (its `Deserializer`, not a `Value`: the visitor below
/// sees every member as it is read). Python's `json.loads(text, object_pairs_hook=…)` counts the
/// same (tests/regressions.rs compares them). An error where serde_json rejects the text.
pub fn duplicate_keys_in(text: &[u8]) -> Result<Vec<String>, serde_json::Error> {
    use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    use std::collections::HashSet;

    /// Visits one value and everything inside it, pushing the duplicated keys to `.0`.
    struct Dups<'c>(&'c mut Vec<String>);

    impl<'de> DeserializeSeed<'de> for Dups<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Dups<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_bool<E: Error>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E: Error>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E: Error>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E: Error>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E: Error>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E: Error>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(Dups(&mut *self.0))?.is_some() {}
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut keys = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value_seed(Dups(&mut *self.0))?;
                if let Some(key) = keys.replace(key) {
                    self.0.push(key);
                }
            }
            Ok(())
        }
    }

    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(text);
    Dups(&mut found).deserialize(&mut de)?;
    de.end()?;
    Ok(found)
}

fn has_infinite(v: &Value) -> bool {
    match &v.kind {
        Kind::Number(n) => !n.value.is_finite(),
        Kind::Array(items) => items.iter().any(has_infinite),
        Kind::Object(members) => members.iter().any(|m| has_infinite(&m.value)),
        _ => false,
    }
}

fn same_value(ours: &Value, theirs: &serde_json::Value, len: usize) {
    use serde_json::Value as J;
    assert!(ours.span.start <= ours.span.end && ours.span.end <= len, "span {:?} outside the input", ours.span);
    match (&ours.kind, theirs) {
        (Kind::Null, J::Null) => {}
        (Kind::Bool(a), J::Bool(b)) => assert_eq!(a, b),
        (Kind::String(a), J::String(b)) => assert_eq!(*a, b.as_str()),
        (Kind::Number(a), J::Number(b)) => {
            let f = b.as_f64().expect("serde_json numbers are f64-representable without arbitrary_precision");
            // serde_json (without its `float_roundtrip` feature) may round a long number to a
            // neighbour of the nearest f64; Rust's `str::parse` is exact. A few ulps apart is
            // accepted (integers that fit i64/u64 are compared exactly below).
            let close = (a.value - f).abs() <= 4.0 * f64::EPSILON * a.value.abs().max(f.abs());
            assert!(a.value == f || close, "number {} read as {} by poscheck, {f} by serde_json", a.raw, a.value);
            if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
                assert_eq!(x, y, "integer {}", a.raw);
            }
            if b.is_u64() || b.is_i64() {
                assert!(a.is_integer, "{} is an integer for serde_json", a.raw);
            }
        }
        (Kind::Array(a), J::Array(b)) => {
            assert_eq!(a.len(), b.len(), "array length");
            for (x, y) in a.iter().zip(b) {
                assert!(ours.span.start <= x.span.start && x.span.end <= ours.span.end, "element span outside its array");
                same_value(x, y, len);
            }
        }
        (Kind::Object(members), J::Object(map)) => {
            // Keys in first-occurrence order, each with its last value.
            let mut keys: Vec<&str> = Vec::new();
            for m in members.iter() {
                assert!(ours.span.start <= m.key_span.start && m.key_span.end <= m.value.span.start, "member key span");
                if !keys.contains(&m.key) {
                    keys.push(m.key);
                }
            }
            assert_eq!(keys.len(), map.len(), "object size");
            for (k, (mk, mv)) in keys.iter().zip(map) {
                assert_eq!(*k, mk.as_str(), "key order");
                let last = ours.get(k).expect("the key is there");
                same_value(last, mv, len);
            }
            // Earlier values of duplicated keys are parsed too: check their spans at least.
            for m in members.iter() {
                assert!(m.value.span.end <= ours.span.end, "member value span");
            }
        }
        (a, b) => panic!("poscheck read {a:?}, serde_json read {b:?}"),
    }
}

/// Diagnostics a checker may add past its `max_diagnostics` budget: the budget is checked between
/// steps, and one step (one product, one group) may add a few before the check stops the lint.
pub const BUDGET_SLACK: usize = 64;

// ---- menu ---------------------------------------------------------------------------------------

/// `menu::lint` with the default options, and with small budgets picked by the input's length so
/// that the budget paths (`menu/too-many-diagnostics`, `json/too-deep`) are reached too.
pub fn menu(data: &[u8]) {
    let options = match data.len() % 4 {
        0 => LintOptions { max_diagnostics: 1, ..LintOptions::default() },
        1 => LintOptions { max_diagnostics: 7, ..LintOptions::default() },
        2 => LintOptions { limits: Limits { max_depth: 4, ..Limits::default() }, ..LintOptions::default() },
        _ => LintOptions::default(),
    };
    let report = menu::lint(data, &options);
    assert!(
        report.diagnostics.len() <= options.max_diagnostics + BUDGET_SLACK,
        "{} diagnostics over a budget of {}",
        report.diagnostics.len(),
        options.max_diagnostics
    );
    bounded("menu::lint", data.len(), &report);
}

// ---- menu diff ----------------------------------------------------------------------------------

/// `<current: store menu read>NUL<next: submission>` → `menu::diff::diff`, with the default options
/// or small budgets (entries, diagnostics, depth) and odd thresholds picked by the input's length.
pub fn menu_diff(data: &[u8]) {
    let (current, next) = split_nul(data);
    let next = next.unwrap_or(b"");
    let d = menu::diff::DiffOptions::default();
    let options = match data.len() % 5 {
        0 => menu::diff::DiffOptions { max_entries: 1, max_diagnostics: 1, ..d },
        1 => menu::diff::DiffOptions { max_entries: 3, threshold: 0.0, ..d },
        2 => menu::diff::DiffOptions { limits: Limits { max_depth: 3, ..Limits::default() }, threshold: f64::NAN, ..d },
        3 => menu::diff::DiffOptions { max_diagnostics: 0, threshold: 1.0, ..d },
        _ => d,
    };
    let out = menu::diff::diff(current, next, &options);
    bounded("menu::diff::diff", data.len(), &out);
}

// ---- payload ------------------------------------------------------------------------------------

/// Options from an optional first line `@<kind>|<path>` (kind: a `PayloadKind` id or empty for
/// detection; path: a request path or empty for none); the rest is the payload.
pub fn payload_options(data: &[u8]) -> (PayloadOptions, &[u8]) {
    let mut options = PayloadOptions::default();
    let Some(rest) = data.strip_prefix(b"@") else { return (options, data) };
    let (line, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let line = String::from_utf8_lossy(line);
    let (kind, path) = line.split_once('|').unwrap_or((&line, ""));
    options.kind = PayloadKind::from_id(kind.trim());
    if !path.is_empty() {
        options.path = Some(path.to_string());
    }
    (options, body)
}

/// `payload::validate_payload` with the options of [`payload_options`], then
/// `payload::inspect` (detection of payload / request / response) on the same bytes.
pub fn payload(data: &[u8]) {
    let (options, body) = payload_options(data);
    let inspection = payload::inspect(body, &options, NOW);
    bounded("payload::inspect", body.len(), &inspection);
    // A payload (not an HTTP message) was just validated by `inspect`: do not validate it twice.
    let report = match inspection {
        payload::Inspection::Payload { report } if !http::looks_like_message(body) => report,
        _ => {
            let report = payload::validate_payload(body, &options);
            bounded("payload::validate_payload", body.len(), &report);
            report
        }
    };
    if let Some(k) = options.kind {
        assert_eq!(report.kind.as_deref(), Some(k.id()), "the kind given is the kind reported");
    }
}

// ---- request (raw HTTP message) -----------------------------------------------------------------

/// A raw HTTP request → `http::parse_message` → `Request::from_message` → `validate_request`.
pub fn request(data: &[u8]) {
    let Ok(msg) = http::parse_message(data) else { return };
    // A message without a request line: read it as a request to the path of the first header-less
    // guess, so that headers and body are still exercised.
    let request = Request::from_message(&msg, NOW).unwrap_or_else(|| {
        let mut m = msg.clone();
        m.method = Some("POST".into());
        m.path = Some("/api/v1/Orders/ord_7Hq2LmN9pQ4rS8tV/accept".into());
        Request::from_message(&m, NOW).expect("a request line was set")
    });
    let prediction = payload::validate_request(&request);
    assert!((100..600).contains(&prediction.status), "status {}", prediction.status);
    bounded("payload::validate_request", data.len(), &prediction);
}

// ---- problem ------------------------------------------------------------------------------------

/// A raw HTTP response → `ProblemInput::from_message` → `classify_problem`. Without a status line,
/// the headers and body are classified under a status picked by the input's length (400–599),
/// with and without a clock.
pub fn problem(data: &[u8]) {
    let Ok(msg) = http::parse_message(data) else { return };
    let now = if data.len() % 2 == 0 { Some(NOW) } else { None };
    let input = ProblemInput::from_message(&msg, now).unwrap_or_else(|| {
        let mut m = msg.clone();
        m.method = None;
        m.path = None;
        m.status = Some(400 + (data.len() % 200) as u16);
        ProblemInput::from_message(&m, now).expect("a status was set")
    });
    let c = payload::classify_problem(&input);
    assert_eq!(c.status, input.status);
    bounded("payload::classify_problem", data.len(), &c);
}

// ---- order --------------------------------------------------------------------------------------

const ACTIONS: &[&str] = &["accept", "reject", "preparing", "ready", "handed_over", "cancelled", "status:Ready", "status:"];

/// `<order JSON>[NUL<event JSON>]`: `check_order` on the order bytes; then, when the order is JSON,
/// every simulation entry point: `predict_action` (one action), `predict_request` (that action
/// with the bytes after the NUL as its body), `apply_trigger` (one trigger), `next_actions`,
/// `history_path`, and `apply_event` with the event (when given and JSON). The
/// action, the trigger and `now` (out-of-range values included) are picked by the input's length
/// and last byte.
pub fn order(data: &[u8]) {
    let (order_bytes, event_bytes) = split_nul(data);
    let report = order::check_order(order_bytes, &CheckOptions::default());
    bounded("order::check_order", order_bytes.len(), &report);
    let Ok(order) = serde_json::from_slice::<serde_json::Value>(order_bytes) else { return };
    // One action and one trigger per execution (picked by the input's length and last byte), so
    // that an execution stays short; over a campaign each is tried on every kind of order.
    let pick = data.len() + usize::from(data.last().copied().unwrap_or(0));
    let now = [NOW, 0, order::MAX_NOW, NOW + 86_400 * 365, -1, order::MAX_NOW + 1][pick % 6];
    let action = Action::parse(ACTIONS[pick % ACTIONS.len()]).expect("a known action");
    if let Ok(p) = order::predict_action(&order, &action, now) {
        bounded("order::predict_action", data.len(), &p);
    }
    if let Some(body) = event_bytes {
        // The bytes after the NUL double as the action's request body.
        if let Ok(p) = order::predict_request(&order, &action, Some(body), now) {
            bounded("order::predict_request", data.len(), &p);
        }
    }
    let trigger = ServiceTrigger::ALL[(pick / 7) % ServiceTrigger::ALL.len()];
    if let Ok(o) = order::apply_trigger(&order, trigger, now) {
        bounded("order::apply_trigger", data.len(), &o);
    }
    if let Ok(n) = order::next_actions(&order, now) {
        bounded("order::next_actions", data.len(), &n);
    }
    let path = order::history_path(&order);
    bounded("order::history_path", data.len(), &path);
    if let Some(Ok(event)) = event_bytes.map(serde_json::from_slice::<serde_json::Value>) {
        if let Ok(o) = order::apply_event(&order, &event) {
            bounded("order::apply_event", data.len(), &o);
        }
    }
}

// ---- signature ----------------------------------------------------------------------------------

/// `<secret>[NUL<secret>…]\n<raw HTTP message: headers, blank line, body>`. `verify` and
/// `diagnose` with the message's headers, at a `now` near the message's timestamp (picked by the
/// input's length); they must agree. Then the round trip: the body signed with the first secret at
/// that timestamp verifies, and `diagnose` says it is valid.
pub fn signature(data: &[u8]) {
    let (first, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let secrets: Vec<&[u8]> = first.split(|&b| b == 0).collect();
    let Ok(msg) = http::parse_message(rest) else { return };
    let ts = msg.headers.get(signature::HEADER_TIMESTAMP).and_then(|t| signature::parse_timestamp(t).ok()).unwrap_or(NOW as u64);
    let now = match data.len() % 4 {
        0 => ts,
        1 => ts.saturating_add(signature::DEFAULT_TOLERANCE_SECONDS + 1),
        2 => ts.saturating_sub(signature::DEFAULT_TOLERANCE_SECONDS),
        _ => u64::MAX,
    };
    let tolerance = if data.len() % 3 == 0 { 0 } else { signature::DEFAULT_TOLERANCE_SECONDS };
    let verified = signature::verify(&msg.body, &msg.headers, &secrets, now, tolerance);
    let diagnosis = signature::diagnose(&msg.body, &msg.headers, &secrets, now, tolerance);
    assert_eq!(verified.is_ok(), diagnosis.valid, "verify and diagnose disagree: {verified:?} / {diagnosis:?}");
    if let Err(e) = &verified {
        assert_eq!(Some(e.code()), diagnosis.code);
        assert!(signature::ERROR_CODES.contains(&e.code()), "undeclared code {}", e.code());
    }
    for f in &diagnosis.findings {
        assert!(signature::FINDING_CODES.contains(&f.code), "undeclared finding {}", f.code);
    }
    bounded("signature::diagnose", data.len(), &diagnosis);

    // Round trip with the first secret.
    let secret = secrets[0];
    match signature::sign(secret, ts, &msg.body) {
        Ok(sig) => {
            let mut headers = Headers::new();
            headers.push(signature::HEADER_TIMESTAMP, ts.to_string());
            headers.push(signature::HEADER_SIGNATURE, sig);
            let v = signature::verify(&msg.body, &headers, &[secret], ts, 0);
            assert!(v.is_ok(), "a body signed with the secret does not verify: {v:?}");
            let d = signature::diagnose(&msg.body, &headers, &[secret], ts, 0);
            assert!(d.valid && d.code.is_none(), "diagnose disagrees with sign: {d:?}");
        }
        Err(e) => assert!(secret.is_empty(), "sign failed with a non-empty secret: {e}"),
    }
}

// ---- http ---------------------------------------------------------------------------------------

/// `http::parse_message` and `http::looks_like_message`: a plain message's body is exactly the
/// bytes after the first empty line (a suffix of the input); a body read with a note (`curl -v`
/// output, where curl's next lines follow it, or trailing whitespace past Content-Length) is still
/// a slice of the input, unless a chunked body was decoded; header values carry no line break.
pub fn http(data: &[u8]) {
    let _ = http::looks_like_message(data);
    if let Ok(msg) = http::parse_message(data) {
        let decoded = msg.notes.iter().any(|n| n.contains("chunk(s) decoded"));
        if msg.notes.is_empty() {
            assert!(data.ends_with(&msg.body), "the body is not a suffix of the input");
        } else if !decoded {
            let slice = msg.body.is_empty() || data.windows(msg.body.len()).any(|w| w == msg.body.as_slice());
            assert!(slice, "the body is not a slice of the input: {:?}", msg.notes);
        }
        for (n, v) in msg.headers.pairs() {
            assert!(!n.contains('\n') && !v.contains('\n'), "a header holds a line break: {n:?}: {v:?}");
        }
        assert!(msg.method.is_none() || msg.status.is_none(), "both a request line and a status line");
    }
}

// ---- large: hostile shapes at size --------------------------------------------------------------

/// Largest generated input, bytes (the defaults of the checkers accept 64 MiB; this keeps one
/// execution short while still showing quadratic behaviour as a libFuzzer timeout).
pub const LARGE_MAX: usize = 2 << 20;

fn repeat_joined(item: impl Fn(usize) -> String, n: usize, sep: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push_str(sep);
        }
        s.push_str(&item(i));
    }
    s
}

fn key_char(b: u8) -> char {
    // Characters that need escaping in pointers or paths are included on purpose.
    const CHARS: &[u8] = b"k~/.[]\"0a-";
    CHARS[usize::from(b) % CHARS.len()] as char
}

fn json_key(c: char, n: usize) -> String {
    let piece = if c == '"' { "\\\"".to_string() } else { c.to_string() };
    piece.repeat(n)
}

/// Builds one hostile shape from the fuzzer's bytes (which shape, how long, how many) and runs
/// the checkers that read it. The shapes are those of issue 8: long key paths, many duplicate keys,
/// shared modifier groups with many extra keys, deep nesting, many unknown fields, long strings
/// echoed in messages, many secrets on a large body, many headers, a menu diff whose products
/// all share one remoteCode.
pub fn large(data: &[u8]) {
    let mut r = Reader::new(data);
    let shape = r.u8() % 10;
    let c = key_char(r.u8());
    let a = r.size(LARGE_MAX / 2);
    let b = r.size(LARGE_MAX / 8);
    let d = r.size(64);
    match shape {
        // A long key path (d levels, each key `a` long in total) over b duplicate keys.
        0 => {
            let seg = (a / d.max(1)).max(1);
            let mut s = String::new();
            for _ in 0..d {
                s.push_str(&format!("{{\"{}\":", json_key(c, seg)));
            }
            s.push('{');
            s.push_str(&repeat_joined(|_| "\"a\":1".into(), b, ","));
            s.push('}');
            s.push_str(&"}".repeat(d));
            run_documents(s.as_bytes());
        }
        // Shared modifier groups: `d + 2` products declare group G; the last one's option has b
        // extra keys, and the category has `a / 64` products with that group.
        1 => {
            let extra = repeat_joined(|i| format!("\"x{i}\":{i}"), b, ",");
            let group = |opt_extra: &str| {
                format!(
                    "{{\"remoteCode\":\"G\",\"name\":\"G\",\"min\":0,\"max\":1,\"type\":\"radio\",\"options\":[{{\"remoteCode\":\"O\",\"name\":\"O\",\"price\":0{}{}}}]}}",
                    if opt_extra.is_empty() { "" } else { "," },
                    opt_extra
                )
            };
            let products = (d + 2).max(a / 64).min(LARGE_MAX / 256);
            let body = repeat_joined(
                |i| {
                    let g = if i + 1 == products { group(&extra) } else { group("") };
                    format!("{{\"remoteCode\":\"P{i}\",\"name\":\"P\",\"price\":1,\"tax\":0.1,\"image\":\"https://x.test/p.png\",\"modifierGroups\":[{g}]}}")
                },
                products,
                ",",
            );
            let menu = format!("{{\"categories\":[{{\"remoteCode\":\"C\",\"name\":\"C\",\"position\":0,\"products\":[{body}]}}]}}");
            run_documents(menu.as_bytes());
        }
        // Deep nesting: arrays and objects up to (and past) the depth limit, with a custom limit
        // (any value: the parser clamps it to `json::MAX_DEPTH`).
        2 => {
            let depth = (a % (json::MAX_DEPTH + 100)) + 1;
            let s = if b % 2 == 0 {
                format!("{}{}", "[".repeat(depth), "]".repeat(depth))
            } else {
                format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
            };
            run_documents(s.as_bytes());
            let max_depth = match b % 4 {
                0 => usize::MAX,
                1 => 0,
                _ => b % (json::MAX_DEPTH + 100),
            };
            let limits = Limits { max_depth, ..Limits::default() };
            let report = menu::lint(s.as_bytes(), &LintOptions { limits, ..LintOptions::default() });
            bounded("menu::lint (max_depth)", s.len(), &report);
            let report = payload::validate_payload(s.as_bytes(), &PayloadOptions { limits, ..PayloadOptions::default() });
            bounded("payload::validate_payload (max_depth)", s.len(), &report);
            let report = order::check_order(s.as_bytes(), &CheckOptions { limits });
            bounded("order::check_order (max_depth)", s.len(), &report);
        }
        // Many unknown fields on an update event, an order detail and a request body.
        3 => {
            // At most LARGE_MAX bytes of fields (each about d + 12 bytes).
            let b = b.min(LARGE_MAX / (d + 12));
            let unknown = repeat_joined(|i| format!("\"u{}{i}\":{i}", json_key(c, d)), b, ",");
            let event = format!("{{\"orderKey\":\"ord_0123456789abcdEF\",\"remoteOrderId\":\"R-1\",\"event\":\"delivered\",\"occurredAt\":\"2026-08-12T00:00:00Z\",{unknown}}}");
            run_documents(event.as_bytes());
            let order = format!("{{\"orderKey\":\"ord_0123456789abcdEF\",\"status\":\"Pending\",\"history\":[],{unknown}}}");
            run_documents(order.as_bytes());
            let req = format!(
                "PUT /api/v1/Orders/ord_0123456789abcdEF/status HTTP/1.1\r\nX-Service-Api-Key: k\r\nIdempotency-Key: 6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10\r\nContent-Type: application/json\r\n\r\n{{\"status\":\"ready\",{unknown}}}"
            );
            request(req.as_bytes());
            let _ = payload::inspect(req.as_bytes(), &PayloadOptions::default(), NOW);
        }
        // Long strings where messages quote values.
        4 => {
            let long = json_key(c, a.max(1));
            let docs = [
                format!("{{\"orderKey\":\"{long}\",\"remoteOrderId\":\"{long}\",\"event\":\"{long}\",\"occurredAt\":\"{long}\"}}"),
                format!("{{\"type\":\"{long}\",\"title\":\"{long}\",\"status\":409,\"meta\":{{\"currentStatus\":\"{long}\",\"allowedTransitions\":[\"{long}\"]}}}}"),
                format!("{{\"categories\":[{{\"remoteCode\":\"{long}\",\"name\":1,\"position\":\"{long}\",\"products\":[{{\"remoteCode\":\"{long}\",\"image\":\"{long}\",\"type\":\"{long}\"}}]}}]}}"),
                format!("{{\"orderKey\":\"{long}\",\"status\":\"{long}\",\"history\":[{{\"fromStatus\":\"{long}\",\"toStatus\":\"{long}\",\"changedAt\":\"{long}\",\"actorType\":\"{long}\"}}]}}"),
            ];
            for doc in &docs {
                run_documents(doc.as_bytes());
            }
            let resp = format!("HTTP/1.1 409 Conflict\r\nRetry-After: {long}\r\nContent-Type: application/problem+json\r\n\r\n{}", docs[1]);
            problem(resp.as_bytes());
            let req = format!("POST /api/v1/Orders/{long}/accept?{long}=1 HTTP/1.1\r\nIdempotency-Key: {long}\r\nX-Service-Schema-Version: {long}\r\n\r\n{}", docs[0]);
            request(req.as_bytes());
        }
        // Many diagnostics: b broken elements where objects are expected.
        5 => {
            let items = repeat_joined(|_| "1".into(), b, ",");
            let docs = [
                format!("{{\"categories\":[{items}]}}"),
                format!("{{\"categories\":[{{\"remoteCode\":\"C\",\"name\":\"C\",\"position\":0,\"products\":[{items}]}}]}}"),
                format!("{{\"orderKey\":\"ord_0123456789abcdEF\",\"status\":\"Pending\",\"history\":[{items}]}}"),
                format!("{{\"message\":\"ok\",\"data\":{{\"items\":[{items}]}}}}"),
            ];
            for doc in &docs {
                run_documents(doc.as_bytes());
            }
        }
        // Many secrets on a large nested body, for `diagnose` (which re-serializes the body).
        6 => {
            let depth = (d % 60) + 1;
            let width = (a / 8).clamp(1, LARGE_MAX / 8);
            let inner = repeat_joined(|i| format!("{{\"k{i}\": [1, 2.50, \"x\"]}}"), width / 16 + 1, ",");
            let body = format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth));
            let secrets: Vec<String> = (0..(b % 64) + 1).map(|i| format!("whsec_{i}")).collect();
            let mut headers = Headers::new();
            headers.push(signature::HEADER_TIMESTAMP, NOW.to_string());
            headers.push(signature::HEADER_SIGNATURE, format!("sha256={}", "0".repeat(64)));
            let diagnosis = signature::diagnose(body.as_bytes(), &headers, &secrets, NOW as u64, 300);
            assert!(!diagnosis.valid);
            bounded("signature::diagnose", body.len(), &diagnosis);
        }
        // Many headers, repeated names and long values, in a request and a problem response.
        7 => {
            let value = json_key(c, d.max(1) * 16);
            // At most LARGE_MAX bytes of headers, like every other shape (b lines of ~value bytes).
            let b = b.min(LARGE_MAX / (value.len() + 24));
            let headers =
                repeat_joined(|i| if i % 2 == 0 { format!("Idempotency-Key: {value}{i}") } else { format!("X-H{i}: {value}") }, b, "\r\n");
            let req = format!("POST /api/v1/Orders/ord_0123456789abcdEF/accept HTTP/1.1\r\n{headers}\r\n\r\n{{}}");
            http(req.as_bytes());
            request(req.as_bytes());
            let resp = format!("HTTP/1.1 429 Too Many Requests\r\n{headers}\r\n\r\n{{}}");
            problem(resp.as_bytes());
        }
        // Menu diff: b products on each side, every one with the same remoteCode (and the store
        // side with the same code), so that matching meets only ambiguous candidates; d groups each.
        9 => {
            let products = b.min(LARGE_MAX / 512);
            let groups =
                repeat_joined(|g| format!("{{\"remoteCode\":\"G{g}\",\"name\":\"G\",\"min\":0,\"max\":1,\"options\":[]}}"), d % 8, ",");
            let cur = repeat_joined(
                |i| {
                    format!("{{\"code\":\"prd_1\",\"categoryCode\":\"cat_1\",\"name\":\"P{i}\",\"price\":1,\"remoteCode\":\"P\",\"modifierGroups\":[{groups}]}}")
                },
                products,
                ",",
            );
            let next = repeat_joined(
                |i| format!("{{\"remoteCode\":\"P\",\"name\":\"P{i}\",\"price\":2,\"modifierGroups\":[{groups}]}}"),
                products,
                ",",
            );
            let current = format!("{{\"categories\":[{{\"code\":\"cat_1\",\"name\":\"C\",\"position\":0,\"products\":[{cur}]}}]}}");
            let next = format!("{{\"categories\":[{{\"remoteCode\":\"C\",\"name\":\"C\",\"position\":0,\"products\":[{next}]}}]}}");
            let out = menu::diff::diff(current.as_bytes(), next.as_bytes(), &menu::diff::DiffOptions::default());
            bounded("menu::diff::diff", current.len() + next.len(), &out);
        }
        // Duplicate keys at every level of a deep path (d levels, b duplicates each).
        _ => {
            let dup = repeat_joined(|_| "\"a\":1".into(), b / d.max(1) + 1, ",");
            let mut s = String::new();
            for _ in 0..d {
                s.push_str(&format!("{{{dup},\"{}\":", json_key(c, (a / d.max(1)).max(1) % 4096)));
            }
            s.push('1');
            s.push_str(&"}".repeat(d));
            run_documents(s.as_bytes());
        }
    }
}

/// The JSON checkers on one document: menu lint, payload validation (detected and as an update
/// event), order check, inspection; each output bounded.
fn run_documents(doc: &[u8]) {
    let report = menu::lint(doc, &LintOptions::default());
    assert!(report.diagnostics.len() <= LintOptions::default().max_diagnostics + BUDGET_SLACK);
    bounded("menu::lint", doc.len(), &report);
    let report = payload::validate_payload(doc, &PayloadOptions::default());
    bounded("payload::validate_payload", doc.len(), &report);
    let options = PayloadOptions { kind: Some(PayloadKind::OrderUpdateEvent), ..PayloadOptions::default() };
    let report = payload::validate_payload(doc, &options);
    bounded("payload::validate_payload (orderUpdateEvent)", doc.len(), &report);
    let report = order::check_order(doc, &CheckOptions::default());
    bounded("order::check_order", doc.len(), &report);
}

// ---- sandbox (the service model's REST handler, stateful) -------------------------------------

/// The service model ([`poscheck::service::Service`]) with two orders (one accepted), then every
/// NUL-separated part of the input as a raw HTTP request to `handle` (with the first client's key
/// unless the message has its own), each also tried as a control, with the clock moved and the due
/// deliveries answered by the input's bytes between requests; the menu's controls (seed, injected
/// failures) take the same bytes. Every answer is an HTTP status with a
/// JSON body (an envelope or an RFC 7807 problem), bounded by the input's size; the journal keeps
/// what was sent and answered, REST calls and delivery attempts under one increasing sequence.
pub fn sandbox(data: &[u8]) {
    use poscheck::service::{Request as RestRequest, Service};
    const MS: i64 = NOW * 1000;
    let mut sb = Service::new(None, Default::default(), u64::from(data.first().copied().unwrap_or(0))).expect("the default config");
    let key = sb.config().clients[0].api_key.clone();
    let mut now = MS;
    for _ in 0..2 {
        sb.control_json(r#"{"action":"createOrder"}"#, now).expect("an order");
    }
    for a in sb.due(now, NOW) {
        sb.answered(a.attempt, 200, br#"{"remoteOrderId":"R-1"}"#, 5, now);
    }
    let first = sb.orders()[0].order.order_key.clone();
    for (i, part) in data.split(|&b| b == 0).enumerate().take(64) {
        let msg = http::parse_message(part).ok();
        let (method, path, headers, body) = match &msg {
            Some(m) => (
                m.method.clone().unwrap_or_else(|| "POST".into()),
                m.path.clone().unwrap_or_else(|| format!("/api/v1/Orders/{first}/accept")),
                m.headers.clone(),
                m.body.clone(),
            ),
            None => ("PUT".into(), format!("/api/v1/Orders/{first}/status"), Headers::new(), part.to_vec()),
        };
        let h = |name: &str| headers.get(name).map(str::to_string);
        let api_key = h("X-Service-Api-Key").or_else(|| Some(key.clone()));
        let (version, idem, content_type) = (h("X-Service-Schema-Version"), h("Idempotency-Key"), h("Content-Type"));
        let request = RestRequest {
            method: &method,
            target: &path,
            api_key: api_key.as_deref(),
            schema_version: version.as_deref(),
            idempotency_key: idem.as_deref(),
            content_type: content_type.as_deref(),
            body: &body,
        };
        let answer = sb.handle(&request, now);
        sb.record_call(&request, &answer, now);
        let logged = sb.journal().calls().last().expect("the call just recorded");
        assert_eq!((logged.method, logged.target, logged.status), (method.as_str(), path.as_str(), answer.status));
        assert_eq!(logged.body, &body[..body.len().min(poscheck::service::journal::MAX_BODY)]);
        assert_eq!(logged.seq, sb.journal().last_seq(), "the call is the newest entry");
        assert!((200..600).contains(&answer.status), "status {}", answer.status);
        let parsed: serde_json::Value = serde_json::from_slice(&answer.body).unwrap_or_else(|e| panic!("the answer is not JSON: {e}"));
        if answer.status >= 400 {
            assert_eq!(parsed["status"], answer.status, "a problem carries its status: {parsed}");
        } else {
            assert!(parsed.get("data").is_some(), "a 2xx answer is an envelope: {parsed}");
        }
        bounded("service::handle", part.len() + 64 * 1024, &answer);
        let _ = sb.control_json(&String::from_utf8_lossy(&body), now);
        // The same bytes as a control request (`/_sandbox/…`, issue 39): routed and answered by
        // the core, whatever the method, path and body; every reply is a JSON status answer.
        let face = poscheck::service::controls::Face {
            url: "http://127.0.0.1:8787".into(),
            manual_clock: i % 2 == 0,
            closed: i % 5 == 4,
            access: poscheck::service::controls::guard::Access {
                bind_host: "127.0.0.1".into(),
                port: 8787,
                allowed_hosts: vec!["pos.test".into()],
            },
        };
        // The guard (issue 45) on the same bytes as Host and Origin headers: a verdict, never a
        // panic; a refusal is a 403 problem document and runs nothing.
        let text = String::from_utf8_lossy(&body[..body.len().min(1024)]).into_owned();
        let (host, origin) = text.split_once('\n').unwrap_or((&text, ""));
        let before = sb.journal().last_seq();
        let guarded =
            poscheck::service::controls::handle_http(&mut sb, &face, "POST", "/_sandbox/reset", Some(host), Some(origin), b"{}", now, NOW);
        if face.access.check(true, Some(host), Some(origin)).is_err() {
            assert_eq!(guarded.status, 403);
            assert!(guarded.problem);
            serde_json::from_str::<serde_json::Value>(&guarded.body).expect("the refusal is JSON");
            assert_eq!(sb.journal().last_seq(), before, "a refused control runs nothing");
        }
        let target = if path.starts_with(poscheck::service::controls::PREFIX) {
            path.clone()
        } else {
            format!("{}{path}", poscheck::service::controls::PREFIX)
        };
        let reply = poscheck::service::controls::handle(&mut sb, &face, &method, &target, &body, now, NOW);
        assert!((200..600).contains(&reply.status), "control status {}", reply.status);
        // An empty body is the face's to write (the answer after the effect).
        if reply.body.is_empty() {
            assert_ne!(reply.effect, poscheck::service::controls::FaceEffect::None, "an empty answer with nothing for the face to do");
        } else {
            serde_json::from_str::<serde_json::Value>(&reply.body).unwrap_or_else(|e| panic!("the control's answer is not JSON: {e}"));
        }
        bounded("service::controls::handle", part.len() + 256 * 1024, &reply.body);
        // The menu's controls take the same bytes: a seed, a store made to fail or not.
        let _ = sb.seed_menu(None, &body);
        let _ = sb.fail_menu_changes(
            "STORE-1",
            (i % 3 == 0).then(|| (i % 2 == 0).then(|| String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned())),
        );
        now += i64::from(part.first().copied().unwrap_or(1)) * 7_000;
        let status = [200, 500, 0, 404][i % 4];
        for a in sb.due(now, NOW) {
            sb.answered(a.attempt, status, &body, (i * 1000) as u64, now);
        }
        // The journal: one sequence, increasing, across REST calls and attempts; a page after any
        // seq is JSON and starts past it.
        let seqs: Vec<u64> = sb.journal().entries().map(|e| e.seq()).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "the journal's seqs increase");
        let after = seqs.get(seqs.len() / 2).copied().unwrap_or(0);
        let page: serde_json::Value = serde_json::from_str(&sb.journal().page_json(after)).expect("a page is JSON");
        assert!(page["entries"].as_array().expect("entries").iter().all(|e| e["seq"].as_u64() > Some(after)));
    }
    bounded("service::export_state", data.len() + 256 * 1024, &sb.export_state());
    bounded("service::journal", data.len() * 3 + 256 * 1024, &sb.journal().to_json(0));
}

/// A fuzz target: its name and the function that checks one input.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by the name of its directory under `tests/fixtures/regressions/`.
pub const TARGETS: &[Target] = &[
    ("json", json),
    ("menu", menu),
    ("menu_diff", menu_diff),
    ("payload", payload),
    ("request", request),
    ("problem", problem),
    ("order", order),
    ("signature", signature),
    ("http", http),
    ("large", large),
    ("sandbox", sandbox),
];
