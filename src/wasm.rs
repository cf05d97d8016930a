//! JS bindings: each export converts its arguments, calls the core, converts the result.
//! No contract logic lives here. The hand-written package facade (`pkg/src/api.js`) normalizes
//! JS types (string / Buffer / ArrayBuffer bodies, header objects, `now` defaulting) and turns
//! thrown errors into `WebhookVerificationError` / `PoscheckError` instances.

// Each module of the package has its features (Cargo.toml): `webhook` the webhook exports (the
// package's webhook-only module), `toolkit` every checker on top (the toolkit), `menu` the menu
// linter and the diff alone (`poscheck/menu`), `sandbox` the service model (src/wasm/sandbox.rs).
// A module without some of them leaves the helpers of the others unused.
#![cfg_attr(not(all(feature = "toolkit", feature = "webhook")), allow(dead_code))]

use crate::{http, signature};
use js_sys::{Error, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

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

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = signWebhook)]
pub fn sign_webhook(secret: &str, timestamp: &str, body: &[u8]) -> Result<String, JsValue> {
    let ts = signature::parse_timestamp(timestamp).map_err(|e| webhook_error(&e))?;
    signature::sign(secret.as_bytes(), ts, body).map_err(|e| webhook_error(&e))
}

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = verifyWebhook)]
pub fn verify_webhook(body: &[u8], header_pairs: Vec<String>, secrets: Vec<String>, now: f64, tolerance: f64) -> Result<JsValue, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    let verified = signature::verify(body, &headers(header_pairs), &secrets, now, tolerance).map_err(|e| webhook_error(&e))?;
    to_js(&verified)
}

/// The checks of verifyWebhook before the MAC, for a platform with a native HMAC (Node's
/// node:crypto): writes the expected MAC into `expected_out` (32 bytes) and returns
/// `[signedPrefix, timestamp, deliveryId, eventType]`.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = verifyHeaders)]
pub fn verify_headers(
    header_pairs: Vec<String>,
    secret_lengths: &[u32],
    now: f64,
    tolerance: f64,
    expected_out: &mut [u8],
) -> Result<js_sys::Array, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    let headers = headers(header_pairs);
    let checked =
        signature::verify_headers(&headers, secret_lengths.iter().map(|&n| n as usize), now, tolerance).map_err(|e| webhook_error(&e))?;
    if let Some(out) = expected_out.get_mut(..32) {
        out.copy_from_slice(&checked.expected);
    }
    let opt = |v: Option<&str>| v.map_or(JsValue::NULL, JsValue::from_str);
    Ok(js_sys::Array::of4(
        &JsValue::from_str(&checked.signed_prefix),
        &JsValue::from_f64(checked.timestamp as f64),
        &opt(checked.delivery_id),
        &opt(checked.event_type),
    ))
}

/// The header text the facade wrote with `TextEncoder` (so always UTF-8 from it).
fn header_text(text: &[u8]) -> Result<&str, JsValue> {
    std::str::from_utf8(text).map_err(|_| error("INVALID_ARGUMENT", "the header text must be UTF-8", None))
}

/// The byte layout of `out` in [`verify_header_text`].
const PACKED_MAC: usize = 0;
const PACKED_DELIVERY_ID: usize = 32;
const PACKED_EVENT_TYPE: usize = 36;
const PACKED_PREFIX_LEN: usize = 40;
const PACKED_PREFIX: usize = 44;

