//! Webhook signatures: `X-Service-Signature-256` on the raw body (spec, "Authentication" 3–5).
//!
//! ```text
//! message   = X-Service-Timestamp + "." + raw body bytes
//! signature = "sha256=" + lowercase hex of HMAC-SHA256(UTF-8 secret, message)
//! ```
//!
//! Everything here is pure: the caller passes the raw body bytes, the headers and `now` (unix
//! seconds). Nothing reads a clock, so the same code runs natively, in Node and in a browser.
//!
//! ```
//! use poscheck::signature::{sign, verify, Headers, DEFAULT_TOLERANCE_SECONDS};
//!
//! let body = br#"{"orderKey":"ord_0123456789abcdef","event":"delivered"}"#;
//! let signature = sign(b"whsec_test", 1_767_225_600, body).unwrap();
//! let headers = Headers::from_pairs([
//!     ("x-service-timestamp", "1767225600"),
//!     ("X-Service-Signature-256", signature.as_str()),
//!     ("X-Service-Delivery-Id", "6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10"),
//! ]);
//! let ok = verify(body, &headers, &[b"whsec_test"], 1_767_225_660, DEFAULT_TOLERANCE_SECONDS).unwrap();
//! assert_eq!(ok.secret_index, 0);
//! assert_eq!(ok.delivery_id.as_deref(), Some("6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10"));
//! ```

use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::http::HeaderValue;
pub use crate::http::Headers;

type HmacSha256 = Hmac<Sha256>;

/// Header carrying the unix-seconds timestamp that is part of the signed message.
pub const HEADER_TIMESTAMP: &str = "X-Service-Timestamp";
/// Header carrying `sha256=` + 64 lowercase hex digits.
pub const HEADER_SIGNATURE: &str = "X-Service-Signature-256";
/// Header carrying the delivery UUID, identical on every attempt of one delivery.
pub const HEADER_DELIVERY_ID: &str = "X-Service-Delivery-Id";
/// Header carrying the event type; only `order.created`, on the creation webhook.
pub const HEADER_EVENT_TYPE: &str = "X-Service-Event-Type";
/// The spec's replay window: reject when |now − timestamp| exceeds 300 seconds.
pub const DEFAULT_TOLERANCE_SECONDS: u64 = 300;
/// Prefix of the signature header value.
pub const SIGNATURE_PREFIX: &str = "sha256=";

/// Why a webhook did not verify. Every variant maps to a stable [`code`](Self::code) shared by the
/// Rust API, the JS API and the CLI, and to the HTTP status a receiver answers (401).
///
/// Messages never contain the secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    /// `X-Service-Timestamp` is absent or empty.
    #[error("missing X-Service-Timestamp header: the service signs every webhook with one")]
    MissingTimestamp,
    /// `X-Service-Signature-256` is absent or empty.
    #[error("missing X-Service-Signature-256 header: the request is not signed")]
    MissingSignature,
    /// The timestamp is not plain decimal digits that fit in 64 bits, or was sent twice.
    #[error("malformed X-Service-Timestamp {found:?}: {reason}")]
    MalformedTimestamp {
        /// The header value, shortened.
        found: String,
        /// Why it is malformed.
        reason: &'static str,
    },
    /// The signature is not `sha256=` + 64 hex digits, or was sent twice.
    #[error("malformed X-Service-Signature-256: {reason}")]
    MalformedSignature {
        /// Why it is malformed.
        reason: &'static str,
    },
    /// The timestamp is older than `now - tolerance`.
    #[error("timestamp {timestamp} is {age} seconds old, beyond the {tolerance}-second window: possible replay")]
    TimestampTooOld {
        /// The header's timestamp, unix seconds.
        timestamp: u64,
        /// Seconds behind `now`.
        age: u64,
        /// The window, seconds.
        tolerance: u64,
    },
    /// The timestamp is later than `now + tolerance`.
    #[error("timestamp {timestamp} is {ahead} seconds in the future, beyond the {tolerance}-second window")]
    TimestampInFuture {
        /// The header's timestamp, unix seconds.
        timestamp: u64,
        /// Seconds ahead of `now`.
        ahead: u64,
        /// The window, seconds.
        tolerance: u64,
    },
    /// No secret produced the signature over `timestamp.body`.
    #[error("signature does not match: the body, the timestamp or the secret differs from what the service signed")]
    SignatureMismatch,
    /// No secret, or an empty one, was given.
    #[error("invalid secret: {reason}")]
    InvalidSecret {
        /// What is wrong with the secrets.
        reason: &'static str,
    },
}

impl WebhookError {
    /// The stable error code, e.g. `SIGNATURE_MISMATCH`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::MissingTimestamp => "MISSING_TIMESTAMP",
            Self::MissingSignature => "MISSING_SIGNATURE",
            Self::MalformedTimestamp { .. } => "MALFORMED_TIMESTAMP",
            Self::MalformedSignature { .. } => "MALFORMED_SIGNATURE",
            Self::TimestampTooOld { .. } => "TIMESTAMP_TOO_OLD",
            Self::TimestampInFuture { .. } => "TIMESTAMP_IN_FUTURE",
            Self::SignatureMismatch => "SIGNATURE_MISMATCH",
            Self::InvalidSecret { .. } => "INVALID_SECRET",
        }
    }

    /// The HTTP status a receiver answers with: 401 for every verification failure, as the spec's
    /// sample receivers do. A request that cannot be verified (even for want of a configured
    /// secret) is never processed; the service retries a failed delivery.
    pub fn http_status(&self) -> u16 {
        401
    }
}

/// Every error code [`WebhookError::code`] can return, for documentation and exhaustive tests.
pub const ERROR_CODES: &[&str] = &[
    "MISSING_TIMESTAMP",
    "MISSING_SIGNATURE",
    "MALFORMED_TIMESTAMP",
    "MALFORMED_SIGNATURE",
    "TIMESTAMP_TOO_OLD",
    "TIMESTAMP_IN_FUTURE",
    "SIGNATURE_MISMATCH",
    "INVALID_SECRET",
];

/// What a successful verification established.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "VerifiedWebhook"))]
#[serde(rename_all = "camelCase")]
pub struct Verified {
    /// `X-Service-Timestamp`, unix seconds.
    #[serde(serialize_with = "crate::json::js_safe::u64")]
    pub timestamp: u64,
    /// `X-Service-Delivery-Id`: deduplicate on it (at-least-once delivery).
    pub delivery_id: Option<String>,
    /// `X-Service-Event-Type` (`order.created` on the creation webhook), when sent.
    pub event_type: Option<String>,
    /// Index of the secret that matched, for secret rotation.
    pub secret_index: usize,
}

/// The MAC of `timestamp + "." + body` under `secret`.
fn mac(secret: &[u8], timestamp: &[u8], body: &[u8]) -> [u8; 32] {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for HMAC.
    let mut m = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any size");
    m.update(timestamp);
    m.update(b".");
    m.update(body);
    m.finalize().into_bytes().into()
}

/// The MAC of `body` alone, without the timestamp (a known mistake, for [`diagnose`]).
fn mac_body_only(secret: &[u8], body: &[u8]) -> [u8; 32] {
    let mut m = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any size");
    m.update(body);
    m.finalize().into_bytes().into()
}

fn hex_lower(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

fn check_secret(secret: &[u8]) -> Result<(), WebhookError> {
    if secret.is_empty() {
        return Err(WebhookError::InvalidSecret { reason: "the secret is empty" });
    }
    Ok(())
}

/// The value of `X-Service-Signature-256` for `body` sent at `timestamp`:
/// `sha256=` + lowercase hex of HMAC-SHA256(secret, timestamp + "." + body).
///
/// `secret` is the UTF-8 bytes of the account's HMAC secret. Fails only on an empty secret.
pub fn sign(secret: &[u8], timestamp: u64, body: &[u8]) -> Result<String, WebhookError> {
    check_secret(secret)?;
    let ts = timestamp.to_string();
    Ok(format!("{SIGNATURE_PREFIX}{}", hex_lower(&mac(secret, ts.as_bytes(), body))))
}

/// Parses `X-Service-Timestamp`: decimal digits only (no sign, space or fraction) fitting in 64 bits.
pub fn parse_timestamp(value: &str) -> Result<u64, WebhookError> {
    let malformed = |reason| WebhookError::MalformedTimestamp { found: truncate_for_message(value), reason };
    if !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed("expected unix seconds as decimal digits only (no sign, space or fraction)"));
    }
    value.parse::<u64>().map_err(|_| malformed("the number does not fit in 64 bits"))
}

