//! The verdicts of the client checks: each from the REST calls the POS made to the sandbox while
//! the scenarios ran, as the sandbox's call log keeps them (`GET /_sandbox/requests`).
//!
//! A check that needs the POS to have done something it did not do within the wait (accept an
//! order, meet a 429, follow a list page) is `inconclusive`, never `failed`.

use super::{rule, Check, CheckStatus, Exchange, Side};
use crate::contract::{ReasonCode, Status, UpdateEvent, WriteStatus};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// One REST call of the sandbox's log (the shape of `sandbox.requests()`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Call {
    /// Its number in the log.
    pub seq: u64,
    /// When it was answered, unix seconds.
    pub at: f64,
    /// The method as sent.
    pub method: String,
    /// The path with its query, as sent.
    pub path: String,
    /// The headers the log keeps, lowercase names.
    pub headers: BTreeMap<String, String>,
    /// The body.
    pub body: String,
    /// The answer's status.
    pub status: u16,
    /// The answer's body.
    pub answer: String,
    /// The answer's `Retry-After`, seconds.
    pub retry_after: Option<u32>,
}

/// What the face hands over for the client checks.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClientInput {
    /// The calls, oldest first.
    pub calls: Vec<Call>,
    /// Idempotency keys of the probe's own calls (left out).
    pub exclude_keys: Vec<String>,
    /// How long the POS had to act, seconds (for the messages).
    pub wait_seconds: f64,
}

/// How early a retry after a 429 may come and still count as honouring `Retry-After`, seconds:
/// the log's clock reads when each call was answered, to the millisecond.
pub const RETRY_AFTER_SLACK_SECONDS: f64 = 0.1;

const REASON_CODES: &[&str] = ReasonCode::NAMES;

impl Call {
    fn key(&self) -> Option<&str> {
        self.headers.get("idempotency-key").map(String::as_str)
    }
    fn mutation(&self) -> bool {
        matches!(self.method.as_str(), "POST" | "PUT" | "PATCH")
    }
    fn path_only(&self) -> &str {
        self.path.split(['?', '#']).next().unwrap_or("")
    }
    /// The same logical request: method, path and body.
    fn same_request(&self, other: &Call) -> bool {
        self.method == other.method && self.path == other.path && self.body == other.body
    }
    fn json(&self) -> Option<Value> {
        serde_json::from_str(&self.answer).ok()
    }
    fn body_json(&self) -> Option<Value> {
        serde_json::from_str(&self.body).ok()
    }
    /// The endpoint template the path matches, exactly (`Some(true)`) or only ignoring case
    /// (`Some(false)`).
    fn endpoint(&self) -> Option<(&'static str, bool)> {
        let segs: Vec<&str> = self.path_only().split('/').collect();
        let mut loose = None;
        for ep in crate::payload::ENDPOINTS {
            if !ep.method.eq_ignore_ascii_case(&self.method) {
                continue;
            }
            let t: Vec<&str> = ep.path.split('/').collect();
            if t.len() != segs.len() {
                continue;
            }
            let pairs = || t.iter().zip(&segs).filter(|(t, _)| !t.starts_with('{'));
            if pairs().all(|(t, s)| t == s) {
                return Some((ep.path, true));
            }
            if loose.is_none() && pairs().all(|(t, s)| t.eq_ignore_ascii_case(s)) {
                loose = Some((ep.path, false));
            }
        }
        loose
    }
    fn is(&self, method: &str, template: &str) -> bool {
        self.method == method && self.endpoint().is_some_and(|(p, _)| p == template)
    }
    /// The order key of a path under /api/v1/Orders/.
    fn order_key(&self) -> Option<&str> {
        let mut it = self.path_only().split('/').skip(3);
        it.next().filter(|s| s.eq_ignore_ascii_case("Orders"))?;
        it.next()
    }
    fn status_written(&self) -> Option<String> {
        self.body_json()?.get("status")?.as_str().map(str::to_ascii_lowercase)
    }
    fn exchange(&self) -> Exchange {
        Exchange {
            method: self.method.clone(),
            url: self.path.clone(),
            headers: self.headers.clone(),
            body: self.body.clone(),
            status: Some(self.status),
            answer: Some(self.answer.clone()),
            at: Some(self.at),
            ..Exchange::default()
        }
    }
}