/// verifyHeaders without strings crossing (each costs a `TextDecoder` call back, or a character
/// loop in: together about as much as the HMAC of a small body): `text` is the UTF-8 of the service
/// headers as `name\nvalue\nname\nvalue…` (the facade uses this form only when no name or value
/// contains a line feed). Returns the timestamp and fills `out`: the expected MAC (bytes 0–31),
/// the index + 1 of the `X-Service-Delivery-Id` and `X-Service-Event-Type` values among the pairs
/// (u32 LE at 32 and 36; 0 when absent), the length of the signed prefix (u32 LE at 40, or
/// u32::MAX when it does not fit in `out`; the facade then calls [`verify_headers`]) and the
/// signed prefix itself (from byte 44).
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = verifyHeaderText)]
pub fn verify_header_text(text: &[u8], secret_lengths: &[u32], now: f64, tolerance: f64, out: &mut [u8]) -> Result<f64, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    let (found, _) = text_headers(header_text(text)?);
    let checked = signature::verify_service_headers(&found, secret_lengths.iter().map(|&n| n as usize), now, tolerance)
        .map_err(|e| webhook_error(&e))?;
    if out.len() < PACKED_PREFIX {
        return Err(error("INVALID_ARGUMENT", "out must be at least 44 bytes", None));
    }
    out[PACKED_MAC..PACKED_MAC + 32].copy_from_slice(&checked.expected);
    out[PACKED_DELIVERY_ID..PACKED_DELIVERY_ID + 4].copy_from_slice(&found.delivery_id_position().to_le_bytes());
    out[PACKED_EVENT_TYPE..PACKED_EVENT_TYPE + 4].copy_from_slice(&found.event_type_position().to_le_bytes());
    let prefix = checked.signed_prefix.as_bytes();
    let len = match out.get_mut(PACKED_PREFIX..PACKED_PREFIX + prefix.len()) {
        Some(slot) => {
            slot.copy_from_slice(prefix);
            prefix.len() as u32
        }
        None => u32::MAX,
    };
    out[PACKED_PREFIX_LEN..PACKED_PREFIX_LEN + 4].copy_from_slice(&len.to_le_bytes());
    Ok(checked.timestamp as f64)
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

/// Makes the HMAC keys of `secrets` (in order) and keeps them as set `set` (0–15), for
/// [`verify_io`] and [`check_io`]: each padded key is hashed once, not on every verification.
/// Returns the set's new stamp, never 0, which those calls then pass: several facades may share
/// one module (the package's Node and browser builds load the same one), each assigning sets on
/// its own, and a stamp that changed tells one of them that another made the set's keys again.
/// More than 16 secrets are refused here, as [`signature::verify`] refuses them.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = setMacKeys)]
pub fn set_mac_keys(set: u32, secrets: Vec<String>) -> Result<u32, JsValue> {
    if secrets.len() > signature::MAX_SECRETS {
        return Err(error("INVALID_ARGUMENT", "at most 16 secrets", None));
    }
    MAC_KEYS.with(|sets| match sets.borrow_mut().get_mut(set as usize) {
        Some(entry) => {
            let stamp = STAMP.get().checked_add(1).unwrap_or(1);
            STAMP.set(stamp);
            *entry = KeySet { stamp, keys: secrets.iter().map(|s| signature::MacKey::new(s.as_bytes())).collect() };
            Ok(stamp)
        }
        None => Err(no_such_set()),
    })
}

/// Each secret's inner pad block (64 bytes each, in order), which a platform with a native
/// SHA-256 hashes before the message (see [`finish_io`]).
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = macKeyPads)]
pub fn mac_key_pads(secrets: Vec<String>) -> Vec<u8> {
    secrets.iter().take(signature::MAX_SECRETS).flat_map(|s| signature::MacKey::inner_pad(s.as_bytes())).collect()
}

/// verifyWebhook in one call, the MACs computed here with the keys [`set_mac_keys`] kept as set
/// `set` (with stamp `stamp`): the browser's path, and Node's for small bodies, where calling out
/// to a native SHA-256 costs more than hashing here. The header text is the first `text_len`
/// bytes of the shared buffer: the UTF-8 of the service headers' `lines` names and values, joined
/// by line feeds. Returns the timestamp and writes the rest into the buffer (see [`io_layout`]);
/// or returns `IO_LINE_FEED` or `IO_KEYS_REPLACED` (both negative) for the general path.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = verifyIo)]
pub fn verify_io(text_len: u32, lines: u32, body: &[u8], set: u32, stamp: u32, now: f64, tolerance: f64) -> Result<f64, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    with_io_headers(text_len, lines, set, stamp, |keys, found, out| {
        let (checked, index) = signature::verify_keyed(body, found, keys, now, tolerance).map_err(|e| webhook_error(&e))?;
        put_found(out, index as u32, found);
        Ok(checked.timestamp as f64)
    })
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