/// Parses `X-Service-Signature-256` into the 32 MAC bytes: `sha256=` + 64 hex digits.
pub fn parse_signature(value: &str) -> Result<[u8; 32], WebhookError> {
    let malformed = |reason| WebhookError::MalformedSignature { reason };
    let hex = value.strip_prefix(SIGNATURE_PREFIX).ok_or_else(|| malformed("expected the prefix \"sha256=\" followed by 64 hex digits"))?;
    if hex.len() != 64 {
        return Err(malformed("expected exactly 64 hex digits after \"sha256=\""));
    }
    let mut out = [0u8; 32];
    let digits = hex.as_bytes();
    for (i, byte) in out.iter_mut().enumerate() {
        let hi = hex_digit(digits[2 * i]).ok_or_else(|| malformed("the signature contains a non-hex character"))?;
        let lo = hex_digit(digits[2 * i + 1]).ok_or_else(|| malformed("the signature contains a non-hex character"))?;
        *byte = (hi << 4) | lo;
    }
    Ok(out)
}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Keeps header values quoted in messages short (they are attacker-controlled).
fn truncate_for_message(value: &str) -> String {
    const MAX: usize = 40;
    match value.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &value[..i]),
        None => value.to_string(),
    }
}

/// The parts of a request every check needs, parsed once.
struct Parsed<'h> {
    timestamp_raw: &'h str,
    timestamp: u64,
    signature: [u8; 32],
}

/// The four service headers of a request, found in one pass over its `(name, value)` pairs (names
/// compared without regard to case, as [`Headers::get`] does), each with the position of its
/// first pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServiceHeaders<'h> {
    values: [HeaderValue<'h>; 4],
    first: [usize; 4],
}

/// The names [`ServiceHeaders`] holds, in its order (the `SLOT_*` positions).
const SERVICE_HEADERS: [&str; 4] = [HEADER_TIMESTAMP, HEADER_SIGNATURE, HEADER_DELIVERY_ID, HEADER_EVENT_TYPE];
const SLOT_TIMESTAMP: usize = 0;
const SLOT_SIGNATURE: usize = 1;
const SLOT_DELIVERY_ID: usize = 2;
const SLOT_EVENT_TYPE: usize = 3;

impl<'h> ServiceHeaders<'h> {
    /// Reads the pairs once: a name sent several times with the same value is that value, with
    /// different values it is conflicting (as [`Headers::get`] and verification read it).
    pub(crate) fn find(pairs: impl IntoIterator<Item = (&'h str, &'h str)>) -> Self {
        let mut found = ServiceHeaders { values: [HeaderValue::Absent; 4], first: [0; 4] };
        for (i, (name, value)) in pairs.into_iter().enumerate() {
            let Some(slot) = SERVICE_HEADERS.iter().position(|s| name.eq_ignore_ascii_case(s)) else {
                continue;
            };
            if found.values[slot] == HeaderValue::Absent {
                found.first[slot] = i;
            }
            found.values[slot] = found.values[slot].and(value);
        }
        found
    }

    fn one(&self, slot: usize) -> Option<&'h str> {
        match self.values[slot] {
            HeaderValue::One(v) => Some(v),
            _ => None,
        }
    }

    /// The position + 1 among the pairs of `X-Service-Delivery-Id` when sent once (or repeated
    /// with the same value: its first pair), else 0.
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
    pub(crate) fn delivery_id_position(&self) -> u32 {
        self.position(SLOT_DELIVERY_ID)
    }

    /// The same for `X-Service-Event-Type`.
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
    pub(crate) fn event_type_position(&self) -> u32 {
        self.position(SLOT_EVENT_TYPE)
    }

    fn position(&self, slot: usize) -> u32 {
        self.one(slot).map_or(0, |_| self.first[slot] as u32 + 1)
    }
}

fn parse_headers<'h>(timestamp: HeaderValue<'h>, signature: HeaderValue<'h>) -> Result<Parsed<'h>, WebhookError> {
    let timestamp_raw = match timestamp {
        HeaderValue::Absent | HeaderValue::One("") => return Err(WebhookError::MissingTimestamp),
        HeaderValue::Conflicting => {
            return Err(WebhookError::MalformedTimestamp {
                found: String::from("(several values)"),
                reason: "the header was sent more than once with different values",
            })
        }
        HeaderValue::One(v) => v,
    };
    let signature_raw = match signature {
        HeaderValue::Absent | HeaderValue::One("") => return Err(WebhookError::MissingSignature),
        HeaderValue::Conflicting => {
            return Err(WebhookError::MalformedSignature { reason: "the header was sent more than once with different values" })
        }
        HeaderValue::One(v) => v,
    };
    let timestamp = parse_timestamp(timestamp_raw)?;
    let signature = parse_signature(signature_raw)?;
    Ok(Parsed { timestamp_raw, timestamp, signature })
}

fn check_window(timestamp: u64, now: u64, tolerance: u64) -> Result<(), WebhookError> {
    if timestamp < now {
        let age = now - timestamp;
        if age > tolerance {
            return Err(WebhookError::TimestampTooOld { timestamp, age, tolerance });
        }
    } else {
        let ahead = timestamp - now;
        if ahead > tolerance {
            return Err(WebhookError::TimestampInFuture { timestamp, ahead, tolerance });
        }
    }
    Ok(())
}

/// Index of the first secret whose MAC over `timestamp.body` equals `expected`, compared in
/// constant time. Every secret is tried, so the time taken does not depend on which matched.
fn matching_secret<S: AsRef<[u8]>>(secrets: &[S], timestamp: &[u8], body: &[u8], expected: &[u8; 32]) -> Option<usize> {
    match_macs(expected, secrets.iter().map(|s| mac(s.as_ref(), timestamp, body))).ok()
}

/// Secrets tried at most: a rotation needs two or three, and each one is one more MAC over the body.
pub const MAX_SECRETS: usize = 16;

/// The secrets' rules from their lengths alone: at least one, at most [`MAX_SECRETS`], none empty.
fn check_secret_lengths(lengths: impl ExactSizeIterator<Item = usize>) -> Result<(), WebhookError> {
    match lengths.len() {
        0 => return Err(WebhookError::InvalidSecret { reason: "no secret was given" }),
        n if n > MAX_SECRETS => {
            return Err(WebhookError::InvalidSecret { reason: "more than 16 secrets were given: a rotation needs two or three" })
        }
        _ => {}
    }
    let mut lengths = lengths;
    if lengths.any(|n| n == 0) {
        return Err(WebhookError::InvalidSecret { reason: "the secret is empty" });
    }
    Ok(())
}

/// What [`verify`] decides before any MAC is computed: the headers are present and well formed,
/// the timestamp is in the window, the secrets are usable. A platform with a native HMAC-SHA256
/// computes the MACs of [`signed_prefix`](Self::signed_prefix) followed by the body itself, one
/// per secret, and hands them to [`VerifiedHeaders::match_macs`]; [`verify`] does exactly that
/// with this crate's HMAC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedHeaders<'h> {
    /// The start of the signed message: `X-Service-Timestamp` exactly as sent, then `.`.
    pub signed_prefix: String,
    /// The MAC the signature header carries.
    pub expected: [u8; 32],
    /// `X-Service-Timestamp`, unix seconds.
    pub timestamp: u64,
    /// `X-Service-Delivery-Id`, when sent once (or repeated with the same value).
    pub delivery_id: Option<&'h str>,
    /// `X-Service-Event-Type`, likewise.
    pub event_type: Option<&'h str>,
}

/// The checks of [`verify`] that come before the MAC, for `secret_lengths` (the byte lengths of
/// the secrets that will be tried, in order).
pub fn verify_headers<'h>(
    headers: &'h Headers,
    secret_lengths: impl ExactSizeIterator<Item = usize>,
    now: u64,
    tolerance_seconds: u64,
) -> Result<VerifiedHeaders<'h>, WebhookError> {
    let found = ServiceHeaders::find(headers.pairs().iter().map(|(n, v)| (n.as_str(), v.as_str())));
    verify_service_headers(&found, secret_lengths, now, tolerance_seconds)
}

/// [`verify_headers`] over the service headers found beforehand.
pub(crate) fn verify_service_headers<'h>(
    found: &ServiceHeaders<'h>,
    secret_lengths: impl ExactSizeIterator<Item = usize>,
    now: u64,
    tolerance_seconds: u64,
) -> Result<VerifiedHeaders<'h>, WebhookError> {
    let checked = check_service_headers(found, secret_lengths, now, tolerance_seconds)?;
    let mut signed_prefix = String::with_capacity(checked.timestamp_raw.len() + 1);
    signed_prefix.push_str(checked.timestamp_raw);
    signed_prefix.push('.');
    Ok(VerifiedHeaders {
        signed_prefix,
        expected: checked.expected,
        timestamp: checked.timestamp,
        delivery_id: checked.delivery_id,
        event_type: checked.event_type,
    })
}

