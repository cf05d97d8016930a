//! Verification: the service headers found in one pass, the checks before any MAC, and the
//! constant-time comparison of the MACs.

use super::{
    mac, parse_signature, parse_timestamp, Verified, WebhookError, HEADER_DELIVERY_ID, HEADER_EVENT_TYPE, HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
};
use crate::http::{HeaderValue, Headers};
use subtle::ConstantTimeEq;

/// The parts of a request every check needs, parsed once.
pub(super) struct Parsed<'h> {
    pub(super) timestamp_raw: &'h str,
    pub(super) timestamp: u64,
    pub(super) signature: [u8; 32],
}

/// The four service headers of a request, found in one pass over its `(name, value)` pairs (names
/// compared without regard to case, as [`Headers::get`] does), each with the position of its
/// first pair.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServiceHeaders<'h> {
    pub(super) values: [HeaderValue<'h>; 4],
    first: [usize; 4],
}

/// The names [`ServiceHeaders`] holds, in its order (the `SLOT_*` positions).
pub(super) const SERVICE_HEADERS: [&str; 4] = [HEADER_TIMESTAMP, HEADER_SIGNATURE, HEADER_DELIVERY_ID, HEADER_EVENT_TYPE];
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

    pub(super) fn position(&self, slot: usize) -> u32 {
        self.one(slot).map_or(0, |_| self.first[slot] as u32 + 1)
    }
}

pub(super) fn parse_headers<'h>(timestamp: HeaderValue<'h>, signature: HeaderValue<'h>) -> Result<Parsed<'h>, WebhookError> {
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
pub(super) fn matching_secret<S: AsRef<[u8]>>(secrets: &[S], timestamp: &[u8], body: &[u8], expected: &[u8; 32]) -> Option<usize> {
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
pub(super) fn same_mac(a: &[u8; 32], b: &[u8; 32]) -> bool {
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