/// The checks of [`verify_io`] before the MACs, for a platform with a native SHA-256 (Node's
/// node:crypto), with the secret lengths of key set `set`: returns the timestamp (or what
/// [`verify_io`] returns for the general path) and writes the rest, the signed prefix included,
/// into the shared buffer. The facade then writes one inner hash per secret and calls
/// [`finish_io`].
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = checkIo)]
pub fn check_io(text_len: u32, lines: u32, set: u32, stamp: u32, now: f64, tolerance: f64) -> Result<f64, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    PENDING.set(None);
    with_io_headers(text_len, lines, set, stamp, |keys, found, out| {
        let checked =
            signature::verify_service_headers(found, keys.iter().map(|k| k.secret_len()), now, tolerance).map_err(|e| webhook_error(&e))?;
        put_found(out, 0, found);
        let prefix = checked.signed_prefix.as_bytes();
        let len = match out.get_mut(IO_PREFIX - IO_HASHES..).and_then(|o| o.get_mut(..prefix.len())) {
            Some(slot) if prefix.len() <= IO_PREFIX_MAX => {
                slot.copy_from_slice(prefix);
                prefix.len() as u32
            }
            _ => u32::MAX,
        };
        put_u32(out, IO_FOUND + 12, len);
        PENDING.set(Some((set, stamp, checked.expected)));
        Ok(checked.timestamp as f64)
    })
}

/// The end of Node's path after [`check_io`]: the shared buffer holds, from `IO_HASHES`, one
/// SHA-256 per secret of the set, in order, each over that secret's inner pad block (from
/// [`mac_key_pads`]), the signed prefix and the body. Computes the MACs from them and compares
/// each with the signature in constant time: returns the index of the matching secret, or throws
/// SIGNATURE_MISMATCH.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = finishIo)]
pub fn finish_io(count: u32) -> Result<u32, JsValue> {
    let (set, stamp, expected) =
        PENDING.take().ok_or_else(|| error("INVALID_ARGUMENT", "finishIo needs a successful checkIo first", None))?;
    let index = with_keys(set, stamp, |keys| {
        if count as usize != keys.len() {
            return Err(error("INVALID_ARGUMENT", "one inner hash per secret of the set", None));
        }
        with_io(0, |_, out| {
            let hashes = out[..32 * keys.len()].chunks_exact(32).map(|c| <[u8; 32]>::try_from(c).unwrap_or([0; 32]));
            signature::match_inner_hashes(&expected, keys, hashes).map(|i| i as u32).map_err(|e| webhook_error(&e))
        })
    })?;
    index.ok_or_else(|| error("INVALID_ARGUMENT", "the keys of the set were made again after checkIo", None))
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

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = diagnoseWebhook)]
pub fn diagnose_webhook(
    body: &[u8],
    header_pairs: Vec<String>,
    secrets: Vec<String>,
    now: f64,
    tolerance: f64,
) -> Result<JsValue, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    to_js(&signature::diagnose(body, &headers(header_pairs), &secrets, now, tolerance))
}

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = webhookErrorCodes)]
pub fn webhook_error_codes() -> Result<JsValue, JsValue> {
    to_js(signature::ERROR_CODES)
}

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = webhookFindingCodes)]
pub fn webhook_finding_codes() -> Result<JsValue, JsValue> {
    to_js(signature::FINDING_CODES)
}

#[derive(Serialize)]
struct JsMessage<'a> {
    method: Option<&'a str>,
    path: Option<&'a str>,
    status: Option<u16>,
    headers: Vec<[&'a str; 2]>,
    notes: &'a [String],
}

// In the webhook module too: the page's webhook tool reads a captured request with it.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = parseHttpMessage)]
pub fn parse_http_message(input: &[u8]) -> Result<JsValue, JsValue> {
    let m = http::parse_message(input).map_err(|e| error(e.code(), &e.to_string(), None))?;
    let view = JsMessage {
        method: m.method.as_deref(),
        path: m.path.as_deref(),
        status: m.status,
        headers: m.headers.pairs().iter().map(|(n, v)| [n.as_str(), v.as_str()]).collect(),
        notes: &m.notes,
    };
    let obj = to_js(&view)?;
    // The body goes back as the exact bytes, a Uint8Array.
    Reflect::set(&obj, &"body".into(), &js_sys::Uint8Array::from(m.body.as_slice()).into())?;
    Ok(obj)
}

/// A JSON input, as the UTF-8 bytes of its text (the facade serializes plain JS values with
/// `JSON.stringify` before the call, so no JS object is ever walked from wasm: a deep or cyclic
/// object, or a throwing getter, is refused on the JS side, where it cannot trap the module).
/// serde_json bounds the nesting (128 levels) and never recurses past it.
fn json_input(bytes: &[u8], what: &str) -> Result<serde_json::Value, JsValue> {
    serde_json::from_slice(bytes)
        .map_err(|e| error("INVALID_ARGUMENT", &format!("{what} is not JSON: {}", crate::diagnostic::bounded(e.to_string())), None))
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

fn order_error(e: &crate::order::OrderInputError) -> JsValue {
    error(e.code(), &e.to_string(), None)
}

fn signed_seconds(now: f64) -> Result<i64, JsValue> {
    seconds(now, "now").map(|s| s as i64)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = checkOrder)]