const ACCEPT: &str = "/api/v1/Orders/{orderKey}/accept";
const REJECT: &str = "/api/v1/Orders/{orderKey}/reject";
const STATUS: &str = "/api/v1/Orders/{orderKey}/status";
const LIST: &str = "/api/v1/Orders";

fn is_uuid_v4(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| if [8, 13, 18, 23].contains(&i) { *c == b'-' } else { c.is_ascii_hexdigit() })
        && b[14] == b'4'
        && matches!(b[19].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b')
}

/// Every client check's verdict on `input`, in the order of [`super::RULES`].
pub fn grade(input: &ClientInput) -> Vec<Check> {
    let calls: Vec<&Call> = input.calls.iter().filter(|c| !c.key().is_some_and(|k| input.exclude_keys.iter().any(|e| e == k))).collect();
    let waited = if input.wait_seconds > 0.0 { format!(" within {} s", input.wait_seconds) } else { String::new() };
    let none = format!("the POS made no REST call to the sandbox{waited}");
    super::RULES.iter().filter(|r| r.side == Side::Client).map(|r| one(r.id, &calls, &none, &waited)).collect()
}

/// A verdict with the calls behind it as evidence (at most 3 shown).
fn check(id: &str, status: CheckStatus, message: impl Into<String>, evidence: &[&Call]) -> Check {
    let ex: Vec<Exchange> = evidence.iter().take(3).map(|c| c.exchange()).collect();
    let refs: Vec<&Exchange> = ex.iter().collect();
    let mut message = message.into();
    if evidence.len() > 3 {
        message.push_str(&format!(" ({} calls in all; the first 3 shown)", evidence.len()));
    }
    Check::new(rule(id).expect("a client rule id"), status, message, &refs)
}

/// The verdict on the calls of one kind (`of`): failed with those that are `bad`, inconclusive
/// when there is none, passed otherwise.
fn among(
    id: &str,
    of: Vec<&Call>,
    bad: impl Fn(&Call) -> bool,
    failed: impl Fn(usize) -> String,
    none: String,
    passed: impl Fn(usize) -> String,
) -> Check {
    let wrong: Vec<&Call> = of.iter().copied().filter(|c| bad(c)).collect();
    if !wrong.is_empty() {
        check(id, CheckStatus::Failed, failed(wrong.len()), &wrong)
    } else if of.is_empty() {
        check(id, CheckStatus::Inconclusive, none, &[])
    } else {
        check(id, CheckStatus::Passed, passed(of.len()), &[])
    }
}

/// For each call, the index of the next call with the same `key` (`None` for a call without a
/// key, or with no later one): one pass from the end, so a log of any length is read in linear
/// time.
fn next_same<'c, K: Eq + std::hash::Hash>(calls: &[&'c Call], key: impl Fn(&'c Call) -> Option<K>) -> Vec<Option<usize>> {
    let mut next = vec![None; calls.len()];
    let mut later: HashMap<K, usize> = HashMap::new();
    for i in (0..calls.len()).rev() {
        if let Some(k) = key(calls[i]) {
            next[i] = later.insert(k, i);
        }
    }
    next
}

/// The same request again: method, path and body.
fn same_request(calls: &[&Call]) -> Vec<Option<usize>> {
    next_same(calls, |c| Some((c.method.as_str(), c.path.as_str(), c.body.as_str())))
}

/// The same endpoint again: method and path.
fn same_target(calls: &[&Call]) -> Vec<Option<usize>> {
    next_same(calls, |c| Some((c.method.as_str(), c.path.as_str())))
}

