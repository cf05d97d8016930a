//! JS bindings: each export converts its arguments, calls the core, converts the result.
//! No contract logic lives here. The hand-written package facade (`pkg/src/api.js`) normalizes
//! JS types (string / Buffer / ArrayBuffer bodies, header objects, `now` defaulting) and turns
//! thrown errors into `WebhookVerificationError` / `PoscheckError` instances.

use crate::{http, signature};
use js_sys::{Error, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Serializes to plain JS objects (no `Map`), as JSON would.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| error("INTERNAL", &format!("could not convert the result: {e}"), None))
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
    if value.is_finite() && value >= 0.0 && value <= 9_007_199_254_740_991.0 {
        Ok(value.trunc() as u64)
    } else {
        Err(error("INVALID_ARGUMENT", &format!("{what} must be a non-negative number of seconds"), None))
    }
}

#[wasm_bindgen(js_name = signWebhook)]
pub fn sign_webhook(secret: &str, timestamp: &str, body: &[u8]) -> Result<String, JsValue> {
    let ts = signature::parse_timestamp(timestamp).map_err(|e| webhook_error(&e))?;
    signature::sign(secret.as_bytes(), ts, body).map_err(|e| webhook_error(&e))
}

#[wasm_bindgen(js_name = verifyWebhook)]
pub fn verify_webhook(body: &[u8], header_pairs: Vec<String>, secrets: Vec<String>, now: f64, tolerance: f64) -> Result<JsValue, JsValue> {
    let (now, tolerance) = (seconds(now, "now")?, seconds(tolerance, "toleranceSeconds")?);
    let verified = signature::verify(body, &headers(header_pairs), &secrets, now, tolerance).map_err(|e| webhook_error(&e))?;
    to_js(&verified)
}

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

#[wasm_bindgen(js_name = webhookErrorCodes)]
pub fn webhook_error_codes() -> Result<JsValue, JsValue> {
    to_js(signature::ERROR_CODES)
}

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
}

#[wasm_bindgen(js_name = parseHttpMessage)]
pub fn parse_http_message(input: &[u8]) -> Result<JsValue, JsValue> {
    let m = http::parse_message(input).map_err(|e| error(e.code(), &e.to_string(), None))?;
    let view = JsMessage {
        method: m.method.as_deref(),
        path: m.path.as_deref(),
        status: m.status,
        headers: m.headers.pairs().iter().map(|(n, v)| [n.as_str(), v.as_str()]).collect(),
    };
    let obj = to_js(&view)?;
    // The body goes back as the exact bytes, a Uint8Array.
    Reflect::set(&obj, &"body".into(), &js_sys::Uint8Array::from(m.body.as_slice()).into())?;
    Ok(obj)
}