/// What [`verify_service_headers`] checks, with the timestamp as sent instead of a copy of the
/// signed prefix (which is that timestamp, then `.`): nothing allocated.
pub(crate) struct CheckedHeaders<'h> {
    /// `X-Service-Timestamp` exactly as sent.
    pub timestamp_raw: &'h str,
    /// The MAC the signature header carries.
    pub expected: [u8; 32],
    /// `X-Service-Timestamp`, unix seconds.
    pub timestamp: u64,
    /// `X-Service-Delivery-Id`, when sent once (or repeated with the same value).
    pub delivery_id: Option<&'h str>,
    /// `X-Service-Event-Type`, likewise.
    pub event_type: Option<&'h str>,
}

impl CheckedHeaders<'_> {
    /// Whether `prefix` is the signed prefix: the timestamp as sent, then `.` (the receiver's
    /// common delivery in the webhook module, `receiverIo`).
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook", not(feature = "toolkit"))), allow(dead_code))]
    pub(crate) fn is_signed_prefix(&self, prefix: &[u8]) -> bool {
        prefix.strip_suffix(b".") == Some(self.timestamp_raw.as_bytes())
    }
}

/// [`verify_service_headers`] without the copy of the signed prefix.
pub(crate) fn check_service_headers<'h>(
    found: &ServiceHeaders<'h>,
    secret_lengths: impl ExactSizeIterator<Item = usize>,
    now: u64,
    tolerance_seconds: u64,
) -> Result<CheckedHeaders<'h>, WebhookError> {
    check_secret_lengths(secret_lengths)?;
    let parsed = parse_headers(found.values[SLOT_TIMESTAMP], found.values[SLOT_SIGNATURE])?;
    check_window(parsed.timestamp, now, tolerance_seconds)?;
    Ok(CheckedHeaders {
        timestamp_raw: parsed.timestamp_raw,
        expected: parsed.signature,
        timestamp: parsed.timestamp,
        delivery_id: found.one(SLOT_DELIVERY_ID),
        event_type: found.one(SLOT_EVENT_TYPE),
    })
}

impl VerifiedHeaders<'_> {
    /// Compares the MAC of each secret with the signature, in constant time and every one of
    /// them (the time does not depend on which matched): the index of the first that matches.
    pub fn match_macs(&self, macs: impl IntoIterator<Item = [u8; 32]>) -> Result<Verified, WebhookError> {
        let secret_index = match_macs(&self.expected, macs)?;
        Ok(Verified {
            timestamp: self.timestamp,
            delivery_id: self.delivery_id.map(str::to_owned),
            event_type: self.event_type.map(str::to_owned),
            secret_index,
        })
    }
}

/// Whether two MACs are equal, in a time that does not depend on their bytes: the differences
/// of the four 8-byte words are gathered without a branch and only their union is compared,
/// through `subtle` (whose byte-by-byte comparison was about 4 % of a 2 KB verification in wasm).
fn same_mac(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let word = |m: &[u8; 32], i: usize| u64::from_le_bytes([m[i], m[i + 1], m[i + 2], m[i + 3], m[i + 4], m[i + 5], m[i + 6], m[i + 7]]);
    let diff = (word(a, 0) ^ word(b, 0)) | (word(a, 8) ^ word(b, 8)) | (word(a, 16) ^ word(b, 16)) | (word(a, 24) ^ word(b, 24));
    diff.ct_eq(&0).into()
}

/// The index of the first MAC equal to `expected`, every one compared in constant time.
pub fn match_macs(expected: &[u8; 32], macs: impl IntoIterator<Item = [u8; 32]>) -> Result<usize, WebhookError> {
    let mut found = None;
    for (i, mac) in macs.into_iter().enumerate() {
        let ok = same_mac(&mac, expected);
        if ok && found.is_none() {
            found = Some(i);
        }
    }
    found.ok_or(WebhookError::SignatureMismatch)
}

/// Verifies a webhook: headers present and well formed, timestamp within `tolerance_seconds` of
/// `now` (past and future alike; 0 means exact), and the MAC of one of `secrets` (several during a
/// rotation) equal to the signature, compared in constant time.
///
/// `body` must be the raw request bytes as received: never a re-serialized JSON value.
pub fn verify<S: AsRef<[u8]>>(
    body: &[u8],
    headers: &Headers,
    secrets: &[S],
    now: u64,
    tolerance_seconds: u64,
) -> Result<Verified, WebhookError> {
    let checked = verify_headers(headers, secrets.iter().map(|s| s.as_ref().len()), now, tolerance_seconds)?;
    let prefix = checked.signed_prefix.as_bytes();
    let ts = &prefix[..prefix.len() - 1];
    checked.match_macs(secrets.iter().map(|s| mac(s.as_ref(), ts, body)))
}

/// An HMAC-SHA256 key (RFC 2104) made once for many verifications: the SHA-256 states after the
/// inner and outer padded-key blocks, so that a verification hashes only its message and one
/// outer block (a third less work for a 256-byte body), straight on sha2's compression function.
/// Used by the wasm face, which keeps the keys of the last secrets it was given; a test holds it
/// to the `hmac` crate's answers.
#[derive(Clone)]
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
pub(crate) struct MacKey {
    inner: [u32; 8],
    outer: [u32; 8],
    len: usize,
}

impl std::fmt::Debug for MacKey {
    // Never the key material.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MacKey").field("len", &self.len).finish_non_exhaustive()
    }
}

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
const SHA256_IV: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/// One 64-byte block into `state`.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
fn compress(state: &mut [u32; 8], block: &[u8]) {
    sha2::compress256(state, std::slice::from_ref(sha2::digest::generic_array::GenericArray::from_slice(block)));
}

/// The last block(s) of a message of `total` bytes whose tail (`tail.len() < 64`) is not hashed yet.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
fn finish(state: &mut [u32; 8], tail: &[u8], total: usize) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..tail.len()].copy_from_slice(tail);
    block[tail.len()] = 0x80;
    if tail.len() >= 56 {
        compress(state, &block);
        block = [0u8; 64];
    }
    block[56..].copy_from_slice(&((total as u64) * 8).to_be_bytes());
    compress(state, &block);
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(state.iter()) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
impl MacKey {
    /// The key of `secret` (its UTF-8 bytes). An empty secret makes a key that
    /// [`verify_keyed`] refuses with the same error as [`verify`].
    pub(crate) fn new(secret: &[u8]) -> Self {
        let key = Self::key_block(secret);
        let (mut inner, mut outer) = (SHA256_IV, SHA256_IV);
        compress(&mut inner, &key.map(|b| b ^ 0x36));
        compress(&mut outer, &key.map(|b| b ^ 0x5c));
        MacKey { inner, outer, len: secret.len() }
    }

    /// The byte length of the secret (an empty secret is refused when the key is used).
    pub(crate) fn secret_len(&self) -> usize {
        self.len
    }

    /// RFC 2104's key block: the secret, or its SHA-256 when longer than a block, zero-padded.
    fn key_block(secret: &[u8]) -> [u8; 64] {
        use sha2::Digest;
        let mut key = [0u8; 64];
        if secret.len() > 64 {
            key[..32].copy_from_slice(&Sha256::digest(secret));
        } else {
            key[..secret.len()].copy_from_slice(secret);
        }
        key
    }

    /// The first block of the inner message of `secret`'s MAC (its key block XOR `0x36`), for a
    /// platform whose native SHA-256 hashes the inner message: SHA-256(this ‖ prefix ‖ body) is
    /// what [`outer_mac`](Self::outer_mac) finishes.
    pub(crate) fn inner_pad(secret: &[u8]) -> [u8; 64] {
        Self::key_block(secret).map(|b| b ^ 0x36)
    }

    /// The MAC from the SHA-256 of the inner message (see [`inner_pad`](Self::inner_pad)).
    pub(crate) fn outer_mac(&self, inner: &[u8; 32]) -> [u8; 32] {
        let mut state = self.outer;
        finish(&mut state, inner, 64 + 32)
    }