pub fn check_order(input: &[u8], max_depth: Option<u32>, max_bytes: Option<u32>, max_diagnostics: Option<u32>) -> Result<String, JsValue> {
    report_text(&crate::order::check_order(input, &crate::order::CheckOptions { limits: limits(max_depth, max_bytes, max_diagnostics) }))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = predictAction)]
pub fn predict_action(order: &[u8], action: &str, now: f64, body: Option<Vec<u8>>) -> Result<JsValue, JsValue> {
    let action = crate::order::Action::parse(action).map_err(|e| order_error(&e))?;
    let order = json_input(order, "order")?;
    let p = crate::order::predict_request(&order, &action, body.as_deref(), signed_seconds(now)?).map_err(|e| order_error(&e))?;
    to_js(&p)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = applyEvent)]
pub fn apply_event(order: &[u8], event: &[u8]) -> Result<JsValue, JsValue> {
    let out = crate::order::apply_event(&json_input(order, "order")?, &json_input(event, "event")?).map_err(|e| order_error(&e))?;
    to_js(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = applyTrigger)]
pub fn apply_trigger(order: &[u8], trigger: &str, now: f64) -> Result<JsValue, JsValue> {
    let trigger = crate::order::ServiceTrigger::parse(trigger).map_err(|e| order_error(&e))?;
    let out = crate::order::apply_trigger(&json_input(order, "order")?, trigger, signed_seconds(now)?).map_err(|e| order_error(&e))?;
    to_js(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = nextActions)]
pub fn next_actions(order: &[u8], now: f64) -> Result<JsValue, JsValue> {
    to_js(&crate::order::next_actions(&json_input(order, "order")?, signed_seconds(now)?).map_err(|e| order_error(&e))?)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderHistoryPath)]
pub fn order_history_path(order: &[u8]) -> Result<Vec<String>, JsValue> {
    Ok(crate::order::history_path(&json_input(order, "order")?))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderMachine)]
pub fn order_machine() -> Result<JsValue, JsValue> {
    to_js(&crate::order::machine())
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderDiagram)]
pub fn order_diagram(highlight: Vec<String>) -> String {
    let h: Vec<&str> = highlight.iter().map(String::as_str).collect();
    crate::order::diagram_svg(&h)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderRules)]
pub fn order_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::basis::rule_infos(crate::order::RULES))
}

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = lintMenu)]
pub fn lint_menu(input: &[u8], max_depth: Option<u32>, max_bytes: Option<u32>, max_diagnostics: Option<u32>) -> Result<String, JsValue> {
    let d = crate::menu::LintOptions::default();
    let options = crate::menu::LintOptions {
        limits: limits(max_depth, max_bytes, None),
        max_diagnostics: max_diagnostics.map_or(d.max_diagnostics, |v| (v as usize).max(1)),
    };
    report_text(&crate::menu::lint(input, &options))
}

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = menuRules)]
pub fn menu_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::basis::rule_infos(crate::menu::RULES))
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

/// `validatePayload` of the first `len` bytes of the shared buffer (at most `IO_TEXT`, see
/// [`io_buffer`]), of the kind numbered `kind_number` (0: detected), without a path: the same
/// answers, but the payload crosses without an allocation in the module and the answer without a
/// result slot (together about an eighth of a 300 B event's validation). [`IO_GENERAL`] when the
/// facade must call `validatePayload` instead, which reports the reason.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = validatePayloadIo)]
pub fn validate_payload_io(
    len: u32,
    kind_number: u32,
    max_depth: Option<u32>,
    max_bytes: Option<u32>,
    max_diagnostics: Option<u32>,
) -> u32 {
    let kind = match (kind_number, kind_by_number(kind_number)) {
        (0, _) => None,
        (_, None) => return IO_GENERAL,
        (_, known) => known,
    };
    let options = crate::payload::PayloadOptions { kind, path: None, limits: limits(max_depth, max_bytes, max_diagnostics) };
    with_io_bytes(len, |input, _| kept_answer(outcome(input, &options))).unwrap_or(IO_GENERAL)
}

