//! JS bindings: each export converts its arguments, calls the core, converts the result.
//! No contract logic lives here. The hand-written package facade (`pkg/src/api.js`) normalizes
//! JS types (string / Buffer / ArrayBuffer bodies, header objects, `now` defaulting) and turns
//! thrown errors into `WebhookVerificationError` / `PoscheckError` instances.

// Each module of the package has its features (Cargo.toml): `webhook` the webhook exports (the
// package's webhook-only module), `toolkit` every checker on top (the toolkit), `menu` the menu
// linter and the diff alone (`poscheck/menu`), `sandbox` the service model (src/wasm/sandbox.rs)
// and the probe (src/wasm/probe.rs).
// A module without some of them leaves the helpers of the others unused.
#![cfg_attr(not(all(feature = "toolkit", feature = "webhook")), allow(dead_code))]

use crate::{http, signature};
use js_sys::{Error, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

// One file per module of the package, each compiled with the feature that module is built with
// (every export keeps its own `#[cfg]` too): the webhook module's exports, the toolkit's, the menu
// module's and the sandbox's. This file holds what they share: the conversions, and the buffer
// the webhook exports share with the facade.
#[cfg(any(feature = "toolkit", feature = "menu"))]
mod menu;
/// The probe's bindings, in the sandbox's module: the plan of a run, its graders and reports.
#[cfg(feature = "sandbox")]
mod probe;
/// The sandbox's module (`poscheck/sandbox`): the service model for the face in Node.
#[cfg(feature = "sandbox")]
mod sandbox;
#[cfg(feature = "toolkit")]
mod toolkit;
#[cfg(feature = "webhook")]
mod webhook;

#[cfg(any(feature = "toolkit", feature = "menu"))]
pub use menu::*;
#[cfg(feature = "sandbox")]
pub use sandbox::cli_rules;
#[cfg(feature = "toolkit")]
pub use toolkit::*;
#[cfg(feature = "webhook")]
pub use webhook::*;

/// Serializes to plain JS objects (no `Map`) through JSON text: serde_json writes it and the
/// engine's `JSON.parse` builds the objects. One serializer for every result type (the reports and
/// the CLI already use serde_json) keeps the module smaller than a second, object-building
/// serializer would, and `JSON.parse` builds objects faster than field-by-field calls across the
/// boundary.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    parse_json(serde_json::to_string(value))
}

/// [`to_js`] once serialized: one copy of it for every result type.
fn parse_json(text: serde_json::Result<String>) -> Result<JsValue, JsValue> {
    let text = text.map_err(|e| error("INTERNAL", &crate::diagnostic::bounded(format!("could not convert the result: {e}")), None))?;
    js_sys::JSON::parse(&text)
}

/// A report as text, for the facade to turn into an object: a clean report (no diagnostic) is
/// just its kind (often all a valid payload needs: the facade builds the object, nothing is
/// serialized); any other is its JSON, which `JSON.parse` reads faster than objects built field by
/// field across the boundary.
fn report_text(report: &crate::diagnostic::Report) -> Result<String, JsValue> {
    if report.diagnostics.is_empty() {
        return Ok(report.kind.clone().unwrap_or_default());
    }
    serde_json::to_string(report).map_err(|e| error("INTERNAL", &format!("could not convert the result: {e}"), None))
}

/// A JS `Error` with `code` (and `httpStatus`), which the facade rethrows as its own class.
fn error(code: &str, message: &str, http_status: Option<u16>) -> JsValue {
    let e = Error::new(message);
    e.set_name("PoscheckError");
    let _ = Reflect::set(&e, &"code".into(), &code.into());
    if let Some(s) = http_status {
        let _ = Reflect::set(&e, &"httpStatus".into(), &JsValue::from(s));
    }
    e.into()
}

fn webhook_error(e: &signature::WebhookError) -> JsValue {
    error(e.code(), &e.to_string(), Some(e.http_status()))
}

/// `[name, value, name, value, …]` (flat, as the facade sends them) → headers.
fn headers(flat: Vec<String>) -> http::Headers {
    let mut h = http::Headers::new();
    let mut it = flat.into_iter();
    while let (Some(n), Some(v)) = (it.next(), it.next()) {
        h.push(n, v);
    }
    h
}

/// A JS number of seconds → u64; `what` names the argument in the error.
fn seconds(value: f64, what: &str) -> Result<u64, JsValue> {
    if value.is_finite() && (0.0..=9_007_199_254_740_991.0).contains(&value) {
        Ok(value.trunc() as u64)
    } else {
        Err(error("INVALID_ARGUMENT", &format!("{what} must be a non-negative number of seconds"), None))
    }
}