    /// The MAC of `prefix` (the timestamp and its dot) followed by `body`.
    fn mac(&self, prefix: &[u8], body: &[u8]) -> [u8; 32] {
        let mut state = self.inner;
        let mut block = [0u8; 64];
        let mut fill = 0;
        for mut data in [prefix, body] {
            if fill > 0 {
                let take = (64 - fill).min(data.len());
                block[fill..fill + take].copy_from_slice(&data[..take]);
                fill += take;
                data = &data[take..];
                if fill == 64 {
                    compress(&mut state, &block);
                    fill = 0;
                }
            }
            if fill == 0 {
                let mut blocks = data.chunks_exact(64);
                for b in &mut blocks {
                    compress(&mut state, b);
                }
                let rest = blocks.remainder();
                block[..rest.len()].copy_from_slice(rest);
                fill = rest.len();
            }
        }
        let inner = finish(&mut state, &block[..fill], 64 + prefix.len() + body.len());
        self.outer_mac(&inner)
    }
}

/// [`verify`] over borrowed header pairs with keys made beforehand: the same checks, in the same
/// order, with the same errors. Returns the checked headers and the index of the matching key.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
pub(crate) fn verify_keyed<'h>(
    body: &[u8],
    found: &ServiceHeaders<'h>,
    keys: &[MacKey],
    now: u64,
    tolerance_seconds: u64,
) -> Result<(VerifiedHeaders<'h>, usize), WebhookError> {
    let checked = verify_service_headers(found, keys.iter().map(|k| k.len), now, tolerance_seconds)?;
    let index = match_macs(&checked.expected, keys.iter().map(|k| k.mac(checked.signed_prefix.as_bytes(), body)))?;
    Ok((checked, index))
}

/// The end of [`verify_keyed`] where the platform hashed each inner message itself (Node's native
/// SHA-256): `inner` holds one hash per key, in order, each SHA-256([`MacKey::inner_pad`] ‖ signed
/// prefix ‖ body) for the signed prefix that [`verify_service_headers`] gave with the keys' lengths,
/// and `expected` is the MAC it found. The outer hashes and the constant-time comparison happen
/// here. Returns the index of the matching key. The caller passes as many hashes as keys.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook")), allow(dead_code))]
pub(crate) fn match_inner_hashes(
    expected: &[u8; 32],
    keys: &[MacKey],
    inner: impl IntoIterator<Item = [u8; 32]>,
) -> Result<usize, WebhookError> {
    match_macs(expected, keys.iter().zip(inner).map(|(k, h)| k.outer_mac(&h)))
}

/// One likely cause of a failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "WebhookFinding"))]
pub struct Finding {
    /// Stable code, e.g. `BODY_RESERIALIZED`; see [`FINDING_CODES`].
    pub code: &'static str,
    /// What happened and what to change.
    pub message: String,
}

/// The result of [`diagnose`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "WebhookDiagnosis"))]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// True when [`verify`] accepts the request.
    pub valid: bool,
    /// The [`WebhookError::code`] of the failure, or `None` when valid.
    pub code: Option<&'static str>,
    /// The verification error's message, or `None` when valid.
    pub message: Option<String>,
    /// Likely causes, most specific first.
    pub findings: Vec<Finding>,
    /// Seconds the timestamp is ahead of (positive) or behind (negative) `now`, when it parsed.
    #[serde(serialize_with = "crate::json::js_safe::option_i64")]
    pub skew_seconds: Option<i64>,
    /// What verification established, when valid.
    pub verified: Option<Verified>,
}

/// Every finding code [`diagnose`] can report.
pub const FINDING_CODES: &[&str] = &[
    "VALID",
    "CLOCK_SKEW",
    "TIMESTAMP_IN_MILLISECONDS",
    "BODY_RESERIALIZED",
    "LINE_ENDINGS_CHANGED",
    "TRAILING_NEWLINE_ADDED",
    "TRAILING_NEWLINE_REMOVED",
    "BOM_ADDED",
    "BOM_REMOVED",
    "SECRET_WHITESPACE",
    "SIGNED_BODY_ONLY",
    "SIGNATURE_PREFIX_MISSING",
    "SIGNATURE_NOT_HEX",
    "TIMESTAMP_NOT_UNIX_SECONDS",
    "WRONG_SECRET_OR_BODY",
    "HEADER_MISSING",
    "SECRET_MISSING",
    "HEADER_DUPLICATED",
    "SIGNATURE_UPPERCASE_HEX",
    "DELIVERY_ID_MISSING",
    "DELIVERY_ID_NOT_UUID",
    "EVENT_TYPE_UNKNOWN",
    "EVENT_TYPE_NOT_ON_CREATION",
    "EVENT_TYPE_MISSING",
];

/// Tries each transformation of the received body that reproduces a known mistake, one at a
/// time (only one variant is alive at once), until `found` says one matched: its code and message.
///
/// Work is linear in the body: each variant is at most [`MAX_VARIANT_GROWTH`] times the body
/// (a pretty-printing of deeply nested JSON, whose indentation grows with the depth, is given up
/// past that), and there are at most nine of them.
fn find_variant(body: &[u8], mut found: impl FnMut(&[u8]) -> bool) -> Option<(&'static str, &'static str)> {
    let mut tried = |code: &'static str, bytes: &[u8], message: &'static str| (bytes != body && found(bytes)).then_some((code, message));
    // Line endings.
    let has_crlf = body.windows(2).any(|w| w == b"\r\n");
    if has_crlf {
        if let Some(hit) = tried("LINE_ENDINGS_CHANGED", &replace(body, b"\r\n", b"\n"), "the service signed the body with LF line endings, but the body checked has CRLF: something converted line endings (a proxy, a text-mode read, a copy through an editor); verify the bytes as received") {
            return Some(hit);
        }
    }
    if body.contains(&b'\n') && !has_crlf {
        if let Some(hit) = tried("LINE_ENDINGS_CHANGED", &replace(body, b"\n", b"\r\n"), "the service signed the body with CRLF line endings, but the body checked has LF: something converted line endings; verify the bytes as received") {
            return Some(hit);
        }
    }
    // Trailing newline.
    if let Some(stripped) = body.strip_suffix(b"\r\n").or_else(|| body.strip_suffix(b"\n")) {
        if let Some(hit) = tried("TRAILING_NEWLINE_ADDED", stripped, "the body checked ends with a newline the service did not sign: something appended it (a pasted file, an echo, a text editor); remove it and verify the bytes as received") {
            return Some(hit);
        }
    }
    if let Some(hit) = tried(
        "TRAILING_NEWLINE_REMOVED",
        &[body, b"\n"].concat(),
        "the service signed the body with a trailing newline that the body checked lacks: something trimmed it; do not trim the raw body",
    ) {
        return Some(hit);
    }
    // Byte order mark.
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let bom = if let Some(stripped) = body.strip_prefix(BOM) {
        tried("BOM_ADDED", stripped, "the body checked starts with a UTF-8 byte order mark the service did not sign: something added it while decoding or saving; verify the bytes as received")
    } else {
        tried("BOM_REMOVED", &[BOM, body].concat(), "the service signed a body starting with a UTF-8 byte order mark that the body checked lacks: a text decoder stripped it; verify the bytes as received, before any decoding")
    };
    if bom.is_some() {
        return bom;
    }
    // Re-serialized JSON: try the common serializations of the same value (serde_json bounds
    // the nesting at 128 levels).
    const MSG: &str = "the body was re-serialized: it is the same JSON value as what the service signed, with different spacing; capture the raw body bytes before any JSON parsing (Express: express.raw({ type: 'application/json' }); node:http: concatenate the request chunks) and verify those";
    const MSG_FORMAT: &str = "the body was re-serialized: it is the same JSON value as what the service signed, written differently (not only spacing: numbers such as 23.40 written 23.4, string escapes or key order changed too); capture the raw body bytes before any JSON parsing (Express: express.raw({ type: 'application/json' }); node:http: concatenate the request chunks) and verify those";
    let value = serde_json::from_slice::<serde_json::Value>(body.strip_prefix(BOM).unwrap_or(body)).ok()?;
    let cap = body.len().saturating_mul(MAX_VARIANT_GROWTH).saturating_add(4096);
    // Compact, pretty with 2 spaces, 4 spaces, a tab, and Python's ", " / ": " separators.
    for indent in [None, Some(&b"  "[..]), Some(b"    "), Some(b"\t"), Some(b"")] {
        let mut w = CappedWriter { buf: Vec::new(), cap };
        let written = match indent {
            None => serde_json::to_writer(&mut w, &value),
            Some(b"") => spaced_json(&value, &mut w),
            Some(indent) => {
                let mut ser = serde_json::Serializer::with_formatter(&mut w, serde_json::ser::PrettyFormatter::with_indent(indent));
                serde::Serialize::serialize(&value, &mut ser)
            }
        };
        if written.is_ok() {
            // Spacing alone, or also how numbers, strings or key order are written (23.40 → 23.4).
            let message = if json_tokens(&w.buf).eq(json_tokens(body)) { MSG } else { MSG_FORMAT };
            if let Some(hit) = tried("BODY_RESERIALIZED", &w.buf, message) {
                return Some(hit);
            }
        }
    }
    None
}