fn one(id: &str, calls: &[&Call], none: &str, waited: &str) -> Check {
    use CheckStatus::{Failed, Inconclusive, Passed};
    let mutations: Vec<&Call> = calls.iter().copied().filter(|c| c.mutation()).collect();
    let no_mutation = format!("the POS sent no POST, PUT or PATCH{waited}");
    let empty = |what: &str| if calls.is_empty() { none.to_string() } else { what.to_string() };
    match id {
        "client/authenticated" => {
            let bad: Vec<&Call> = calls.iter().copied().filter(|c| c.status == 401).collect();
            if calls.is_empty() {
                check(id, Inconclusive, none, &[])
            } else if bad.is_empty() {
                check(id, Passed, format!("{} calls, none answered 401", calls.len()), &[])
            } else {
                check(
                    id,
                    Failed,
                    format!("{} of {} calls were answered 401: the POS must send the API key the sandbox issued", bad.len(), calls.len()),
                    &bad,
                )
            }
        }
        "client/idempotency-key-present" | "client/idempotency-key-uuid-v4" | "client/schema-version" => {
            let what = match id {
                "client/idempotency-key-present" => "without Idempotency-Key",
                "client/idempotency-key-uuid-v4" => "with an Idempotency-Key that is not a UUID v4",
                _ => "without X-Service-Schema-Version: 1.0",
            };
            let total = mutations.len();
            among(
                id,
                mutations,
                |c| match id {
                    "client/idempotency-key-present" => c.key().is_none(),
                    "client/idempotency-key-uuid-v4" => c.key().is_some_and(|k| !is_uuid_v4(k)),
                    _ => c.headers.get("x-service-schema-version").map(String::as_str) != Some("1.0"),
                },
                |n| format!("{n} of {total} mutations were sent {what}"),
                empty(&no_mutation),
                |n| format!("none of {n} mutations was sent {what}"),
            )
        }
        "client/idempotency-key-fresh" => {
            let mut first: HashMap<&str, &Call> = HashMap::new();
            for c in &mutations {
                let Some(k) = c.key() else { continue };
                match first.get(k) {
                    Some(f) if !f.same_request(c) => {
                        return check(id, Failed, format!("Idempotency-Key {k} was sent with {} {} and again with {} {} (another request): each logical attempt needs a fresh key", f.method, f.path, c.method, c.path), &[f, c]);
                    }
                    Some(_) => {}
                    None => {
                        first.insert(k, c);
                    }
                }
            }
            if first.is_empty() {
                check(id, Inconclusive, empty(&format!("the POS sent no mutation with an Idempotency-Key{waited}")), &[])
            } else {
                check(id, Passed, format!("{} keys, none used for two different requests", first.len()), &[])
            }
        }
        "client/idempotency-key-reused-on-retry" | "client/unavailable-retried-same-key" => {
            let statuses: &[u16] = if id == "client/idempotency-key-reused-on-retry" { &[429] } else { &[502, 503] };
            // A retry is the same request: the same body for the key check; the same method and
            // path for a 502/503 (a retry with a changed body is still a retry there).
            let next = if statuses[0] == 429 { same_request(calls) } else { same_target(calls) };
            let mut retried = 0;
            let mut met = 0;
            for (i, c) in calls.iter().enumerate() {
                if !statuses.contains(&c.status) {
                    continue;
                }
                met += 1;
                match next[i].map(|j| calls[j]) {
                    Some(r) if r.key() != c.key() => {
                        return check(id, Failed, format!("{} {} was answered {} and retried with Idempotency-Key {} instead of {}: a retry of the same attempt reuses its key", c.method, c.path, c.status, r.key().unwrap_or("(none)"), c.key().unwrap_or("(none)")), &[c, r]);
                    }
                    Some(_) => retried += 1,
                    None => {}
                }
            }
            let hint = if statuses[0] == 429 { "--faults 429=0.2" } else { "--faults 503=0.2 (only menu calls get them from the service)" };
            match (met, retried) {
                (0, _) => check(
                    id,
                    Inconclusive,
                    empty(&format!(
                        "no call was answered {}{waited}; inject some with {hint}",
                        if statuses[0] == 429 { "429" } else { "502 or 503" }
                    )),
                    &[],
                ),
                (_, 0) if id == "client/unavailable-retried-same-key" => {
                    check(id, Inconclusive, format!("{met} calls were answered 502 or 503 and none was retried{waited}"), &[])
                }
                (_, 0) => check(id, Inconclusive, format!("{met} calls were answered 429 and none was retried{waited}"), &[]),
                _ => check(id, Passed, format!("{retried} retries, each with the key of its first attempt"), &[]),
            }
        }
        "client/path-casing" => {
            let bad: Vec<&Call> = calls.iter().copied().filter(|c| c.endpoint().is_some_and(|(_, exact)| !exact)).collect();
            match bad.first() {
                _ if calls.is_empty() => check(id, Inconclusive, none, &[]),
                None => check(id, Passed, format!("{} calls, every path cased as the contract writes it", calls.len()), &[]),
                Some(c) => {
                    let want = c.endpoint().map(|(p, _)| p).unwrap_or_default();
                    check(
                        id,
                        Failed,
                        format!("{} calls used a path cased otherwise than the contract's, e.g. {} for {want}", bad.len(), c.path_only()),
                        &bad,
                    )
                }
            }
        }
        "client/accept-before-expiry" => {
            let accepts: Vec<&Call> = calls.iter().copied().filter(|c| c.is("POST", ACCEPT)).collect();
            let late: Vec<&Call> = accepts
                .iter()
                .copied()
                .filter(|c| {
                    c.status == 409
                        && c.json().and_then(|v| v.get("type")?.as_str().map(|t| t.ends_with("/acceptance-timeout"))).unwrap_or(false)
                })
                .collect();
            if !late.is_empty() {
                check(id, Failed, format!("{} accepts came after the order's expiresAt (409 acceptance-timeout)", late.len()), &late)
            } else if accepts.iter().any(|c| c.status == 202) {
                check(id, Passed, "every accept came before expiresAt", &[])
            } else {
                check(id, Inconclusive, empty(&format!("the POS accepted no order{waited}")), &[])
            }
        }
        "client/accept-without-remote-order-id" => among(
            id,
            calls.iter().copied().filter(|c| c.is("POST", ACCEPT)).collect(),
            |c| c.body_json().is_some_and(|v| v.get("remoteOrderId").is_some()),
            |n| {
                format!("{n} accepts sent remoteOrderId in the body: the contract asks for an empty object (remoteOrderId comes from the creation webhook's answer)")
            },
            empty(&format!("the POS accepted no order{waited}")),
            |n| format!("{n} accepts, none with remoteOrderId"),
        ),
        "client/reject-reason-code" => among(
            id,
            calls.iter().copied().filter(|c| c.is("POST", REJECT)).collect(),
            |c| !c.body_json().and_then(|v| v.get("reasonCode")?.as_str().map(|r| REASON_CODES.contains(&r))).unwrap_or(false),
            |n| format!("{n} rejects carried a reasonCode outside {}: the service records SYSTEM_ISSUE instead", REASON_CODES.join(", ")),
            empty(&format!("the POS rejected no order{waited}")),
            |n| format!("{n} rejects, each with a reasonCode of the contract"),
        ),
        "client/status-write-values" => among(
            id,
            calls.iter().copied().filter(|c| c.is("PUT", STATUS)).collect(),
            |c| c.status_written().is_some_and(|s| s == WriteStatus::Preparing.as_str() || s == UpdateEvent::Cancelled.as_str()),
            |n| {
                format!("{n} PUT status calls sent preparing or cancelled: preparing after accept is a 409, and the merchant cannot cancel through the REST API")
            },
            empty(&format!("the POS sent no PUT status{waited}")),
            |n| format!("{n} PUT status calls, none with preparing or cancelled"),
        ),
        "client/ready-conflict-continues" => {
            let next = next_same(calls, |c| c.is("PUT", STATUS).then(|| c.order_key()));
            let mut seen = 0;
            for (i, c) in calls.iter().enumerate() {
                let already_ready = c.is("PUT", STATUS)
                    && c.status == 409
                    && c.status_written().as_deref() == Some(WriteStatus::Ready.as_str())
                    && c.json()
                        .and_then(|v| v.pointer("/meta/currentStatus")?.as_str().map(|s| s == Status::Ready.as_str()))
                        .unwrap_or(false);
                if !already_ready {
                    continue;
                }
                seen += 1;
                match next[i].map(|j| calls[j]).and_then(|n| n.status_written().map(|s| (n, s))) {
                    Some((n, s)) if s == WriteStatus::Ready.as_str() => {
                        return check(id, Failed, "after a 409 with currentStatus Ready the POS sent ready again: the state is already reached, continue with handed_over", &[c, n]);
                    }
                    Some((n, s)) if s == WriteStatus::HandedOver.as_str() => {
                        return check(id, Passed, "after a 409 with currentStatus Ready the POS continued with handed_over", &[c, n]);
                    }
                    _ => {}
                }
            }
            if seen == 0 {
                check(id, Inconclusive, empty(&format!("no PUT status ready met a 409 with currentStatus Ready{waited} (the probe's driver marks its order ready as soon as the POS accepts it)")), &[])
            } else {
                check(
                    id,
                    Inconclusive,
                    format!("a PUT status ready met a 409 with currentStatus Ready, and no PUT status followed for that order{waited}"),
                    &[],
                )
            }
        }
        "client/no-retry-terminal-conflict" | "client/no-retry-unchanged-422" => {
            let next = same_request(calls);
            let mut met = 0;
            for (i, c) in calls.iter().enumerate() {
                let hit = if id == "client/no-retry-unchanged-422" {
                    c.status == 422
                } else {
                    c.status == 409
                        && c.json().and_then(|v| v.pointer("/meta/allowedTransitions")?.as_array().map(Vec::is_empty)).unwrap_or(false)
                };
                if !hit {
                    continue;
                }
                met += 1;
                if let Some(r) = next[i].map(|j| calls[j]) {
                    let why = if c.status == 422 {
                        "a 422 is not retried unchanged"
                    } else {
                        "an empty allowedTransitions means a terminal state: do not retry"
                    };
                    return check(
                        id,
                        Failed,
                        format!("{} {} was answered {} and sent again unchanged: {why}", c.method, c.path, c.status),
                        &[c, r],
                    );
                }
            }
            let what = if id == "client/no-retry-unchanged-422" { "422" } else { "409 with an empty allowedTransitions" };
            if met == 0 {
                check(id, Inconclusive, empty(&format!("no call was answered {what}{waited}")), &[])
            } else {
                check(id, Passed, format!("{met} calls answered {what}, none sent again unchanged"), &[])
            }
        }
        "client/retry-after-honoured" => {
            let next = same_target(calls);
            let (mut met, mut retried) = (0, 0);
            for (i, c) in calls.iter().enumerate() {
                if c.status != 429 {
                    continue;
                }
                met += 1;
                let wait = f64::from(c.retry_after.unwrap_or(0));
                if let Some(r) = next[i].map(|j| calls[j]) {
                    let gap = ((r.at - c.at) * 1000.0).round() / 1000.0;
                    if gap + RETRY_AFTER_SLACK_SECONDS < wait {
                        return check(
                            id,
                            Failed,
                            format!("{} {} was answered 429 with Retry-After {wait} and sent again {gap} s later", c.method, c.path),
                            &[c, r],
                        );
                    }
                    retried += 1;
                }
            }
            match (met, retried) {
                (0, _) => {
                    check(id, Inconclusive, empty(&format!("no call was answered 429{waited}; inject some with --faults 429=0.2")), &[])
                }
                (_, 0) => check(id, Inconclusive, format!("{met} calls were answered 429 and none was retried{waited}"), &[]),
                _ => check(id, Passed, format!("{retried} retries after a 429, none before its Retry-After"), &[]),
            }
        }
        "client/list-cursor-followed" => {
            let mut issued: std::collections::HashSet<String> = std::collections::HashSet::new();
            let mut followed = 0;
            for c in calls.iter().copied().filter(|c| c.is("GET", LIST)) {
                let query = c.path.split_once('?').map_or("", |(_, q)| q);
                let cursor =
                    query.split('&').find_map(|p| p.strip_prefix("Cursor=")).map(|v| crate::payload::percent_decode(v, true).to_string());
                if let Some(cur) = cursor {
                    if !issued.contains(&cur) {
                        return check(id, Failed, format!("the POS sent Cursor {cur:?}, which no list page returned as nextCursor: a cursor is opaque, taken from nextCursor, never built by hand"), &[c]);
                    }
                    followed += 1;
                }
                if let Some(next) = c.json().and_then(|v| v.pointer("/data/nextCursor")?.as_str().map(str::to_string)) {
                    issued.insert(next);
                }
            }
            if followed == 0 {
                check(id, Inconclusive, empty(&format!("the POS followed no list page (no Cursor sent){waited}")), &[])
            } else {
                check(id, Passed, format!("{followed} pages followed, each Cursor taken from a nextCursor"), &[])
            }
        }
        other => check(other, Inconclusive, "no verdict for this check", &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(at: f64, method: &str, path: &str, key: Option<&str>, body: &str, status: u16, answer: &str) -> Call {
        let mut headers = BTreeMap::new();
        headers.insert("x-service-api-key".into(), "k".into());
        if method != "GET" {
            headers.insert("x-service-schema-version".into(), "1.0".into());
        }
        if let Some(k) = key {
            headers.insert("idempotency-key".into(), k.into());
        }
        Call {
            seq: 0,
            at,
            method: method.into(),
            path: path.into(),
            headers,
            body: body.into(),
            status,
            answer: answer.into(),
            retry_after: None,
        }
    }

    const K1: &str = "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";
    const K2: &str = "1a2b3c4d-5e6f-4a7b-9c8d-e0f1a2b3c4d5";

    fn verdicts(calls: Vec<Call>) -> HashMap<String, (CheckStatus, String)> {
        grade(&ClientInput { calls, exclude_keys: vec![], wait_seconds: 10.0 }).into_iter().map(|c| (c.id, (c.status, c.message))).collect()
    }

    #[test]
    fn a_clean_flow_passes_what_it_shows_and_leaves_the_rest_inconclusive() {
        let ready409 =
            r#"{"type":"x/invalid-state-transition","status":409,"meta":{"currentStatus":"Ready","allowedTransitions":["HandedOver"]}}"#;
        let v = verdicts(vec![
            call(1.0, "POST", "/api/v1/Orders/ord_a/accept", Some(K1), "{}", 202, "{}"),
            call(1.1, "PUT", "/api/v1/Orders/ord_a/status", Some(K2), r#"{"status":"ready"}"#, 409, ready409),
            call(
                1.2,
                "PUT",
                "/api/v1/Orders/ord_a/status",
                Some("0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"),
                r#"{"status":"handed_over"}"#,
                202,
                "{}",
            ),
        ]);
        for id in [
            "client/authenticated",
            "client/idempotency-key-present",
            "client/idempotency-key-uuid-v4",
            "client/idempotency-key-fresh",
            "client/schema-version",
            "client/path-casing",
            "client/accept-before-expiry",
            "client/accept-without-remote-order-id",
            "client/status-write-values",
            "client/ready-conflict-continues",
        ] {
            assert_eq!(v[id].0, CheckStatus::Passed, "{id}: {}", v[id].1);
        }
        for id in [
            "client/reject-reason-code",
            "client/idempotency-key-reused-on-retry",
            "client/retry-after-honoured",
            "client/unavailable-retried-same-key",
            "client/list-cursor-followed",
            "client/no-retry-unchanged-422",
        ] {
            assert_eq!(v[id].0, CheckStatus::Inconclusive, "{id}: {}", v[id].1);
        }
        assert_eq!(v.len(), super::super::RULES.iter().filter(|r| r.side == Side::Client).count());
    }

    #[test]
    fn each_fault_fails_its_check() {
        let ready409 = r#"{"meta":{"currentStatus":"Ready","allowedTransitions":["HandedOver"]}}"#;
        let v = verdicts(vec![
            call(1.0, "POST", "/api/v1/orders/ord_a/accept", Some(K1), r#"{"remoteOrderId":"R"}"#, 404, "{}"),
            call(1.0, "POST", "/api/v1/Orders/ord_a/accept", Some(K1), r#"{"remoteOrderId":"R"}"#, 202, "{}"),
            call(2.0, "PUT", "/api/v1/Orders/ord_a/status", Some("not-a-uuid"), r#"{"status":"ready"}"#, 409, ready409),
            call(2.1, "PUT", "/api/v1/Orders/ord_a/status", Some("not-a-uuid"), r#"{"status":"ready"}"#, 409, ready409),
            call(3.0, "PUT", "/api/v1/Orders/ord_b/status", None, r#"{"status":"preparing"}"#, 422, "{}"),
            call(3.1, "PUT", "/api/v1/Orders/ord_b/status", None, r#"{"status":"preparing"}"#, 422, "{}"),
            call(4.0, "POST", "/api/v1/Orders/ord_c/reject", Some(K2), r#"{"reasonCode":"TOO_BUSY"}"#, 202, "{}"),
            call(5.0, "GET", "/api/v1/Orders?Cursor=99", None, "", 200, r#"{"data":{"items":[],"nextCursor":null,"hasMore":false}}"#),
        ]);
        for id in [
            "client/path-casing",
            "client/accept-without-remote-order-id",
            "client/idempotency-key-uuid-v4",
            "client/ready-conflict-continues",
            "client/idempotency-key-present",
            "client/no-retry-unchanged-422",
            "client/status-write-values",
            "client/reject-reason-code",
            "client/list-cursor-followed",
            "client/idempotency-key-fresh",
        ] {
            assert_eq!(v[id].0, CheckStatus::Failed, "{id}: {}", v[id].1);
        }
    }

    #[test]
    fn retries_after_429_and_503() {
        let mut limited = call(10.0, "POST", "/api/v1/Orders/ord_a/accept", Some(K1), "{}", 429, "{}");
        limited.retry_after = Some(1);
        let early = call(10.5, "POST", "/api/v1/Orders/ord_a/accept", Some(K1), "{}", 202, "{}");
        let v = verdicts(vec![limited.clone(), early]);
        assert_eq!(v["client/retry-after-honoured"].0, CheckStatus::Failed);
        assert_eq!(v["client/idempotency-key-reused-on-retry"].0, CheckStatus::Passed);
        let fresh_key = call(11.0, "POST", "/api/v1/Orders/ord_a/accept", Some(K2), "{}", 202, "{}");
        let v = verdicts(vec![limited.clone(), fresh_key]);
        assert_eq!(v["client/retry-after-honoured"].0, CheckStatus::Passed);
        assert_eq!(v["client/idempotency-key-reused-on-retry"].0, CheckStatus::Failed);
        let down = call(1.0, "PUT", "/api/v1/menu/availability", Some(K1), "{}", 503, "{}");
        let v = verdicts(vec![down.clone(), call(2.0, "PUT", "/api/v1/menu/availability", Some(K1), "{}", 202, "{}")]);
        assert_eq!(v["client/unavailable-retried-same-key"].0, CheckStatus::Passed);
        let v = verdicts(vec![down, call(2.0, "PUT", "/api/v1/menu/availability", Some(K2), "{}", 202, "{}")]);
        assert_eq!(v["client/unavailable-retried-same-key"].0, CheckStatus::Failed);
    }

    #[test]
    fn the_probes_own_calls_are_left_out_and_cursors_must_be_issued() {
        let own = call(1.0, "PUT", "/api/v1/menu/availability", Some(K1), "{}", 202, "{}");
        let checks = grade(&ClientInput { calls: vec![own], exclude_keys: vec![K1.into()], wait_seconds: 5.0 });
        assert!(checks.iter().all(|c| c.status == CheckStatus::Inconclusive), "{checks:?}");
        let v = verdicts(vec![
            call(1.0, "GET", "/api/v1/Orders?PageSize=1", None, "", 200, r#"{"data":{"items":[{}],"nextCursor":"7","hasMore":true}}"#),
            call(
                1.1,
                "GET",
                "/api/v1/Orders?PageSize=1&Cursor=7",
                None,
                "",
                200,
                r#"{"data":{"items":[{}],"nextCursor":null,"hasMore":false}}"#,
            ),
        ]);
        assert_eq!(v["client/list-cursor-followed"].0, CheckStatus::Passed);
    }
}