/// The header text the facade wrote with `TextEncoder` (so always UTF-8 from it).
fn header_text(text: &[u8]) -> Result<&str, JsValue> {
    std::str::from_utf8(text).map_err(|_| error("INVALID_ARGUMENT", "the header text must be UTF-8", None))
}

/// How many sets of HMAC keys the module keeps (see [`set_mac_keys`]): one per account or secret
/// rotation a process verifies for, the least recently set replaced first by the facade.
const MAC_KEY_SETS: usize = 16;

/// The layout of the buffer the facade and the core share for verifyWebhook (see [`io_buffer`]):
/// the header text from 0 (at most `IO_TEXT` bytes); from `IO_HASHES`, one 32-byte inner hash per
/// secret (Node's path, see [`finish_io`]); from `IO_FOUND`, four u32 LE the core writes (the index
/// of the matching secret, the index + 1 of the `X-Service-Delivery-Id` and `X-Service-Event-Type`
/// values among the pairs or 0 when absent, the length of the signed prefix or u32::MAX when it is
/// longer than `IO_PREFIX_MAX`); from `IO_PREFIX`, the signed prefix.
const IO_TEXT: usize = 4096;
const IO_HASHES: usize = IO_TEXT;
const IO_FOUND: usize = IO_HASHES + 32 * signature::MAX_SECRETS;
const IO_PREFIX: usize = IO_FOUND + 16;
const IO_PREFIX_MAX: usize = 64;
const IO_BYTES: usize = IO_PREFIX + IO_PREFIX_MAX;

/// A set of kept HMAC keys, with the stamp [`set_mac_keys`] gave it.
struct KeySet {
    stamp: u32,
    keys: Vec<signature::MacKey>,
}

/// What [`verify_io`] and [`check_io`] return instead of a timestamp when the facade must take
/// the general path: the header text has more lines than names and values (one held a line feed,
/// so the pairs would shift), or the keys of the set were made again since the facade's stamp
/// (another facade over the same module reused the set).
const IO_LINE_FEED: f64 = -1.0;
const IO_KEYS_REPLACED: f64 = -2.0;

thread_local! {
    static MAC_KEYS: std::cell::RefCell<[KeySet; MAC_KEY_SETS]> =
        const { std::cell::RefCell::new([const { KeySet { stamp: 0, keys: Vec::new() } }; MAC_KEY_SETS]) };
    /// The last stamp given by [`set_mac_keys`].
    static STAMP: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// A static (the module has one thread): its address never changes, and the facade holds a view of it.
    static IO: std::cell::UnsafeCell<[u8; IO_BYTES]> = const { std::cell::UnsafeCell::new([0; IO_BYTES]) };
    /// Between [`check_io`] and [`finish_io`]: the key set, its stamp and the MAC the signature carries.
    static PENDING: std::cell::Cell<Option<(u32, u32, [u8; 32])>> = const { std::cell::Cell::new(None) };
}

/// `[IO_TEXT, IO_HASHES, IO_FOUND, IO_PREFIX, IO_PREFIX_MAX, MAC_KEY_SETS, MAX_SECRETS,
/// IO_LINE_FEED, IO_KEYS_REPLACED, REPORT_KEPT, IO_GENERAL]`, read once by the facade, so that the
/// layout and the numbers the facade must agree on are written down in one place.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = ioLayout)]
pub fn io_layout() -> Vec<f64> {
    let sizes = [IO_TEXT, IO_HASHES, IO_FOUND, IO_PREFIX, IO_PREFIX_MAX, MAC_KEY_SETS, signature::MAX_SECRETS];
    let answers = [IO_LINE_FEED, IO_KEYS_REPLACED, f64::from(REPORT_KEPT), f64::from(IO_GENERAL)];
    sizes.map(|n| n as f64).into_iter().chain(answers).collect()
}

/// A view of the shared buffer: writing the header text there (`TextEncoder.encodeInto`) and
/// reading the results back costs no allocation and no copy across the boundary, where arguments
/// and results that cross cost about as much as the HMAC of a small body. The view is detached
/// (its length becomes 0) when the module's memory grows: the facade then asks again.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = ioBuffer)]
pub fn io_buffer() -> js_sys::Uint8Array {
    // The buffer lives as long as the module and never moves.
    let at = IO.with(|io| io.get() as usize as u32);
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    js_sys::Uint8Array::new_with_byte_offset_and_length(&memory.buffer(), at, IO_BYTES as u32)
}