/// `kind_number` (1 + an index in `payloadKinds()`) names the kind without a string crossing;
/// when it is 0, `kind` does (a name, or none / `auto` to detect it).
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = validatePayload)]
pub fn validate_payload(
    input: &[u8],
    kind_number: u32,
    kind: Option<String>,
    path: Option<String>,
    max_depth: Option<u32>,
    max_bytes: Option<u32>,
    max_diagnostics: Option<u32>,
) -> Result<u32, JsValue> {
    let mut options = payload_options(kind, path, max_depth, max_bytes, max_diagnostics)?;
    if kind_number != 0 {
        let known = kind_by_number(kind_number);
        options.kind = Some(known.ok_or_else(|| error("INVALID_ARGUMENT", &format!("no payload kind number {kind_number}"), None))?);
    }
    kept_answer(outcome(input, &options))
}

/// The report `validatePayload` kept (answered [`REPORT_KEPT`]), handed over once.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = takeReport)]
pub fn take_report() -> String {
    KEPT_REPORT.take()
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = inspectInput)]
pub fn inspect_input(
    input: &[u8],
    kind: Option<String>,
    path: Option<String>,
    now: f64,
    max_depth: Option<u32>,
    max_bytes: Option<u32>,
    max_diagnostics: Option<u32>,
) -> Result<JsValue, JsValue> {
    let options = payload_options(kind, path, max_depth, max_bytes, max_diagnostics)?;
    to_js(&crate::payload::inspect(input, &options, signed_seconds(now)?))
}

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = payloadKinds)]
pub fn payload_kinds() -> Vec<String> {
    KINDS.iter().map(|k| k.id().to_string()).collect()
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = payloadRules)]
pub fn payload_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::basis::rule_infos(&crate::payload::all_rules()))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = validateRequest)]
pub fn validate_request(
    method: String,
    path: String,
    header_pairs: Vec<String>,
    body: Option<Vec<u8>>,
    now: f64,
) -> Result<JsValue, JsValue> {
    let request = crate::payload::Request { method, path, headers: headers(header_pairs), body, now: signed_seconds(now)? };
    to_js(&crate::payload::validate_request(&request))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = classifyProblem)]
pub fn classify_problem(status: u16, header_pairs: Vec<String>, body: &[u8], now: f64) -> Result<JsValue, JsValue> {
    let input =
        crate::payload::ProblemInput { status, headers: headers(header_pairs), body: body.to_vec(), now: Some(signed_seconds(now)?) };
    to_js(&crate::payload::classify_problem(&input))
}

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = diffMenu)]
pub fn diff_menu(
    current: &[u8],
    next: &[u8],
    threshold: Option<f64>,
    max_entries: Option<u32>,
    max_diagnostics: Option<u32>,
    max_depth: Option<u32>,
    max_bytes: Option<u32>,
) -> Result<JsValue, JsValue> {
    use crate::menu::diff::{check_threshold, diff, DiffOptions};
    let d = DiffOptions::default();
    let options = DiffOptions {
        limits: limits(max_depth, max_bytes, max_diagnostics),
        threshold: threshold.map_or(Ok(d.threshold), check_threshold).map_err(|e| error(e.code(), &e.to_string(), None))?,
        max_entries: max_entries.map_or(d.max_entries, |v| v as usize),
        max_diagnostics: max_diagnostics.map_or(d.max_diagnostics, |v| (v as usize).max(1)),
    };
    to_js(&diff(current, next, &options))
}

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = diffRules)]
pub fn diff_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::basis::rule_infos(crate::menu::diff::RULES))
}

// ---- the command line, for the npm package's `poscheck` bin ---------------------------------------
// The bin parses arguments and reads files in JS; what each command prints and its exit status
// come from `crate::cli`, as for the native binary.

fn cli_output(out: &crate::cli::Output) -> Result<JsValue, JsValue> {
    to_js(out)
}

/// Splits `data` into the inputs whose byte lengths are `lengths`, named `names`.
fn cli_inputs(names: Vec<String>, data: &[u8], lengths: &[u32]) -> Result<Vec<(String, Vec<u8>)>, JsValue> {
    let mut at = 0usize;
    let mut out = Vec::with_capacity(names.len());
    for (name, &len) in names.into_iter().zip(lengths) {
        let end = at
            .checked_add(len as usize)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| error("INVALID_ARGUMENT", "input lengths exceed the data", None))?;
        out.push((name, data[at..end].to_vec()));
        at = end;
    }
    Ok(out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliReport)]
