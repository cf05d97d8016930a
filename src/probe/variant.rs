//! The deliveries the service would never send, made from one it did: each a fresh delivery (a
//! new `X-Service-Delivery-Id`, and for a creation a new `orderKey`), so that a POS with a
//! persistent dedupe store can be probed again and again, and no variant is answered from a cache
//! a genuine delivery filled.
//!
//! A variant is made the moment before it is sent: its timestamp is taken then (`now`), so that a
//! receiver's rounding never decides a ±330 s check.

use super::Exchange;
use crate::service::Ids;
use serde_json::Value;

/// How a variant differs from the genuine delivery it is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// A new order, signed as the service signs (the concurrent copies).
    FreshOrder,
    /// A new order; one byte of the body changed after signing.
    TamperedBody,
    /// A new order signed with another secret.
    WrongSecret,
    /// A new order whose timestamp is 330 s old.
    TimestampOld,
    /// A new order whose timestamp is 330 s ahead.
    TimestampAhead,
    /// A new order without `X-Service-Signature-256`.
    SignatureMissing,
    /// A new order without `X-Service-Timestamp`.
    TimestampMissing,
    /// A new order, the body re-spaced (insignificant whitespace) and signed as sent.
    Whitespace,
    /// An update webhook whose `event` is a value the contract does not know (yet).
    UnknownEvent,
    /// An update webhook with fields the contract does not define (yet).
    UnknownFields,
}

/// The skew of the timestamp variants, seconds: past the contract's 300 by a margin no rounding
/// of a receiver's clock covers.
pub const SKEW_SECONDS: u64 = 330;
/// The event value of [`Variant::UnknownEvent`]: not one of the four the contract lists.
pub const UNKNOWN_EVENT: &str = "driver_arrived";

impl Variant {
    /// Every variant, by name.
    pub const ALL: &'static [(&'static str, Variant)] = &[
        ("fresh-order", Self::FreshOrder),
        ("tampered-body", Self::TamperedBody),
        ("wrong-secret", Self::WrongSecret),
        ("timestamp-old", Self::TimestampOld),
        ("timestamp-ahead", Self::TimestampAhead),
        ("signature-missing", Self::SignatureMissing),
        ("timestamp-missing", Self::TimestampMissing),
        ("whitespace", Self::Whitespace),
        ("unknown-event", Self::UnknownEvent),
        ("unknown-fields", Self::UnknownFields),
    ];

    /// The variant named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// Why a variant cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    /// The genuine delivery is not the kind the variant needs.
    #[error("{0}")]
    Source(String),
    /// The secret is empty.
    #[error("the secret is empty")]
    Secret,
}

impl VariantError {
    /// A stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Source(_) => "INVALID_ARGUMENT",
            Self::Secret => "INVALID_SECRET",
        }
    }
}

const TIMESTAMP: &str = "X-Service-Timestamp";
const SIGNATURE: &str = "X-Service-Signature-256";
const DELIVERY_ID: &str = "X-Service-Delivery-Id";

