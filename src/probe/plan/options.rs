//! A run's options, checked and defaulted: what `probe()` and `poscheck probe` are given, as JSON
//! (the npm face writes its options object with `JSON.stringify`), read the way the face read them
//! before the plan moved into the core, with the same error messages.

use super::PlanError;
use crate::probe::{Side, RULES};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Every option `probe()` takes (`onReady` and `onProgress` are the face's functions: JSON does
/// not carry a function, so one found here is not one).
pub const OPTIONS: &[&str] = &[
    "pos",
    "stores",
    "secret",
    "apiKey",
    "port",
    "seed",
    "receiverOnly",
    "only",
    "wait",
    "budgetMs",
    "faults",
    "retryAfterSeconds",
    "onReady",
    "onProgress",
];

/// The store a run uses when none is given.
pub const DEFAULT_STORE: &str = "STORE-1";
/// At most this many stores.
pub const MAX_STORES: usize = 20;
/// The largest seed (JavaScript's largest safe integer).
pub const MAX_SEED: u64 = 9_007_199_254_740_991;

/// The REST faults a run may inject: the status, and the sandbox's fault option it sets.
pub const FAULTS: &[(&str, &str)] = &[("429", "rateLimited"), ("502", "badGateway"), ("503", "unavailable")];

/// The options of a run, checked and defaulted.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The POS base URL, without trailing slashes.
    pub pos: String,
    /// The stores' remoteIds (the first is the one the scenarios use).
    pub stores: Vec<String>,
    /// The account's HMAC secret (`None`: the sandbox makes one).
    pub secret: Option<String>,
    /// The sandbox's API key (`None`: the sandbox makes one).
    pub api_key: Option<String>,
    /// The sandbox's port (0: a free one).
    pub port: f64,
    /// The seed of the sandbox's and the probe's ids.
    pub seed: u64,
    /// The client checks are skipped.
    pub receiver_only: bool,
    /// The checks to run (`None`: every one).
    pub only: Option<BTreeSet<&'static str>>,
    /// How long the POS has to make its REST calls, seconds.
    pub wait: f64,
    /// The latency budget of receiver/answer-latency, ms.
    pub budget_ms: f64,
    /// The `Retry-After` of the injected 429s, seconds.
    pub retry_after_seconds: f64,
    /// The injected faults: the sandbox's fault option and its rate, in the order of [`FAULTS`].
    pub faults: Vec<(&'static str, f64)>,
}

impl Options {
    /// The options of `text` (a JSON object); `default_seed` when it gives none (the face draws
    /// it: the core has no randomness).
    pub fn from_json(text: &str, default_seed: u64) -> Result<Self, PlanError> {
        let value: Value = serde_json::from_str(text).map_err(|e| PlanError::Invalid(format!("probe's options cannot be read: {e}")))?;
        Self::from_value(&value, default_seed)
    }

    /// The options of `value`, checked in the order the face always checked them.
    pub fn from_value(value: &Value, default_seed: u64) -> Result<Self, PlanError> {
        let invalid = |m: String| PlanError::Invalid(m);
        let empty = Map::new();
        let o = match value {
            Value::Object(o) => o,
            // An array is an object to the face: its keys are its indices.
            Value::Array(a) if a.is_empty() => &empty,
            Value::Array(_) => return Err(invalid(format!("unknown option \"0\": expected one of {}", OPTIONS.join(", ")))),
            _ => return Err(invalid("probe takes an options object".into())),
        };
        for k in o.keys() {
            if !OPTIONS.contains(&k.as_str()) {
                return Err(invalid(format!("unknown option {}: expected one of {}", js(&Value::String(k.clone())), OPTIONS.join(", "))));
            }
        }
        let pos = pos(o.get("pos"))?;
        let stores = stores(given(o, "stores"))?;
        let only = match o.get("only") {
            None => None,
            Some(v) => Some(only(v)?),
        };
        let faults = faults(given(o, "faults"))?;
        for k in ["secret", "apiKey"] {
            if let Some(v) = o.get(k) {
                if !matches!(v, Value::String(s) if !s.is_empty()) {
                    return Err(invalid(format!("{k} must be a non-empty string")));
                }
            }
        }
        let seed = match o.get("seed") {
            None => default_seed,
            Some(v) => v
                .as_u64()
                .filter(|&s| s <= MAX_SEED)
                .or_else(|| whole(v))
                .ok_or_else(|| invalid("seed must be a non-negative integer".into()))?,
        };
        for k in ["onReady", "onProgress"] {
            if o.contains_key(k) {
                return Err(invalid(format!("{k} must be a function")));
            }
        }
        let number = |name: &str, min: f64, max: f64, default: f64| -> Result<f64, PlanError> {
            match given(o, name) {
                None => Ok(default),
                Some(v) => v
                    .as_f64()
                    .filter(|n| n.is_finite() && (min..=max).contains(n))
                    .ok_or_else(|| invalid(format!("{name} must be a number from {min} to {max}"))),
            }
        };
        Ok(Self {
            pos,
            stores,
            secret: o.get("secret").and_then(Value::as_str).map(str::to_string),
            api_key: o.get("apiKey").and_then(Value::as_str).map(str::to_string),
            port: number("port", 0.0, 65535.0, 0.0)?,
            seed,
            receiver_only: o.get("receiverOnly").is_some_and(truthy),
            only,
            wait: number("wait", 0.0, 3600.0, 20.0)?,
            budget_ms: number("budgetMs", 1.0, 30_000.0, f64::from(crate::contract::ANSWER_BUDGET_MS))?,
            retry_after_seconds: number("retryAfterSeconds", 1.0, 120.0, 1.0)?,
            faults,
        })
    }

    /// Whether the run plays the check `id`.
    pub fn wanted(&self, id: &str) -> bool {
        self.only.as_ref().is_none_or(|o| o.contains(id))
    }
}

/// A value that is given: present and not null (the face's `options.x ?? default`).
fn given<'a>(o: &'a Map<String, Value>, k: &str) -> Option<&'a Value> {
    o.get(k).filter(|v| !v.is_null())
}