#[allow(clippy::too_many_arguments)]
pub fn cli_report(
    check: &str,
    names: Vec<String>,
    data: &[u8],
    lengths: &[u32],
    format: &str,
    max_warnings: Option<u32>,
    kind: Option<String>,
    path: Option<String>,
    now: f64,
) -> Result<JsValue, JsValue> {
    let format: crate::format::Format = match format.parse() {
        Ok(f) => f,
        Err(e) => return cli_output(&crate::cli::Output::usage_error(&e)),
    };
    let check = match check {
        "lint" => crate::cli::Check::Lint,
        "order" => crate::cli::Check::Order,
        _ => {
            let kind = match kind.as_deref().map(|k| (k, crate::payload::PayloadKind::from_id(k))) {
                None => None,
                Some((_, Some(k))) => Some(k),
                Some((k, None)) => {
                    return cli_output(&crate::cli::Output::usage_error(&crate::diagnostic::bounded(format!(
                        "unknown --kind {k:?}: expected one of {}",
                        kind_list()
                    ))));
                }
            };
            crate::cli::Check::Validate { kind, path, now: signed_seconds(now)? }
        }
    };
    let inputs = cli_inputs(names, data, lengths)?;
    cli_output(&crate::cli::report_command(&check, &inputs, format, max_warnings.map(|m| m as usize)))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliSign)]
pub fn cli_sign(
    secret: &[u8],
    timestamp: f64,
    body: &[u8],
    delivery_id: Option<String>,
    event_type: Option<String>,
    json: bool,
) -> Result<JsValue, JsValue> {
    let out = crate::cli::sign(secret, seconds(timestamp, "timestamp")?, body, delivery_id.as_deref(), event_type.as_deref(), json)
        .unwrap_or_else(|e| crate::cli::Output::usage_error(&e));
    cli_output(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliVerify)]
#[allow(clippy::too_many_arguments)]
pub fn cli_verify(
    input: &[u8],
    request: bool,
    header_args: Vec<String>,
    secrets: &[u8],
    secret_lengths: &[u32],
    now: f64,
    tolerance: f64,
    json: bool,
) -> Result<JsValue, JsValue> {
    let secrets: Vec<Vec<u8>> =
        cli_inputs(vec![String::new(); secret_lengths.len()], secrets, secret_lengths)?.into_iter().map(|(_, b)| b).collect();
    let out =
        crate::cli::verify_command(input, request, &header_args, &secrets, seconds(now, "now")?, seconds(tolerance, "tolerance")?, json);
    cli_output(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliDiff)]
pub fn cli_diff(
    current_name: &str,
    current: &[u8],
    next_name: &str,
    next: &[u8],
    format: &str,
    threshold: Option<String>,
    max_entries: Option<u32>,
) -> Result<JsValue, JsValue> {
    let mut options = crate::menu::diff::DiffOptions::default();
    if let Some(t) = threshold.as_deref() {
        match crate::menu::diff::parse_threshold(t) {
            Ok(v) => options.threshold = v,
            Err(e) => return cli_output(&crate::cli::Output::usage_error(&e.to_string())),
        }
    }
    if let Some(m) = max_entries {
        options.max_entries = m as usize;
    }
    let format = match format {
        "json" => crate::cli::DiffFormat::Json,
        "markdown" => crate::cli::DiffFormat::Markdown,
        _ => crate::cli::DiffFormat::Text,
    };
    cli_output(&crate::cli::diff((current_name, current), (next_name, next), &options, format))
}

/// `rules`: lives in the sandbox's module (src/wasm/sandbox.rs), which holds the probe's checks.
#[cfg(feature = "sandbox")]
#[wasm_bindgen(js_name = cliRules)]
pub fn cli_rules(json: bool) -> Result<JsValue, JsValue> {
    cli_output(&crate::cli::rules(json))
}

// ---- webhook receiver (src/receiver.rs): pkg/src/receiver.js does the I/O, the core decides ----

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = receiverRoute)]
pub fn receiver_route(method: &str, target: &str, base_path: &str) -> Result<JsValue, JsValue> {
    to_js(&crate::receiver::route(method, target, base_path))
}

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = receiverReceive)]
#[allow(clippy::too_many_arguments)]
pub fn receiver_receive(
    method: &str,
    target: &str,
    base_path: &str,
    header_pairs: Vec<String>,
    body: &[u8],
    secrets: Vec<String>,
    now: f64,
    tolerance: f64,
) -> Result<JsValue, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    to_js(&crate::receiver::receive_request(method, target, base_path, body, &headers(header_pairs), &secrets, now, tolerance))
}