/// Makes `variant` of the genuine delivery `genuine` (its method, URL, headers and body), sent at
/// `now` (unix seconds), with the account's `secret`; fresh ids come from `ids`.
pub fn make(variant: Variant, genuine: &Exchange, secret: &[u8], now: u64, ids: &mut Ids) -> Result<Exchange, VariantError> {
    if secret.is_empty() {
        return Err(VariantError::Secret);
    }
    let mut out = Exchange { method: genuine.method.clone(), url: genuine.url.clone(), ..Exchange::default() };
    for (k, v) in &genuine.headers {
        if ![TIMESTAMP, SIGNATURE, DELIVERY_ID].iter().any(|h| h.eq_ignore_ascii_case(k)) {
            out.headers.insert(k.clone(), v.clone());
        }
    }
    out.headers.insert(DELIVERY_ID.into(), ids.uuid_v4());
    let creation = !matches!(variant, Variant::UnknownEvent | Variant::UnknownFields);
    let mut body = if creation {
        let old = order_key_of(&genuine.body)
            .ok_or_else(|| VariantError::Source("the genuine delivery has no orderKey: a creation webhook is needed".into()))?;
        let fresh = ids.order_key();
        genuine.body.replacen(&format!("\"{old}\""), &format!("\"{fresh}\""), 1)
    } else {
        let mut v: serde_json::Map<String, Value> = serde_json::from_str(&genuine.body)
            .ok()
            .filter(|m: &serde_json::Map<String, Value>| m.contains_key("event"))
            .ok_or_else(|| VariantError::Source("the genuine delivery is not an update webhook (a JSON object with an event)".into()))?;
        if variant == Variant::UnknownEvent {
            v.insert("event".into(), Value::String(UNKNOWN_EVENT.into()));
            for k in ["driver", "releasedDriver", "expectedNext", "reason"] {
                v.remove(k);
            }
        } else {
            v.insert("loyaltyTier".into(), Value::String("gold".into()));
            v.insert("courier".into(), serde_json::json!({ "vehicle": "bike", "etaMinutes": 7 }));
            if let Some(Value::Object(d)) = v.get_mut("driver") {
                d.insert("rating".into(), serde_json::json!(4.9));
            }
        }
        serde_json::to_string(&Value::Object(v)).unwrap_or_default()
    };
    if variant == Variant::Whitespace {
        body = respace(&body);
    }
    let stamp = match variant {
        Variant::TimestampOld => now.saturating_sub(SKEW_SECONDS),
        Variant::TimestampAhead => now + SKEW_SECONDS,
        _ => now,
    };
    let key: Vec<u8> = if variant == Variant::WrongSecret { other_secret(secret, ids) } else { secret.to_vec() };
    let signature = crate::signature::sign(&key, stamp, body.as_bytes()).map_err(|_| VariantError::Secret)?;
    if variant == Variant::TamperedBody {
        body = tamper(&body);
    }
    if variant != Variant::TimestampMissing {
        out.headers.insert(TIMESTAMP.into(), stamp.to_string());
    }
    if variant != Variant::SignatureMissing {
        out.headers.insert(SIGNATURE.into(), signature);
    }
    out.body = body;
    Ok(out)
}

/// The `orderKey` at the top of a creation body.
fn order_key_of(body: &str) -> Option<String> {
    let v: Value = serde_json::from_str(body).ok()?;
    v.get("orderKey")?.as_str().map(str::to_string)
}

/// A secret of the same length that is not `secret`.
fn other_secret(secret: &[u8], ids: &mut Ids) -> Vec<u8> {
    loop {
        let s = format!("whsec_probe_{}", ids.base62(secret.len().clamp(16, 64)));
        if s.as_bytes() != secret {
            return s.into_bytes();
        }
    }
}

/// The body with one byte changed: the last character of its orderKey, to another base62 one
/// (still valid JSON and UTF-8, so only the signature tells it apart).
fn tamper(body: &str) -> String {
    let at = body.find("\"ord_").map(|i| i + 1 + 4 + 16).filter(|&i| i < body.len() && body.as_bytes()[i] == b'"');
    let mut bytes = body.as_bytes().to_vec();
    match at {
        Some(end) => {
            let b = &mut bytes[end - 1];
            *b = if *b == b'x' { b'y' } else { b'x' };
        }
        // No orderKey (never for a creation): the first digit or letter of the body.
        None => {
            if let Some(b) = bytes.iter_mut().find(|b| b.is_ascii_alphanumeric()) {
                *b = if *b == b'x' { b'y' } else { b'x' };
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| body.to_string())
}

/// The JSON text with insignificant whitespace added: a space after every `:` and `,` outside
/// strings, a newline after every `{` and `[`, and one at the end. The values and their order are
/// unchanged, so a receiver that parses and re-serializes sees the same document, and a receiver
/// that signs what it re-serialized does not see these bytes.
pub fn respace(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 4);
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        out.push(c);
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            ':' | ',' => out.push(' '),
            '{' | '[' => out.push_str("\n  "),
            _ => {}
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;