/// The bytes of a JSON text without the whitespace outside strings (linear, no allocation).
fn json_tokens(json: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut in_string = false;
    let mut escaped = false;
    json.iter().copied().filter(move |&b| {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            return true;
        }
        if b == b'"' {
            in_string = true;
        }
        !matches!(b, b' ' | b'\t' | b'\n' | b'\r')
    })
}

/// A re-serialization is given up when it grows past this many times the body.
const MAX_VARIANT_GROWTH: usize = 4;

/// A `Vec` writer that refuses to grow past `cap` bytes.
struct CappedWriter {
    buf: Vec<u8>,
    cap: usize,
}

impl std::io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.cap {
            return Err(std::io::Error::other("variant larger than its bound"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// JSON with `", "` and `": "` separators (Python's `json.dumps` default).
fn spaced_json(value: &serde_json::Value, w: &mut CappedWriter) -> Result<(), serde_json::Error> {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut ser = serde_json::Serializer::with_formatter(w, Spaced);
    serde::Serialize::serialize(value, &mut ser)
}

fn replace(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

/// Bodies larger than this are not re-serialized or transformed by [`diagnose`] (each variant is
/// one more HMAC over the whole body); the verification verdict itself is unaffected.
pub const DIAGNOSE_MAX_VARIANT_BODY: usize = 4 * 1024 * 1024;

/// Verifies like [`verify`] and, on failure, names the likely cause by trying the known mistakes:
/// a re-serialized body, changed line endings, a trailing newline added or removed, a byte order
/// mark, a secret with surrounding whitespace, a timestamp in milliseconds, a MAC over the body
/// alone; and for a valid MAC outside the window, the clock skew.
///
/// Meant for the checker page and for logs: a receiver decides with [`verify`].
pub fn diagnose<S: AsRef<[u8]>>(body: &[u8], headers: &Headers, secrets: &[S], now: u64, tolerance_seconds: u64) -> Diagnosis {
    // One instance of the diagnosis, whatever the secrets' type: it is large (every known mistake
    // is tried), and the wasm module would otherwise carry a copy per caller.
    let secrets: Vec<&[u8]> = secrets.iter().map(AsRef::as_ref).collect();
    diagnose_secrets(body, headers, &secrets, now, tolerance_seconds)
}

fn diagnose_secrets(body: &[u8], headers: &Headers, secrets: &[&[u8]], now: u64, tolerance_seconds: u64) -> Diagnosis {
    let result = verify(body, headers, secrets, now, tolerance_seconds);
    let skew_seconds = headers
        .get(HEADER_TIMESTAMP)
        .and_then(|t| parse_timestamp(t).ok())
        .map(|ts| (i128::from(ts) - i128::from(now)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64);
    let mut findings = Vec::new();
    let error = match result {
        Ok(verified) => {
            findings.push(Finding {
                code: "VALID",
                message: format!(
                    "the signature matches secret #{} and the timestamp is {} of now",
                    verified.secret_index,
                    describe_skew(skew_seconds.unwrap_or(0))
                ),
            });
            header_findings(body, headers, &mut findings);
            let hex = headers.get(HEADER_SIGNATURE).and_then(|v| v.strip_prefix(SIGNATURE_PREFIX)).unwrap_or("");
            if hex.bytes().any(|b| b.is_ascii_uppercase()) {
                findings.push(Finding {
                    code: "SIGNATURE_UPPERCASE_HEX",
                    message: "the signature uses uppercase hex digits: the MAC matches, but the contract says lowercase hex, and a receiver that compares hex strings (instead of the decoded bytes) would reject it".into(),
                });
            }
            return Diagnosis { valid: true, code: None, message: None, findings, skew_seconds, verified: Some(verified) };
        }
        Err(e) => e,
    };
    explain(&error, body, headers, secrets, now, tolerance_seconds, &mut findings);
    header_findings(body, headers, &mut findings);
    Diagnosis { valid: false, code: Some(error.code()), message: Some(error.to_string()), findings, skew_seconds, verified: None }
}

/// What the webhook is, from its body: `Some(true)` for the creation webhook (the data.order
/// shape), `Some(false)` for an update (`event`, or the former `status`) or a menu change
/// completion (`changeKey`), `None` when the body does not tell.
fn is_creation(body: &[u8]) -> Option<bool> {
    if body.len() > DIAGNOSE_MAX_VARIANT_BODY {
        return None;
    }
    let arena = crate::json::Arena::for_input(body.len());
    let doc = crate::json::parse(body, &crate::json::Limits::default(), &arena).ok()?;
    let root = &doc.root;
    root.as_object()?;
    if root.get("event").is_some() || root.get("changeKey").is_some() || (root.get("status").is_some() && root.get("occurredAt").is_some())
    {
        Some(false)
    } else if ["displayCode", "fulfillment", "storeRemoteId", "items"].iter().any(|k| root.get(k).is_some()) {
        Some(true)
    } else {
        None
    }
}

/// Findings about the headers beyond the signature (Authentication 3, Events rule 1): they do not
/// change `valid` (that is [`verify`]'s verdict), they say what else is off.
fn header_findings(body: &[u8], headers: &Headers, findings: &mut Vec<Finding>) {
    let mut push = |code, message: String| findings.push(Finding { code, message });
    match headers.get(HEADER_DELIVERY_ID) {
        None => push(
            "DELIVERY_ID_MISSING",
            format!("no {HEADER_DELIVERY_ID} header: every delivery of the service carries one (a UUID); receivers deduplicate on it"),
        ),
        Some(id) if !crate::check::is_uuid(id.trim()) => push(
            "DELIVERY_ID_NOT_UUID",
            format!(
                "{HEADER_DELIVERY_ID} {:?} is not a UUID: the service sends a UUID, the same for every attempt of one delivery",
                id.chars().take(60).collect::<String>()
            ),
        ),
        Some(_) => {}
    }
    let creation = is_creation(body);
    match headers.get(HEADER_EVENT_TYPE) {
        Some(t) if t.trim() != "order.created" => push(
            "EVENT_TYPE_UNKNOWN",
            format!(
                "{HEADER_EVENT_TYPE} {:?}: the only value is order.created, on the creation webhook (updates are told apart by the body's event)",
                t.chars().take(60).collect::<String>()
            ),
        ),
        Some(_) if creation == Some(false) => push(
            "EVENT_TYPE_NOT_ON_CREATION",
            format!("{HEADER_EVENT_TYPE} is sent with a body that is not the creation webhook: the service declares it only on the creation webhook"),
        ),
        None if creation == Some(true) => push(
            "EVENT_TYPE_MISSING",
            format!("the body is an order creation payload but there is no {HEADER_EVENT_TYPE}: the new order webhook carries order.created"),
        ),
        _ => {}
    }
}

fn describe_skew(skew: i64) -> String {
    match skew {
        0 => "exactly that".to_string(),
        s if s > 0 => format!("{s} s ahead"),
        s => format!("{} s behind", s.unsigned_abs()),
    }
}

fn explain(error: &WebhookError, body: &[u8], headers: &Headers, secrets: &[&[u8]], now: u64, tolerance: u64, findings: &mut Vec<Finding>) {
    let mut push = |code, message: String| findings.push(Finding { code, message });
    match error {
        WebhookError::InvalidSecret { .. } => {
            push(
                "SECRET_MISSING",
                "give the account's HMAC secret from onboarding (one per account); an empty secret cannot verify anything".into(),
            );
            return;
        }
        WebhookError::MissingTimestamp | WebhookError::MissingSignature => {
            let name = if matches!(error, WebhookError::MissingTimestamp) { HEADER_TIMESTAMP } else { HEADER_SIGNATURE };
            push("HEADER_MISSING", format!("the request has no {name} header: it did not come from the service, or a proxy dropped the header; check that the proxy forwards X-Service-* headers"));
            return;
        }
        WebhookError::MalformedTimestamp { .. } | WebhookError::MalformedSignature { .. }
            if [HEADER_TIMESTAMP, HEADER_SIGNATURE].iter().any(|n| matches!(headers.lookup(n), HeaderValue::Conflicting)) =>
        {
            let name =
                if matches!(headers.lookup(HEADER_TIMESTAMP), HeaderValue::Conflicting) { HEADER_TIMESTAMP } else { HEADER_SIGNATURE };
            push(
                "HEADER_DUPLICATED",
                format!("{name} is in the request more than once, with different values: a receiver cannot tell which one the service sent, so it must refuse the delivery; look for a proxy or client code that adds the header again"),
            );
            return;
        }
        WebhookError::MalformedTimestamp { .. } => {
            let raw = headers.get(HEADER_TIMESTAMP).unwrap_or("(sent several times)");
            let hint = if crate::time::parse(raw).is_some() {
                "it is an ISO 8601 date; the header carries unix seconds"
            } else if raw.contains('.') {
                "it has a fraction; the header carries whole seconds"
            } else {
                "it must be plain decimal digits (no sign, space or fraction)"
            };
            push("TIMESTAMP_NOT_UNIX_SECONDS", format!("X-Service-Timestamp must be unix seconds as decimal digits, e.g. 1786492800: {hint}; the signed message uses the header exactly as sent"));
            return;
        }
        WebhookError::MalformedSignature { .. } => {
            let raw = headers.get(HEADER_SIGNATURE).unwrap_or("");
            if raw.len() == 64 && raw.bytes().all(|b| b.is_ascii_hexdigit()) {
                push("SIGNATURE_PREFIX_MISSING", "the signature is 64 hex digits without the \"sha256=\" prefix: the header value must be \"sha256=\" followed by the hex digest".into());
            } else {
                push("SIGNATURE_NOT_HEX", "the signature must be \"sha256=\" followed by the 64 lowercase hex digits of the HMAC-SHA256 (not base64, not another algorithm)".into());
            }
            return;
        }
        _ => {}
    }
    let Ok(parsed) = parse_headers(headers.lookup(HEADER_TIMESTAMP), headers.lookup(HEADER_SIGNATURE)) else { return };
    let ts = parsed.timestamp_raw.as_bytes();
    if parsed.timestamp > 100_000_000_000 {
        let secs = parsed.timestamp / 1000;
        let close = secs.abs_diff(now) <= tolerance.max(DEFAULT_TOLERANCE_SECONDS);
        // The MAC over the milliseconds matching is not a clock to sync: say it here, once.
        let mac_ok = matching_secret(secrets, ts, body, &parsed.signature).is_some();
        push(
            "TIMESTAMP_IN_MILLISECONDS",
            format!(
                "X-Service-Timestamp {} looks like milliseconds{}: the service sends unix seconds; if you produced this request, sign with seconds (Math.floor(Date.now() / 1000)){}",
                parsed.timestamp,
                if close { format!(" ({secs} s is within the window of now)") } else { String::new() },
                if mac_ok { "; the HMAC itself matches" } else { "" }
            ),
        );
        if mac_ok {
            return;
        }
    }
    // A valid MAC outside the window: the clock of one side is off, or the request is a replay.
    if matches!(error, WebhookError::TimestampTooOld { .. } | WebhookError::TimestampInFuture { .. })
        && matching_secret(secrets, ts, body, &parsed.signature).is_some()
    {
        let skew = i128::from(parsed.timestamp) - i128::from(now);
        push(
            "CLOCK_SKEW",
            format!(
                "the signature is valid but the timestamp is {} of your clock (tolerance {tolerance} s): a replayed delivery, or a receiver clock that is off; sync the clock with NTP and never take the timestamp from your own clock",
                describe_skew(skew.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
            ),
        );
        return;
    }
    // Secret with surrounding whitespace.
    let trimmed: Vec<&[u8]> = secrets.iter().map(|s| s.trim_ascii()).collect();
    let any_untrimmed = secrets.iter().zip(&trimmed).any(|(s, t)| *s != *t && !t.is_empty());
    if any_untrimmed && matching_secret(&trimmed, ts, body, &parsed.signature).is_some() {
        push(
            "SECRET_WHITESPACE",
            "the secret has surrounding whitespace (often a trailing newline from a file or an environment variable): trim it".into(),
        );
        return;
    }
    // MAC over the body alone.
    if secrets.iter().any(|s| same_mac(&mac_body_only(s, body), &parsed.signature)) {
        push("SIGNED_BODY_ONLY", "the signature is the HMAC of the body alone: the signed message is the timestamp, a dot, then the raw body (\"<X-Service-Timestamp>.<body>\")".into());
        return;
    }
    if body.len() <= DIAGNOSE_MAX_VARIANT_BODY {
        let hit = find_variant(body, |bytes| {
            matching_secret(secrets, ts, bytes, &parsed.signature).is_some()
                || (any_untrimmed && matching_secret(&trimmed, ts, bytes, &parsed.signature).is_some())
        });
        if let Some((code, message)) = hit {
            push(code, message.to_string());
            return;
        }
    }
    if matches!(error, WebhookError::SignatureMismatch) {
        push("WRONG_SECRET_OR_BODY", "no known mistake reproduces the signature: the secret is not the one of this account (or was rotated), the body was altered in transit, or the timestamp header was changed".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"test_secret";
    const NOW: u64 = 1_767_225_600;

    /// SHA-256 of the parts, one after the other (the sha2 crate's, as a native one would give).
    fn sha256(parts: &[&[u8]]) -> [u8; 32] {
        use sha2::Digest;
        parts.iter().fold(Sha256::new(), |h, p| h.chain_update(p)).finalize().into()
    }

    fn signed(body: &[u8], ts: u64) -> Headers {
        Headers::from_pairs([
            (HEADER_TIMESTAMP.to_string(), ts.to_string()),
            (HEADER_SIGNATURE.to_string(), sign(SECRET, ts, body).unwrap()),
        ])
    }

    #[test]
    fn service_headers_read_as_lookup_does() {
        let sig = sign(SECRET, NOW, b"x").unwrap();
        let ts = NOW.to_string();
        let cases: Vec<Vec<(&str, &str)>> = vec![
            vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_DELIVERY_ID, "d-1"), (HEADER_EVENT_TYPE, "order.update")],
            vec![("x-service-timestamp", &ts), ("X-SERVICE-SIGNATURE-256", &sig), (HEADER_DELIVERY_ID, "a"), (HEADER_DELIVERY_ID, "b")],
            vec![(HEADER_TIMESTAMP, &ts), (HEADER_TIMESTAMP, "1"), (HEADER_SIGNATURE, &sig)],
            vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_SIGNATURE, &sig)],
            vec![(HEADER_TIMESTAMP, ""), (HEADER_SIGNATURE, &sig)],
            vec![(HEADER_TIMESTAMP, "0001767225600"), (HEADER_SIGNATURE, "sha256=zz")],
            vec![(HEADER_SIGNATURE, &sig)],
            vec![],
        ];
        // One pass over the pairs finds what a lookup of each name finds (Headers::lookup, one
        // scan per name), and the position of the first pair of that name when there is one value.
        for pairs in cases {
            let headers = Headers::from_pairs(pairs.iter().copied());
            let found = ServiceHeaders::find(pairs.iter().copied());
            for (slot, name) in SERVICE_HEADERS.iter().enumerate() {
                assert_eq!(found.values[slot], headers.lookup(name), "{pairs:?} {name}");
                let first = pairs.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)).map_or(0, |i| i as u32 + 1);
                let want = if matches!(headers.lookup(name), HeaderValue::One(_)) { first } else { 0 };
                assert_eq!(found.position(slot), want, "{pairs:?} {name}");
            }
        }
    }

    #[test]
    fn keyed_verification_answers_as_verify_does() {
        let long = [7u8; 100];
        let secret_sets: Vec<Vec<&[u8]>> = vec![vec![SECRET], vec![b"old", SECRET], vec![b"old"], vec![], vec![SECRET, b""], vec![&long]];
        for body in [&b""[..], b"x", &[b'y'; 55], &[b'z'; 64], &[0u8; 1000]] {
            let sig = sign(SECRET, NOW, body).unwrap();
            let long_sig = sign(&long, NOW, body).unwrap();
            let ts = NOW.to_string();
            let cases: Vec<Vec<(&str, &str)>> = vec![
                vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_DELIVERY_ID, "d-1"), (HEADER_EVENT_TYPE, "order.created")],
                vec![("x-service-timestamp", &ts), ("x-service-signature-256", &long_sig)],
                vec![(HEADER_TIMESTAMP, "1767225000"), (HEADER_SIGNATURE, &sig)],
                vec![(HEADER_TIMESTAMP, &ts), (HEADER_SIGNATURE, &sig), (HEADER_SIGNATURE, "sha256=00")],
                vec![(HEADER_SIGNATURE, &sig)],
            ];
            for pairs in &cases {
                let headers = Headers::from_pairs(pairs.iter().copied());
                for secrets in &secret_sets {
                    let keys: Vec<MacKey> = secrets.iter().map(|s| MacKey::new(s)).collect();
                    let general = verify(body, &headers, secrets, NOW, 300).map_err(|e| e.code());
                    let keyed = verify_keyed(body, &ServiceHeaders::find(pairs.iter().copied()), &keys, NOW, 300)
                        .map(|(v, i)| Verified {
                            timestamp: v.timestamp,
                            delivery_id: v.delivery_id.map(str::to_owned),
                            event_type: v.event_type.map(str::to_owned),
                            secret_index: i,
                        })
                        .map_err(|e| e.code());
                    assert_eq!(general, keyed, "{pairs:?} {} secrets, {} bytes", secrets.len(), body.len());
                }
            }
        }
        // The key's MAC against the hmac crate's, for every length around the block edges, short
        // and long prefixes, and keys shorter than, equal to and longer than a block.
        for secret in [&b"k"[..], &[9u8; 64], &[3u8; 65], &[1u8; 200]] {
            let key = MacKey::new(secret);
            for prefix in [&b""[..], b"1767225600.", &[b'p'; 70]] {
                for n in (0..200).chain([255, 256, 257, 1000, 4096]) {
                    let body: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
                    let mut m = HmacSha256::new_from_slice(secret).unwrap();
                    m.update(prefix);
                    m.update(&body);
                    let want: [u8; 32] = m.finalize().into_bytes().into();
                    assert_eq!(key.mac(prefix, &body), want, "{} byte key, {} byte prefix, {n} bytes", secret.len(), prefix.len());
                    // The same MAC when a native SHA-256 hashes the inner message (Node's path).
                    let inner = sha256(&[&MacKey::inner_pad(secret), prefix, &body]);
                    assert_eq!(key.outer_mac(&inner), want, "inner pad: {} byte key, {n} bytes", secret.len());
                }
            }
        }
        // Inner hashes matched against the signature: the index of the key that signed; none
        // matching is SIGNATURE_MISMATCH.
        let keys = [MacKey::new(b"old"), MacKey::new(SECRET)];
        let body = b"{}";
        let expected = mac(SECRET, b"1767225600", body);
        let inner = |secret: &[u8]| sha256(&[&MacKey::inner_pad(secret), b"1767225600.", body]);
        assert_eq!(match_inner_hashes(&expected, &keys, [inner(b"old"), inner(SECRET)]), Ok(1));
        // Each hash goes with the key at its position: swapped, neither MAC is right.
        assert_eq!(match_inner_hashes(&expected, &keys, [inner(SECRET), inner(b"old")]), Err(WebhookError::SignatureMismatch));
        assert_eq!(match_inner_hashes(&expected, &keys, [inner(b"old"), inner(b"new")]), Err(WebhookError::SignatureMismatch));
        // A key made once serves every later message, and its Debug form holds no key material.
        let key = MacKey::new(SECRET);
        assert_eq!(format!("{key:?}"), "MacKey { len: 11, .. }");
        for body in [&b"a"[..], b"b"] {
            let pairs = [(HEADER_TIMESTAMP, "1767225600"), (HEADER_SIGNATURE, &*sign(SECRET, NOW, body).unwrap())];
            assert_eq!(verify_keyed(body, &ServiceHeaders::find(pairs), std::slice::from_ref(&key), NOW, 300).unwrap().1, 0);
        }
    }

