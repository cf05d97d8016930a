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

use crate::http::HeaderValue;
pub use crate::http::Headers;

mod causes;
mod diagnose;
mod forms;
mod key;
#[cfg(test)]
mod tests;
mod verify;

pub use causes::{
    cause, foreign_signature_message, plan, probe_variant, refusal_cause_message, wrong_route_message, Attempt, Cause, CauseError,
    CauseRule, Delivery, CAUSES, CLOCK_OFFSETS, DIAGNOSE_MAX_VARIANT_BODY, FOREIGN_SIGNATURE_RULE, MAX_DIAGNOSTIC_DELIVERIES,
    REFUSAL_CAUSE_RULE,
};
pub use diagnose::{diagnose, Diagnosis, Finding, FINDING_CODES};
// For the wasm face (src/wasm/): the webhook-only module uses all of them, other builds some or none.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook", not(feature = "toolkit"))), allow(unused_imports))]
pub(crate) use key::{match_inner_hashes, verify_keyed, MacKey};
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook", not(feature = "toolkit"))), allow(unused_imports))]
pub(crate) use verify::{check_service_headers, verify_service_headers, ServiceHeaders};
pub use verify::{match_macs, verify, verify_headers, VerifiedHeaders, MAX_SECRETS};

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
    hmac_parts(secret, &[timestamp, b".", body])
}

/// The MAC of `body` alone, without the timestamp (a known mistake, for [`diagnose`]).
fn mac_body_only(secret: &[u8], body: &[u8]) -> [u8; 32] {
    hmac_parts(secret, &[body])
}

/// HMAC-SHA256 of the parts, concatenated, under any key (the empty one too). One instance for
/// every MAC of the module (the signature, the diagnosis's variants): kept out of line, so that
/// opt-level 3 does not copy the HMAC into each caller of the webhook module (issue 10's budget).
#[inline(never)]
pub(crate) fn hmac_parts(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for HMAC.
    let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes keys of any size");
    for p in parts {
        m.update(p);
    }
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