/// receiverReceive with the MACs computed by the caller (node:crypto): `macs` holds one 32-byte
/// MAC per secret over the signed prefix verifyHeaderText gave.
#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = receiverReceiveMacs)]
#[allow(clippy::too_many_arguments)]
pub fn receiver_receive_macs(
    method: &str,
    target: &str,
    base_path: &str,
    header_pairs: Vec<String>,
    body: &[u8],
    secret_lengths: &[u32],
    macs: &[u8],
    now: f64,
    tolerance: f64,
) -> Result<JsValue, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    let lengths: Vec<usize> = secret_lengths.iter().map(|&n| n as usize).collect();
    let macs: Vec<[u8; 32]> = macs.chunks_exact(32).map(|c| <[u8; 32]>::try_from(c).unwrap_or([0; 32])).collect();
    to_js(&crate::receiver::receive_request_with_macs(
        method,
        target,
        base_path,
        body,
        &headers(header_pairs),
        &lengths,
        &macs,
        now,
        tolerance,
    ))
}

/// What [`receiver_io`] answers when the kit must take the general path (`receiverRoute`,
/// `receiverReceive`), which says what the request is: anything but a verified delivery, with one
/// delivery id, whose payload is clean and whose path parameters are their raw segments.
#[cfg(all(feature = "webhook", not(feature = "toolkit")))]
const IO_RECEIVER_GENERAL: f64 = -3.0;

/// The receiver kit's common delivery in one call, with nothing crossing but numbers: the shared
/// buffer's text area holds, one after the other, the method, the target, the base path, the
/// service headers' text (as for [`verify_io`], `lines` lines) and the body, of the lengths given.
/// With `hashed` = 0 the MACs are computed here from the keys of set `set`; a platform with a
/// native SHA-256 may instead write, from `IO_HASHES`, one inner hash per secret of the set (as for
/// [`finish_io`]) over the prefix it wrote at `IO_PREFIX` (`prefix_len` bytes: the timestamp it
/// read, then `.`) and the body, and pass their count: they count only when that prefix is the
/// signed prefix the core finds (else the general path). Routes, verifies and validates the payload as
/// `receiverRoute` + `receiverReceive` do; when that comes to a `handle` receipt with a clean report
/// and a delivery id, returns the timestamp and writes from `IO_HASHES` ten u32 LE: the route (1 +
/// its index in `RouteId::ALL`), the index of the matching secret, the positions + 1 of the
/// `X-Service-Delivery-Id` and `X-Service-Event-Type` values among the pairs (0: absent), and the
/// byte spans in the target of remoteId, remoteOrderId and changeKey (see
/// [`crate::receiver::param_spans`]). Any other request: `IO_RECEIVER_GENERAL`, or
/// `IO_KEYS_REPLACED` when the set's keys were made again since `stamp`.
// The webhook module only: the toolkit's keeps the general path, under its size ratchet (in Node,
// createReceiver of `poscheck` runs on the webhook module anyway; a browser receiver on the
// toolkit's takes the general path, with the same answers).
#[cfg(all(feature = "webhook", not(feature = "toolkit")))]
#[wasm_bindgen(js_name = receiverIo)]
#[allow(clippy::too_many_arguments)]
pub fn receiver_io(
    method_len: u32,
    target_len: u32,
    base_len: u32,
    header_len: u32,
    lines: u32,
    body_len: u32,
    set: u32,
    stamp: u32,
    hashed: u32,
    prefix_len: u32,
    now: f64,
    tolerance: f64,
) -> f64 {
    use crate::receiver::{param_spans_ref, payload_clean_ref, route_ref, RouteId};
    let (Ok(now), Ok(tolerance)) = (seconds(now, "now"), seconds(tolerance, "toleranceSeconds")) else { return IO_RECEIVER_GENERAL };
    let lengths = [method_len, target_len, base_len, header_len, body_len].map(|n| n as usize);
    let Some(total) = lengths.iter().try_fold(0usize, |a, &n| a.checked_add(n)).and_then(|t| u32::try_from(t).ok()) else {
        return IO_RECEIVER_GENERAL;
    };
    let answer = with_keys(set, stamp, |keys| {
        with_io_bytes(total, |text, out| {
            let (method, rest) = text.split_at(lengths[0]);
            let (target, rest) = rest.split_at(lengths[1]);
            let (base, rest) = rest.split_at(lengths[2]);
            let (header_bytes, body) = rest.split_at(lengths[3]);
            let (Ok(method), Ok(target), Ok(base), Ok(header_text)) =
                (std::str::from_utf8(method), std::str::from_utf8(target), std::str::from_utf8(base), std::str::from_utf8(header_bytes))
            else {
                return Ok(IO_RECEIVER_GENERAL);
            };
            let Ok(route) = route_ref(method, target, base) else { return Ok(IO_RECEIVER_GENERAL) };
            let (found, counted) = text_headers(header_text);
            if counted != lines as usize {
                return Ok(IO_RECEIVER_GENERAL);
            }
            // (timestamp, delivery id, index of the matching key); no allocation where the platform
            // hashed the inner messages.
            let verified = if hashed == 0 {
                signature::verify_keyed(body, &found, keys, now, tolerance).map(|(c, index)| (c.timestamp, c.delivery_id, index))
            } else {
                signature::check_service_headers(&found, keys.iter().map(|k| k.secret_len()), now, tolerance).and_then(|checked| {
                    let at = IO_PREFIX - IO_HASHES;
                    let prefix = out.get(at..at + (prefix_len as usize).min(IO_PREFIX_MAX));
                    if hashed as usize != keys.len() || !prefix.is_some_and(|p| checked.is_signed_prefix(p)) {
                        return Err(signature::WebhookError::SignatureMismatch); // not the signed prefix: the general path
                    }
                    let hashes = out[..32 * keys.len()].chunks_exact(32).map(|c| <[u8; 32]>::try_from(c).unwrap_or([0; 32]));
                    signature::match_inner_hashes(&checked.expected, keys, hashes)
                        .map(|index| (checked.timestamp, checked.delivery_id, index))
                })
            };
            let Ok((timestamp, delivery_id, index)) = verified else { return Ok(IO_RECEIVER_GENERAL) };
            // One id, sent once (or repeated with the same value), not blank: deduplicated on it.
            if delivery_id.is_none_or(|id| id.trim().is_empty()) {
                return Ok(IO_RECEIVER_GENERAL);
            }
            let Some(spans) = param_spans_ref(&route, target, base) else { return Ok(IO_RECEIVER_GENERAL) };
            if !payload_clean_ref(&route, body) {
                return Ok(IO_RECEIVER_GENERAL);
            }
            let number = RouteId::ALL.iter().position(|r| *r == route.id).map_or(0, |i| i as u32 + 1);
            let words = [number, index as u32, found.delivery_id_position(), found.event_type_position()];
            for (i, w) in words.into_iter().chain(spans.into_iter().flat_map(|(a, b)| [a, b])).enumerate() {
                put_u32(out, IO_HASHES + 4 * i, w);
            }
            Ok(timestamp as f64)
        })
    });
    match answer {
        Ok(Some(v)) => v,
        Ok(None) => IO_KEYS_REPLACED,
        Err(_) => IO_RECEIVER_GENERAL,
    }
}