/// Runs `f` on the shared buffer, split into the header text (its first `text_len` bytes, which
/// must be UTF-8) and the results area (from `IO_HASHES`).
fn with_io<R>(text_len: u32, f: impl FnOnce(&str, &mut [u8]) -> Result<R, JsValue>) -> Result<R, JsValue> {
    with_io_bytes(text_len, |text, out| f(header_text(text)?, out))
}

/// [`with_io`] on bytes: the first `len` bytes of the text area, whatever they hold (a payload, for
/// [`validate_payload_io`], whose parser reports invalid UTF-8 at its byte).
///
/// The one `unsafe` of the crate: JS writes this buffer between calls, so it is an `UnsafeCell`,
/// and a copy of the text out of it on every call would cost more than the crossing it saves.
#[allow(unsafe_code)]
fn with_io_bytes<R>(len: u32, f: impl FnOnce(&[u8], &mut [u8]) -> Result<R, JsValue>) -> Result<R, JsValue> {
    IO.with(|io| {
        // SAFETY: only the exports of this module reach the buffer from Rust, each through this
        // function, one call at a time and never re-entered: this is the only reference to it
        // while `f` runs. The only JS that runs meanwhile makes error objects, and never touches
        // the buffer.
        let io = unsafe { &mut *io.get() };
        let (text, out) = io.split_at_mut(IO_TEXT);
        let text = text.get(..len as usize).ok_or_else(|| error("INVALID_ARGUMENT", "the text is longer than the buffer", None))?;
        f(text, &mut out[..])
    })
}

/// Writes a u32 LE at `at` of the results area (an offset of the whole buffer).
fn put_u32(out: &mut [u8], at: usize, value: u32) {
    out[at - IO_HASHES..at - IO_HASHES + 4].copy_from_slice(&value.to_le_bytes());
}

/// The keys of set `set` for `f`, when the set still has the stamp `stamp`; `None` when its keys
/// were made again since.
fn with_keys<R>(set: u32, stamp: u32, f: impl FnOnce(&[signature::MacKey]) -> Result<R, JsValue>) -> Result<Option<R>, JsValue> {
    MAC_KEYS.with(|sets| {
        let sets = sets.borrow();
        let chosen = sets.get(set as usize).ok_or_else(no_such_set)?;
        if chosen.stamp != stamp {
            return Ok(None);
        }
        f(&chosen.keys).map(Some)
    })
}

/// The error of a key set number past the [`MAC_KEY_SETS`] the module keeps.
fn no_such_set() -> JsValue {
    error("INVALID_ARGUMENT", &format!("set must be below {MAC_KEY_SETS}"), None)
}