    #[test]
    fn checked_headers_say_the_signed_prefix_without_a_copy() {
        let sig = sign(SECRET, NOW, b"{}").unwrap();
        let found = ServiceHeaders::find([(HEADER_TIMESTAMP, "1767225600"), (HEADER_SIGNATURE, &*sig), (HEADER_DELIVERY_ID, "d-1")]);
        let checked = check_service_headers(&found, [SECRET.len()].into_iter(), NOW, 300).unwrap();
        let verified = verify_service_headers(&found, [SECRET.len()].into_iter(), NOW, 300).unwrap();
        assert!(checked.is_signed_prefix(verified.signed_prefix.as_bytes()));
        for other in [&b"1767225600"[..], b"01767225600.", b"1767225600..", b".", b""] {
            assert!(!checked.is_signed_prefix(other), "{:?}", std::str::from_utf8(other));
        }
        assert_eq!((checked.timestamp, checked.delivery_id, checked.expected), (NOW, Some("d-1"), verified.expected));
        // The same refusals as verify_service_headers.
        let stale = check_service_headers(&found, [SECRET.len()].into_iter(), NOW + 301, 300).err();
        assert_eq!(stale, verify_service_headers(&found, [SECRET.len()].into_iter(), NOW + 301, 300).err());
        assert!(stale.is_some());
    }

