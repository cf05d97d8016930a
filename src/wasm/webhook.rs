//! The webhook module's exports (`poscheck/webhook`, and the toolkit's too): sign, verify and
//! diagnose, the validation of the webhook payloads, and the receiver kit's calls into the core.

use super::*;

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

#[cfg(feature = "webhook")]
#[wasm_bindgen(js_name = payloadKinds)]
pub fn payload_kinds() -> Vec<String> {
    KINDS.iter().map(|k| k.id().to_string()).collect()
}

// ---- webhook receiver (src/receiver/): pkg/src/receiver.js does the I/O, the core decides ------

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