/// The creation route's 200 around a remoteOrderId the core answers verbatim:
/// `[prefix, suffix]` (see [`crate::receiver::created_id_verbatim`]).
// The webhook module only: the toolkit's keeps the general path, under its size ratchet (in Node,
// createReceiver of `poscheck` runs on the webhook module anyway; a browser receiver on the
// toolkit's takes the general path, with the same answers).
#[cfg(all(feature = "webhook", not(feature = "toolkit")))]
#[wasm_bindgen(js_name = receiverCreatedTemplate)]
pub fn receiver_created_template() -> Vec<String> {
    vec![crate::receiver::CREATED_PREFIX.into(), crate::receiver::CREATED_SUFFIX.into()]
}

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = receiverAnswer)]
pub fn receiver_answer(route: &str, outcome: &str, value: Option<String>) -> Result<JsValue, JsValue> {
    let route = crate::receiver::RouteId::from_id(route)
        .ok_or_else(|| error("INVALID_ARGUMENT", &crate::diagnostic::bounded(format!("unknown receiver route \"{route}\"")), None))?;
    let outcome = crate::receiver::Outcome::from_id(outcome, value)
        .ok_or_else(|| error("INVALID_ARGUMENT", &crate::diagnostic::bounded(format!("unknown receiver outcome \"{outcome}\"")), None))?;
    to_js(&crate::receiver::answer_after(route, &outcome))
}

/// The sandbox's module (`poscheck/sandbox`): the service model for the face in Node.
#[cfg(feature = "sandbox")]
mod sandbox;