/// The part [`verify_io`] and [`check_io`] share: `f` gets the keys of set `set`, the service
/// headers of the header text in the shared buffer and the results area, unless the set's keys
/// were made again since `stamp` (`IO_KEYS_REPLACED`) or the text has more lines than the facade
/// joined (`IO_LINE_FEED`: a name or value held a line feed, so the pairs would shift).
fn with_io_headers(
    text_len: u32,
    lines: u32,
    set: u32,
    stamp: u32,
    f: impl FnOnce(&[signature::MacKey], &signature::ServiceHeaders<'_>, &mut [u8]) -> Result<f64, JsValue>,
) -> Result<f64, JsValue> {
    let answer = with_keys(set, stamp, |keys| {
        with_io(text_len, |text, out| {
            let (found, counted) = text_headers(text);
            if counted != lines as usize {
                return Ok(IO_LINE_FEED);
            }
            f(keys, &found, out)
        })
    })?;
    Ok(answer.unwrap_or(IO_KEYS_REPLACED))
}

/// The secret index and the header positions of a verification, into the results area.
fn put_found(out: &mut [u8], secret_index: u32, found: &signature::ServiceHeaders<'_>) {
    put_u32(out, IO_FOUND, secret_index);
    put_u32(out, IO_FOUND + 4, found.delivery_id_position());
    put_u32(out, IO_FOUND + 8, found.event_type_position());
}

/// The service headers of `name\nvalue\nname\nvalue…` (read in one pass, nothing allocated), and
/// the number of lines of the text.
fn text_headers(text: &str) -> (signature::ServiceHeaders<'_>, usize) {
    let mut lines = 0;
    let mut rest = Some(text);
    let mut line = || {
        let r = rest?;
        lines += 1;
        match r.bytes().position(|b| b == b'\n') {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    };
    let found = signature::ServiceHeaders::find(std::iter::from_fn(|| Some((line()?, line()?))));
    (found, lines)
}

/// Limits from the options, clamped by the core to what the wasm stack can hold.
fn limits(max_depth: Option<u32>, max_bytes: Option<u32>, max_diagnostics: Option<u32>) -> crate::json::Limits {
    let d = crate::json::Limits::default();
    crate::json::Limits {
        max_depth: max_depth.map_or(d.max_depth, |v| v as usize),
        max_bytes: max_bytes.map_or(d.max_bytes, |v| v as usize),
        max_diagnostics: max_diagnostics.map_or(d.max_diagnostics, |v| (v as usize).max(1)),
    }
    .clamped()
}

fn payload_options(
    kind: Option<String>,
    path: Option<String>,
    max_depth: Option<u32>,
    max_bytes: Option<u32>,
    max_diagnostics: Option<u32>,
) -> Result<crate::payload::PayloadOptions, JsValue> {
    let kind = match kind.as_deref() {
        None | Some("") | Some("auto") => None,
        Some(k) => {
            let parsed = crate::payload::PayloadKind::from_id(k);
            if let Some(kind) = parsed.filter(|kind| KINDS.contains(kind)) {
                Some(kind)
            } else {
                let known = kind_list();
                // A kind of the contract that this build does not check: the webhook-only one.
                let message = match parsed {
                    Some(_) => format!("payload kind \"{k}\" is not checked by poscheck/webhook, which checks the webhook payloads ({known}): import poscheck for every kind"),
                    None => format!("unknown payload kind \"{k}\": expected one of {known}"),
                };
                return Err(error("INVALID_ARGUMENT", &crate::diagnostic::bounded(message), None));
            }
        }
    };
    Ok(crate::payload::PayloadOptions { kind, path, limits: limits(max_depth, max_bytes, max_diagnostics) })
}

thread_local! {
    /// The text of the last report `validatePayload` kept for `takeReport`.
    static KEPT_REPORT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// `validatePayload` answers with a number, so that a clean payload costs no report at all:
/// [`REPORT_KEPT`] when there are diagnostics (their report's JSON waits for `takeReport`), else
/// the kind checked as 1 + its index in `payloadKinds()`.
const REPORT_KEPT: u32 = u32::MAX;

/// What [`validate_payload_io`] answers when the facade must take the general path
/// (`validatePayload`, which says why): a kind number it does not know, a length past the buffer.
const IO_GENERAL: u32 = u32::MAX - 1;

/// The kinds `validatePayload` checks, in `payloadKinds()` order: every kind in the toolkit; the
/// webhook payloads in the webhook-only build (`poscheck/webhook`, which has no other checker).
#[cfg(feature = "toolkit")]
const KINDS: &[crate::payload::PayloadKind] = crate::payload::PayloadKind::ALL;
#[cfg(not(feature = "toolkit"))]
const KINDS: &[crate::payload::PayloadKind] = crate::payload::PayloadKind::WEBHOOK;

/// The ids of [`KINDS`], for error messages: `orderUpdateEvent, menuChangeCompleted, …`.
fn kind_list() -> String {
    KINDS.iter().map(|k| k.id()).collect::<Vec<_>>().join(", ")
}

/// `validatePayload`'s answer for `input`: by every checker in the toolkit, by the webhook
/// checkers alone in the webhook-only build (any other kind is reported as not checked there).
fn outcome(input: &[u8], options: &crate::payload::PayloadOptions) -> crate::payload::Outcome {
    #[cfg(feature = "toolkit")]
    return crate::payload::validate_payload_outcome(input, options);
    #[cfg(not(feature = "toolkit"))]
    return crate::payload::validate_webhook_payload_outcome(input, options);
}

/// The payload kind numbered `number`, as kinds cross both ways: 1 + its index in
/// `payloadKinds()` (0 is none).
fn kind_by_number(number: u32) -> Option<crate::payload::PayloadKind> {
    KINDS.get(number.checked_sub(1)? as usize).copied()
}

/// `kind`'s number (see [`kind_by_number`]).
fn number_of_kind(kind: crate::payload::PayloadKind) -> u32 {
    KINDS.iter().position(|x| *x == kind).map_or(0, |i| i as u32 + 1)
}

/// The number `validatePayload` answers for `outcome`, its report kept when there is one.
fn kept_answer(outcome: crate::payload::Outcome) -> Result<u32, JsValue> {
    use crate::payload::Outcome;
    match outcome {
        Outcome::Clean(kind) => Ok(number_of_kind(kind)),
        Outcome::Report(report) => {
            KEPT_REPORT.set(report_text(&report)?);
            Ok(REPORT_KEPT)
        }
    }
}

// ---- the command line, for the npm package's `poscheck` bin ---------------------------------------
// The bin parses arguments and reads files in JS; what each command prints and its exit status
// come from `crate::cli`, as for the native binary.

fn cli_output(out: &crate::cli::Output) -> Result<JsValue, JsValue> {
    to_js(out)
}