    #[test]
    fn round_trip_and_case_insensitive_names() {
        let body = b"{\"a\":1}";
        let sig = sign(SECRET, NOW, body).unwrap();
        let h = Headers::from_pairs([("X-SERVICE-TIMESTAMP", NOW.to_string()), ("x-service-signature-256", sig)]);
        let ok = verify(body, &h, &[SECRET], NOW, 300).unwrap();
        assert_eq!(ok.timestamp, NOW);
        assert_eq!(ok.delivery_id, None);
    }

    #[test]
    fn window_edges() {
        let body = b"x";
        assert!(verify(body, &signed(body, NOW - 300), &[SECRET], NOW, 300).is_ok());
        assert!(verify(body, &signed(body, NOW + 300), &[SECRET], NOW, 300).is_ok());
        assert_eq!(verify(body, &signed(body, NOW - 301), &[SECRET], NOW, 300).unwrap_err().code(), "TIMESTAMP_TOO_OLD");
        assert_eq!(verify(body, &signed(body, NOW + 301), &[SECRET], NOW, 300).unwrap_err().code(), "TIMESTAMP_IN_FUTURE");
        assert!(verify(body, &signed(body, NOW), &[SECRET], NOW, 0).is_ok());
        assert!(verify(body, &signed(body, NOW - 1), &[SECRET], NOW, 0).is_err());
    }

    #[test]
    fn malformed_timestamps() {
        for bad in ["+1", "-1", " 1", "1 ", "1.5", "1e3", "0x10", "99999999999999999999999"] {
            assert_eq!(parse_timestamp(bad).unwrap_err().code(), "MALFORMED_TIMESTAMP", "{bad}");
        }
        assert_eq!(parse_timestamp("0").unwrap(), 0);
    }

    #[test]
    fn rotation_reports_index() {
        let body = b"x";
        let ok = verify(body, &signed(body, NOW), &[&b"old"[..], SECRET], NOW, 300).unwrap();
        assert_eq!(ok.secret_index, 1);
    }

    #[test]
    fn conflicting_duplicate_headers_are_malformed() {
        let body = b"x";
        let mut h = signed(body, NOW);
        h.push("x-service-signature-256", format!("sha256={}", "0".repeat(64)));
        assert_eq!(verify(body, &h, &[SECRET], NOW, 300).unwrap_err().code(), "MALFORMED_SIGNATURE");
        let mut same = signed(body, NOW);
        let sig = same.get(HEADER_SIGNATURE).unwrap().to_string();
        same.push("X-Service-Signature-256", sig);
        assert!(verify(body, &same, &[SECRET], NOW, 300).is_ok());
    }

    #[test]
    fn messages_never_contain_the_secret() {
        let secret = b"s3cr3t-VALUE-xyz";
        let body = b"{\"a\": 1}";
        let good = sign(secret, NOW, body).unwrap();
        let zero = format!("sha256={}", "0".repeat(64));
        let header_sets = [
            vec![(HEADER_SIGNATURE, good.clone())],
            vec![(HEADER_TIMESTAMP, NOW.to_string())],
            vec![(HEADER_TIMESTAMP, "12a".to_string()), (HEADER_SIGNATURE, good.clone())],
            vec![(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, "md5=abc".to_string())],
            vec![(HEADER_TIMESTAMP, (NOW - 999).to_string()), (HEADER_SIGNATURE, good.clone())],
            vec![(HEADER_TIMESTAMP, (NOW + 999).to_string()), (HEADER_SIGNATURE, good.clone())],
            vec![(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, zero)],
        ];
        let mut codes = std::collections::BTreeSet::new();
        for set in header_sets {
            let h = Headers::from_pairs(set);
            for secrets in [vec![&secret[..]], vec![&b" s3cr3t-VALUE-xyz\n"[..]]] {
                let d = diagnose(body, &h, &secrets, NOW, 300);
                codes.insert(d.code.unwrap());
                let text = format!("{d:?}");
                assert!(!text.contains("s3cr3t-VALUE-xyz"), "{text}");
            }
        }
        assert_eq!(codes.len(), 7, "{codes:?}");
    }