/// A whole number written as a float (`3.0`), within the safe integers.
fn whole(v: &Value) -> Option<u64> {
    v.as_f64().filter(|f| f.fract() == 0.0 && (0.0..=MAX_SEED as f64).contains(f)).map(|f| f as u64)
}

/// JavaScript's truthiness of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// `JSON.stringify` of a value, as the messages quote it.
fn js(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn pos(v: Option<&Value>) -> Result<String, PlanError> {
    let shown = v.map_or_else(|| "undefined".to_string(), js);
    let Some(Value::String(s)) = v else {
        return Err(PlanError::Invalid(format!("pos must be the POS's base URL (http or https), found {shown}")));
    };
    if crate::check::http_url_scheme(s).is_some() {
        return Ok(s.trim_end_matches('/').to_string());
    }
    // A URL of another scheme names it; anything else is not a URL.
    let scheme = s.split_once(':').map(|(scheme, _)| scheme).filter(|sc| {
        sc.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && sc.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !sc.eq_ignore_ascii_case("http")
            && !sc.eq_ignore_ascii_case("https")
    });
    Err(PlanError::Invalid(match scheme {
        Some(sc) if !s.chars().any(char::is_whitespace) => format!("pos must be an http or https URL, found {}:", sc.to_ascii_lowercase()),
        _ => format!("pos must be the POS's base URL (http or https), found {shown}"),
    }))
}

fn stores(v: Option<&Value>) -> Result<Vec<String>, PlanError> {
    let Some(v) = v else { return Ok(vec![DEFAULT_STORE.to_string()]) };
    let ok = |s: &Value| {
        s.as_str().is_some_and(|s| (1..=100).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b)))
    };
    match v {
        Value::Array(a) if !a.is_empty() && a.len() <= MAX_STORES && a.iter().all(ok) => {
            Ok(a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        }
        _ => Err(PlanError::Invalid(format!(
            "stores must be 1 to {MAX_STORES} store remoteIds (letters, digits and _ . - :, up to 100 characters)"
        ))),
    }
}

fn only(v: &Value) -> Result<BTreeSet<&'static str>, PlanError> {
    let list = v
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| PlanError::Invalid("only must be a non-empty list of check ids (see probeRules())".into()))?;
    let mut out = BTreeSet::new();
    for o in list {
        let side = match o.as_str() {
            Some("receiver") => Some(Side::Receiver),
            Some("client") => Some(Side::Client),
            _ => None,
        };
        let hits: Vec<&'static str> =
            RULES.iter().filter(|r| side.map_or(o.as_str() == Some(r.id), |s| r.side == s)).map(|r| r.id).collect();
        if hits.is_empty() {
            let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
            return Err(PlanError::Invalid(format!("no check {}: expected receiver, client, or one of {}", js(o), ids.join(", "))));
        }
        out.extend(hits);
    }
    Ok(out)
}

fn faults(v: Option<&Value>) -> Result<Vec<(&'static str, f64)>, PlanError> {
    // The face read them with Object.entries: an array's or a string's keys are its indices.
    let entries: Vec<(String, Value)> = match v {
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(Value::Array(a)) => a.iter().enumerate().map(|(i, v)| (i.to_string(), v.clone())).collect(),
        Some(Value::String(s)) => s.chars().enumerate().map(|(i, c)| (i.to_string(), Value::String(c.to_string()))).collect(),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    for (k, v) in &entries {
        let Some(&(_, option)) = FAULTS.iter().find(|(code, _)| code == k) else {
            return Err(PlanError::Invalid(format!("faults: {} is not one of 429, 502, 503", js(&Value::String(k.clone())))));
        };
        let rate = v
            .as_f64()
            .filter(|r| (0.0..=1.0).contains(r))
            .ok_or_else(|| PlanError::Invalid(format!("faults: the rate of {k} must be from 0 to 1")))?;
        out.retain(|(o, _)| *o != option);
        out.push((option, rate));
    }
    if out.iter().map(|(_, r)| r).sum::<f64>() > 1.0 {
        return Err(PlanError::Invalid("faults: the rates add up to more than 1".into()));
    }
    out.sort_by_key(|(o, _)| FAULTS.iter().position(|(_, f)| f == o));
    Ok(out)
}