    #[test]
    fn diagnose_finds_each_known_mistake() {
        let original = b"{\"orderKey\":\"ord_0123456789abcdef\",\n\"event\":\"delivered\"}";
        let h = signed(original, NOW);
        // The service signed compact JSON; the receiver pretty-printed it.
        let compact = b"{\"orderKey\":\"ord_0123456789abcdef\",\"event\":\"delivered\"}";
        let pretty = b"{\n  \"orderKey\": \"ord_0123456789abcdef\",\n  \"event\": \"delivered\"\n}".to_vec();
        let d = diagnose(&pretty, &signed(compact, NOW), &[SECRET], NOW, 300);
        assert_eq!(d.findings[0].code, "BODY_RESERIALIZED", "{:?}", d.findings);
        // The service signed Python-style spacing; the receiver passed JSON.stringify output.
        let spaced = b"{\"orderKey\": \"ord_0123456789abcdef\", \"event\": \"delivered\"}";
        let d = diagnose(compact, &signed(spaced, NOW), &[SECRET], NOW, 300);
        assert_eq!(d.findings[0].code, "BODY_RESERIALIZED", "{:?}", d.findings);
        let cases: Vec<(&str, Vec<u8>, &[u8])> = vec![
            ("LINE_ENDINGS_CHANGED", replace(original, b"\n", b"\r\n"), SECRET),
            ("TRAILING_NEWLINE_ADDED", [&original[..], b"\n"].concat(), SECRET),
            ("BOM_ADDED", [&b"\xEF\xBB\xBF"[..], original].concat(), SECRET),
            ("SECRET_WHITESPACE", original.to_vec(), b"test_secret\n"),
        ];
        for (code, body, secret) in cases {
            let d = diagnose(&body, &h, &[secret], NOW, 300);
            assert!(!d.valid);
            assert_eq!(d.findings.first().map(|f| f.code), Some(code), "{code}: {:?}", d.findings);
        }
    }

    #[test]
    fn diagnose_body_only_and_skew_and_millis() {
        let body = b"hello";
        let body_only = format!("sha256={}", hex_lower(&mac_body_only(SECRET, body)));
        let h = Headers::from_pairs([(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, body_only)]);
        assert_eq!(diagnose(body, &h, &[SECRET], NOW, 300).findings[0].code, "SIGNED_BODY_ONLY");

        let d = diagnose(body, &signed(body, NOW - 1000), &[SECRET], NOW, 300);
        assert_eq!(d.code, Some("TIMESTAMP_TOO_OLD"));
        assert_eq!(d.skew_seconds, Some(-1000));
        assert_eq!(d.findings[0].code, "CLOCK_SKEW");

        let d = diagnose(body, &signed(body, NOW * 1000), &[SECRET], NOW, 300);
        assert_eq!(d.code, Some("TIMESTAMP_IN_FUTURE"));
        assert_eq!(d.findings[0].code, "TIMESTAMP_IN_MILLISECONDS");
        // One finding about the signature: no advice to sync a clock beside it.
        assert!(!d.findings.iter().any(|f| f.code == "CLOCK_SKEW"), "{:?}", d.findings);
        assert!(d.findings[0].message.contains("the HMAC itself matches"));
    }

    #[test]
    fn diagnose_duplicate_headers_uppercase_hex_and_number_formatting() {
        let body = b"{\"price\":23.4}";
        let good = signed(body, NOW);
        let sig = good.get(HEADER_SIGNATURE).unwrap().to_string();
        let other = format!("sha256={}", "0".repeat(64));
        let dup = Headers::from_pairs([(HEADER_TIMESTAMP, NOW.to_string()), (HEADER_SIGNATURE, sig.clone()), (HEADER_SIGNATURE, other)]);
        let d = diagnose(body, &dup, &[SECRET], NOW, 300);
        assert_eq!(d.code, Some("MALFORMED_SIGNATURE"));
        assert_eq!(d.findings[0].code, "HEADER_DUPLICATED");
        assert!(!d.findings.iter().any(|f| f.code == "SIGNATURE_NOT_HEX"), "{:?}", d.findings);
        let dup_ts = Headers::from_pairs([
            (HEADER_TIMESTAMP, NOW.to_string()),
            (HEADER_TIMESTAMP, (NOW + 1).to_string()),
            (HEADER_SIGNATURE, sig.clone()),
        ]);
        assert_eq!(diagnose(body, &dup_ts, &[SECRET], NOW, 300).findings[0].code, "HEADER_DUPLICATED");

        let upper = Headers::from_pairs([
            (HEADER_TIMESTAMP, NOW.to_string()),
            (HEADER_SIGNATURE, format!("sha256={}", sig["sha256=".len()..].to_ascii_uppercase())),
        ]);
        let d = diagnose(body, &upper, &[SECRET], NOW, 300);
        assert!(d.valid);
        assert_eq!(d.findings[0].code, "VALID");
        assert!(d.findings.iter().any(|f| f.code == "SIGNATURE_UPPERCASE_HEX"));
        assert!(
            !diagnose(body, &good, &[SECRET], NOW, 300).findings.iter().any(|f| f.code == "SIGNATURE_UPPERCASE_HEX"),
            "lowercase: no note"
        );

        // The service signed 23.4; the receiver checks a re-serialization that wrote 23.40 and spaces.
        let d = diagnose(b"{ \"price\": 23.40 }", &good, &[SECRET], NOW, 300);
        assert_eq!(d.findings[0].code, "BODY_RESERIALIZED");
        assert!(d.findings[0].message.contains("not only spacing"), "{}", d.findings[0].message);
        // Spacing alone is called spacing.
        let spaced = b"{\"a\":1,\"b\":[1,2]}";
        let d = diagnose(b"{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}", &signed(spaced, NOW), &[SECRET], NOW, 300);
        assert_eq!(d.findings[0].code, "BODY_RESERIALIZED");
        assert!(d.findings[0].message.contains("different spacing"));
    }

    #[test]
    fn diagnose_wrong_secret_says_so() {
        let body = b"hello";
        let d = diagnose(body, &signed(body, NOW), &[b"other"], NOW, 300);
        assert_eq!(d.code, Some("SIGNATURE_MISMATCH"));
        let causes: Vec<&str> =
            d.findings.iter().map(|f| f.code).filter(|c| !c.starts_with("DELIVERY_ID") && !c.starts_with("EVENT_TYPE")).collect();
        assert_eq!(causes.last(), Some(&"WRONG_SECRET_OR_BODY"));
    }

    #[test]
    fn diagnose_checks_the_headers_beyond_the_signature() {
        // Authentication 3: "X-Service-Delivery-Id (UUID, see Events), X-Service-Event-Type (only
        // order.created, on the creation webhook)".
        let update =
            br#"{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T14:30:00Z"}"#;
        let codes = |h: &Headers, body: &[u8]| {
            let d = diagnose(body, h, &[SECRET], NOW, 300);
            assert!(d.valid, "the signature verdict is unchanged");
            d.findings.iter().map(|f| f.code).collect::<Vec<_>>()
        };
        let mut h = signed(update, NOW);
        h.push(HEADER_DELIVERY_ID, "3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f");
        assert_eq!(codes(&h, update), vec!["VALID"]);
        let mut bad = signed(update, NOW);
        bad.push(HEADER_DELIVERY_ID, "delivery-42");
        bad.push(HEADER_EVENT_TYPE, "order.updated");
        assert_eq!(codes(&bad, update), vec!["VALID", "DELIVERY_ID_NOT_UUID", "EVENT_TYPE_UNKNOWN"]);
        let mut on_update = signed(update, NOW);
        on_update.push(HEADER_DELIVERY_ID, "3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f");
        on_update.push(HEADER_EVENT_TYPE, "order.created");
        assert_eq!(codes(&on_update, update), vec!["VALID", "EVENT_TYPE_NOT_ON_CREATION"]);
        let creation = br#"{"displayCode":"A-1","storeRemoteId":"S-1","fulfillment":{"type":"pickup"}}"#;
        assert_eq!(codes(&signed(creation, NOW), creation), vec!["VALID", "DELIVERY_ID_MISSING", "EVENT_TYPE_MISSING"]);
        for c in ["DELIVERY_ID_MISSING", "DELIVERY_ID_NOT_UUID", "EVENT_TYPE_UNKNOWN", "EVENT_TYPE_NOT_ON_CREATION", "EVENT_TYPE_MISSING"] {
            assert!(FINDING_CODES.contains(&c));
        }
    }
}
