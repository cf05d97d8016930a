//! The REST side: every request is checked in this order (the first failing step answers).
//!
//! 1. `X-Service-Api-Key` present but not a client's key: 401 (stated; a missing key is step 4's).
//! 2. Injected faults ([`Faults`](super::Faults)), when the test set some.
//! 3. The rate limits of the key (stated values; which requests count is not shown: every request
//!    with a known key that gets past the limits counts, a 429 does not, assumed): 429 with
//!    `Retry-After` in seconds.
//! 4. The stateless checks of [`validate_request`](crate::payload::validate_request): 401 (missing
//!    key), 404 (no such endpoint, malformed id), 400 (schema version), 422 (`Idempotency-Key`
//!    missing, query, body). Its 409 is the state's to answer (step 6).
//! 5. Mutations: the idempotency cache (24 h, stated). Same key and same fingerprint: the cached
//!    answer, not re-executed. Same key, another fingerprint: 422 `idempotency-conflict`. The
//!    fingerprint covers the method, the path with its query, and the body's bytes (not shown:
//!    assumed). Answers of steps 1–4 are not cached (nothing was executed); every answer of step
//!    6 is, errors included (not shown: assumed, as Stripe does).
//! 6. The state: another client's order is 404 (stated); the order engine answers the action
//!    ([`predict_request`](crate::order::predict_request)) on the stored order.

use super::{now_secs, Service, StoredOrder};
use crate::contract::{ProblemSuffix, Status, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX};
use crate::http::Headers;
use crate::order::{Action, ActionBody, Instant};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A REST request (the parts the contract reads).
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    /// The method.
    pub method: &'a str,
    /// The path with its query.
    pub target: &'a str,
    /// `X-Service-Api-Key`.
    pub api_key: Option<&'a str>,
    /// `X-Service-Schema-Version`.
    pub schema_version: Option<&'a str>,
    /// `Idempotency-Key`.
    pub idempotency_key: Option<&'a str>,
    /// `Content-Type`.
    pub content_type: Option<&'a str>,
    /// The raw body.
    pub body: &'a [u8],
}

/// An answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body (JSON).
    pub body: Vec<u8>,
    /// `application/problem+json` rather than `application/json`.
    pub problem: bool,
    /// `Retry-After`, seconds.
    pub retry_after: Option<u32>,
    /// An injected slow answer: wait this long before answering.
    pub delay_ms: u32,
    /// Replayed from the idempotency cache.
    pub replayed: bool,
}

impl Answer {
    pub(super) fn problem(status: u16, body: Value) -> Self {
        Self { status, body: serde_json::to_vec(&body).unwrap_or_default(), problem: true, retry_after: None, delay_ms: 0, replayed: false }
    }

    fn ok(status: u16, message: &str, data: &impl Serialize) -> Self {
        #[derive(Serialize)]
        struct Envelope<'a, T: Serialize> {
            message: &'a str,
            data: &'a T,
        }
        Self {
            status,
            body: serde_json::to_vec(&Envelope { message, data }).unwrap_or_default(),
            problem: false,
            retry_after: None,
            delay_ms: 0,
            replayed: false,
        }
    }
}

/// An order as an item of the list, written by hand (the list is the hottest read): the model
/// writes every string of an item but the POS's remoteOrderId, so only that one is escaped.
fn list_item(it: &super::Order) -> Vec<u8> {
    let mut out = Vec::with_capacity(320);
    out.extend_from_slice(br#"{"orderKey":"#);
    plain(&mut out, &it.order_key);
    out.extend_from_slice(br#","storeId":"#);
    out.extend_from_slice(it.store_id.to_string().as_bytes());
    out.extend_from_slice(br#","status":""#);
    out.extend_from_slice(it.status().as_str().as_bytes());
    out.extend_from_slice(br#"","receivedAt":"#);
    plain(&mut out, it.received_at().as_str());
    out.extend_from_slice(br#","acceptedAt":"#);
    plain_or_null(&mut out, it.accepted_at().map(Instant::as_str));
    out.extend_from_slice(br#","remoteOrderId":"#);
    match it.remote_order_id.as_deref() {
        Some(r) => {
            let _ = serde_json::to_writer(&mut out, r);
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","driverAssignedAt":"#);
    plain_or_null(&mut out, it.driver_assigned_at().map(Instant::as_str));
    out.extend_from_slice(br#","deliveredAt":"#);
    plain_or_null(&mut out, it.delivered_at().map(Instant::as_str));
    out.push(b'}');
    out
}

/// A string the model wrote (an order key, a timestamp, a cursor), most often with no character
/// JSON escapes; one from an imported state file that has some is escaped.
fn plain(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

fn plain_or_null(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => plain(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

const IDEMPOTENCY_TTL_MS: i64 = crate::contract::IDEMPOTENCY_TTL_SECONDS * 1000;

/// What tells two requests with one Idempotency-Key apart: the method, the path with its query
/// and the body's bytes. The body is folded 32 bytes at a time into four 64-bit lanes (xor, a
/// multiply by an odd constant, a rotate: one multiply per 8 bytes), then the lanes, the method,
/// the path and the length go through SipHash-2-4 under a fixed key. Not SHA-256: in wasm,
/// HMAC-SHA256 of the 10.6 MB bench menu takes as long as linting it (33 ms each, measured with
/// the toolkit's signWebhook and lintMenu). A request is only ever compared with the one entry
/// of its own key; nothing here needs a cryptographic hash. The same in every build (std's
/// `DefaultHasher` does not promise its algorithm), so a state file keeps its meaning.
#[allow(deprecated)] // std's SipHasher: SipHash-2-4 as specified.
fn fingerprint(req: &Request) -> [u8; 32] {
    use std::hash::Hasher;
    const K: [u64; 4] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5];
    let mut lanes = K;
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    let mut blocks = req.body.chunks_exact(32);
    for block in &mut blocks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            *lane = ((*lane ^ word(&block[i * 8..i * 8 + 8])).wrapping_mul(K[i] | 1)).rotate_left(29);
        }
    }
    let mut h = std::hash::SipHasher::new_with_keys(0x706f_7363_6865_636b, 0x6964_656d_706f_7465);
    h.write(req.method.to_ascii_uppercase().as_bytes());
    h.write_u8(b'\n');
    h.write(req.target.as_bytes());
    h.write_u8(b'\n');
    for lane in lanes {
        h.write_u64(lane);
    }
    h.write(blocks.remainder());
    let mut out = [0u8; 32];
    out[..8].copy_from_slice(&h.finish().to_le_bytes());
    out[8..16].copy_from_slice(&(req.body.len() as u64).to_le_bytes());
    out
}

fn cursor_of(number: u64) -> String {
    // Opaque to the client (never built by hand): the order number, obfuscated and base36.
    let mixed = number ^ 0x5A5A_5A5A;
    format!("c{}", radix36(mixed))
}

fn radix36(mut n: u64) -> String {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(digits[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn number_of_cursor(c: &str) -> Option<u64> {
    let rest = c.strip_prefix('c')?;
    if rest.is_empty() || rest.len() > 13 {
        return None;
    }
    let n = u64::from_str_radix(rest, 36).ok()?;
    Some(n ^ 0x5A5A_5A5A)
}

impl Service {
    /// Answers a REST request at `now_ms` (unix milliseconds, the model's clock).
    pub fn handle(&mut self, req: &Request, now_ms: i64) -> Answer {
        // 1. An unknown key.
        let client = match req.api_key.map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => match self.config.client_of(k) {
                Some(c) => Some(c),
                None => {
                    return self.problem(
                        401,
                        None,
                        "Unauthorized",
                        "the X-Service-Api-Key is not a key of this account (missing, invalid or revoked)".into(),
                        Value::Null,
                    )
                }
            },
            None => None,
        };
        // 2. Faults.
        let mut delay_ms = 0;
        if client.is_some() && self.fault_applies(req.target) {
            let f = self.options.faults.clone();
            let draw = self.ids.unit();
            if draw < f.rate_limited {
                let mut a = self.problem(429, None, "Too Many Requests", "injected fault: rate limited".into(), Value::Null);
                a.retry_after = Some(f.retry_after_seconds.unwrap_or(1));
                return a;
            }
            let server_error = f.server_errors_prefix.as_deref().is_none_or(|p| req.target.starts_with(p));
            if server_error && draw < f.rate_limited + f.bad_gateway {
                return self.problem(502, None, "Bad Gateway", "injected fault: the back end did not respond".into(), Value::Null);
            } else if server_error && draw < f.rate_limited + f.bad_gateway + f.unavailable {
                return self.problem(503, None, "Service Unavailable", "injected fault: the back end is unavailable".into(), Value::Null);
            }
            if f.slow > 0.0 && self.ids.unit() < f.slow {
                delay_ms = f.slow_ms.unwrap_or(2000);
            }
        }
        // 3. Rate limits.
        if let (Some(c), true) = (client, self.options.rate_limits) {
            if let Some(retry) = self.rate(c, now_ms) {
                let mut a = self.problem(
                    429,
                    None,
                    "Too Many Requests",
                    format!(
                        "rate limit exceeded ({} a minute, {} an hour per API key): retry after {retry} s",
                        self.options.per_minute, self.options.per_hour
                    ),
                    Value::Null,
                );
                a.retry_after = Some(retry);
                return a;
            }
        }
        let mut answer = self.answer(req, client, now_ms);
        answer.delay_ms = delay_ms;
        answer
    }

    fn fault_applies(&self, target: &str) -> bool {
        let f = &self.options.faults;
        (f.rate_limited > 0.0 || f.bad_gateway > 0.0 || f.unavailable > 0.0 || f.slow > 0.0)
            && f.path_prefix.as_deref().is_none_or(|p| target.starts_with(p))
    }

    /// Counts a request of client `c`; `Some(retry_after_seconds)` when it is over a limit.
    fn rate(&mut self, c: usize, now_ms: i64) -> Option<u32> {
        let (per_minute, per_hour) = (self.options.per_minute, self.options.per_hour as usize);
        let w = self.rates.entry(c).or_default();
        let minute = now_ms.div_euclid(60_000);
        if w.minute != minute {
            w.minute = minute;
            w.in_minute = 0;
        }
        while w.hour.front().is_some_and(|&t| t <= now_ms - 3_600_000) {
            w.hour.pop_front();
        }
        if w.in_minute >= per_minute {
            let left = (minute + 1) * 60_000 - now_ms;
            return Some(((left + 999) / 1000).max(1) as u32);
        }
        if w.hour.len() >= per_hour {
            let oldest = w.hour.front().copied().unwrap_or(now_ms);
            let left = oldest + 3_600_000 - now_ms;
            return Some(((left + 999) / 1000).max(1) as u32);
        }
        w.in_minute += 1;
        w.hour.push_back(now_ms);
        None
    }

    fn answer(&mut self, req: &Request, client: Option<usize>, now_ms: i64) -> Answer {
        let now = now_secs(now_ms);
        // 4. The stateless checks: the toolkit's validate_request.
        let mut headers = Headers::new();
        for (name, value) in [
            ("X-Service-Api-Key", req.api_key),
            ("X-Service-Schema-Version", req.schema_version),
            ("Idempotency-Key", req.idempotency_key),
            ("Content-Type", req.content_type),
        ] {
            if let Some(v) = value {
                headers.push(name, v);
            }
        }
        // PUT /api/v1/menu: the upload is linted here, in an arena that lives on, so that the
        // state reads it from the same parse (validate_request takes the linter's report).
        let upload_arena;
        let (mut menu_report, mut upload) = (None, None);
        if req.method.trim().eq_ignore_ascii_case("PUT")
            && crate::payload::split_target(req.target).0.eq_ignore_ascii_case("/api/v1/menu")
            && !req.body.iter().all(u8::is_ascii_whitespace)
        {
            upload_arena = crate::json::Arena::for_input(req.body.len());
            let (report, doc) = crate::menu::lint_parsed(req.body, &crate::menu::LintOptions::default(), &upload_arena);
            (menu_report, upload) = (Some(report), doc);
        }
        let (prediction, action_body) = crate::payload::validate_request_linted(
            &crate::payload::Request {
                method: req.method.to_string(),
                path: req.target.to_string(),
                headers,
                // A linted upload is not copied (10 MB of a menu): its report stands for it.
                body: (!req.body.is_empty() && menu_report.is_none()).then(|| req.body.to_vec()),
                now,
            },
            menu_report,
        );
        if prediction.status >= 400 && prediction.status != 409 {
            let p = prediction.problem.unwrap_or(Value::Null);
            return self.engine_problem(prediction.status, p);
        }
        // What a preview carries beside its diff: the checks' warnings (its semantic errors are
        // warnings there, as validate_request says).
        let warnings: Vec<Value> = if prediction.endpoint.as_deref() == Some("POST /api/v1/menu/preview") {
            prediction
                .report
                .diagnostics
                .iter()
                .map(|d| json!({ "ruleId": d.rule_id, "severity": d.severity, "message": d.message, "path": d.path }))
                .collect()
        } else {
            Vec::new()
        };
        let (Some(client), Some(endpoint)) = (client, prediction.endpoint.as_deref()) else {
            return self.problem(
                404,
                Some(ProblemSuffix::NotFound.as_str()),
                "Not Found",
                format!("no endpoint {} {}", req.method, req.target),
                Value::Null,
            );
        };
        let (path, query) = crate::payload::split_target(req.target);
        let segs = crate::payload::segments(path);
        let id = segs.get(3).map_or("", String::as_str);
        // /api/v1/menu/{stores|changes|products|…}/{id}
        let menu_id = segs.get(4).map_or("", String::as_str);
        let mutation = matches!(endpoint.split(' ').next(), Some("POST" | "PUT" | "PATCH"));
        // 5. Idempotency.
        let mut idem: Option<(String, [u8; 32])> = None;
        if mutation {
            let key = req.idempotency_key.unwrap_or_default().trim().to_string();
            let fingerprint = fingerprint(req);
            if let Some(&n) = self.idem_index.get(&(client, key.clone())) {
                if let Some(e) = self.idempotency.get(n - self.idem_base) {
                    if e.at_ms > now_ms - IDEMPOTENCY_TTL_MS {
                        if e.fingerprint == fingerprint {
                            let mut a = e.answer.clone();
                            a.replayed = true;
                            return a;
                        }
                        return self.problem(
                            422,
                            Some(ProblemSuffix::IdempotencyConflict.as_str()),
                            "Idempotency key reused",
                            "this Idempotency-Key was used with another request body (or path) in the last 24 hours".into(),
                            Value::Null,
                        );
                    }
                }
            }
            idem = Some((key, fingerprint));
        }
        // 6. The state.
        let answer = match endpoint {
            "GET /api/v1/Orders" => self.list(client, query),
            "GET /api/v1/Orders/{orderKey}" => match self.index.get(id).copied().filter(|&i| self.orders[i].client == client) {
                Some(i) => {
                    let s = &mut self.orders[i];
                    let body = s.rendered.detail.get_or_insert_with(|| Answer::ok(200, "OK", &s.order).body).clone();
                    Answer { status: 200, body, problem: false, retry_after: None, delay_ms: 0, replayed: false }
                }
                None => self.not_found(id),
            },
            "POST /api/v1/Orders/{orderKey}/accept" => self.act(client, id, Action::Accept, action_body, req.body, now_ms),
            "POST /api/v1/Orders/{orderKey}/reject" => self.act(client, id, Action::Reject, action_body, req.body, now_ms),
            "PUT /api/v1/Orders/{orderKey}/status" => {
                let value = action_body.as_ref().and_then(ActionBody::status).unwrap_or_default().to_string();
                self.act(client, id, Action::Status(value), action_body, req.body, now_ms)
            }
            "GET /api/v1/menu/stores/{storeRemoteId}" => self.menu_read(client, menu_id, now_ms),
            "GET /api/v1/menu/changes/{changeId}" => self.menu_change_read(client, menu_id),
            "GET /api/v1/menu/capabilities" => self.menu_capabilities(),
            "PUT /api/v1/menu" | "POST /api/v1/menu/preview" => {
                let confirm = query.unwrap_or_default().split('&').any(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    k == "confirmLargeDeactivation" && v.eq_ignore_ascii_case("true")
                });
                let tree = upload.as_ref().map(|d| &d.root);
                self.menu_upload(client, req.body, tree, confirm, endpoint == "PUT /api/v1/menu", warnings, now_ms)
            }
            // The menu writes answered 202: the endpoint's body kind (the contract's table) says which.
            other => match crate::payload::ENDPOINTS.iter().find(|e| e.id() == other).map(|e| e.body) {
                Some(
                    kind @ (crate::payload::BodyKind::Availability
                    | crate::payload::BodyKind::Prices
                    | crate::payload::BodyKind::PatchProduct
                    | crate::payload::BodyKind::PatchOption
                    | crate::payload::BodyKind::PatchCategory
                    | crate::payload::BodyKind::PatchGroup
                    | crate::payload::BodyKind::Changes
                    | crate::payload::BodyKind::LocalProduct),
                ) => self.menu_write(client, kind, menu_id, req.body, now_ms),
                _ => self.problem(
                    404,
                    Some(ProblemSuffix::NotFound.as_str()),
                    "Not Found",
                    format!("{other}: not served by the sandbox"),
                    Value::Null,
                ),
            },
        };
        if let Some((key, fingerprint)) = idem {
            self.remember(client, key, fingerprint, now_ms, answer.clone());
        }
        answer
    }

    fn remember(&mut self, client: usize, key: String, fingerprint: [u8; 32], now_ms: i64, answer: Answer) {
        while let Some(front) = self.idempotency.front() {
            if front.at_ms <= now_ms - IDEMPOTENCY_TTL_MS || self.idempotency.len() >= super::MAX_IDEMPOTENCY_ENTRIES {
                let e = self.idempotency.pop_front().expect("front exists");
                if self.idem_index.get(&(e.client, e.key.clone())) == Some(&self.idem_base) {
                    self.idem_index.remove(&(e.client, e.key));
                }
                self.idem_base += 1;
            } else {
                break;
            }
        }
        self.idem_index.insert((client, key.clone()), self.idem_base + self.idempotency.len());
        self.idempotency.push_back(super::IdempotencyEntry { client, key, fingerprint, at_ms: now_ms, answer });
    }

    fn owned(&self, client: usize, key: &str) -> Option<&StoredOrder> {
        self.order(key).filter(|o| o.client == client)
    }

    fn not_found(&mut self, key: &str) -> Answer {
        let shown: String = key.chars().take(40).collect();
        self.problem(
            404,
            Some(ProblemSuffix::NotFound.as_str()),
            "Not Found",
            format!("order {shown} does not exist or belongs to another client"),
            Value::Null,
        )
    }

    /// Accept, reject or PUT status: the order engine's answer on the stored order, its body read
    /// once (by [`validate_request`](crate::payload::validate_request), whose parse it comes from).
    fn act(&mut self, client: usize, key: &str, action: Action, body: Option<ActionBody>, raw: &[u8], now_ms: i64) -> Answer {
        let Some(stored) = self.owned(client, key) else {
            return self.not_found(key);
        };
        let now = now_secs(now_ms);
        let body = body.unwrap_or_else(|| ActionBody::check(action.body_kind(), raw, now));
        let (prediction, order) = match crate::order::predict_on(&stored.order, &action, Some(&body), now) {
            Ok(p) => p,
            Err(e) => {
                return self.problem(
                    500,
                    None,
                    "Internal Server Error",
                    format!("the order engine refused the stored order: {e}"),
                    Value::Null,
                )
            }
        };
        if prediction.http_status >= 400 {
            let p = prediction.problem.unwrap_or(Value::Null);
            return self.engine_problem(prediction.http_status, p);
        }
        let accepted = matches!(action, Action::Accept);
        self.store_order(key, order);
        if accepted && self.order(key).is_some_and(|o| o.knobs.ready_by_driver_on_accept) {
            // The probe's knob: the driver marks it ready the moment it is accepted (the accept's
            // own answer still says Preparing, as it was when answered).
            let _ = self.apply_trigger(key, crate::order::ServiceTrigger::DriverMarksReady, None, now_ms);
        }
        let message = match action {
            Action::Accept => "Order accepted",
            Action::Reject => "Order rejected",
            Action::Status(_) => "Order status updated",
        };
        Answer::ok(prediction.http_status, message, &prediction.response.unwrap_or(Value::Null))
    }

    /// `GET /api/v1/Orders`: newest order number first, the cursor the next number down.
    fn list(&mut self, client: usize, query: Option<&str>) -> Answer {
        let mut page_size = PAGE_SIZE_DEFAULT as usize;
        let mut cursor: Option<u64> = None;
        let mut status: Option<Status> = None;
        let (mut from, mut to) = (None, None);
        for pair in query.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = crate::payload::percent_decode(v, true);
            match k {
                "PageSize" => {
                    page_size =
                        v.parse::<usize>().ok().filter(|n| (1..=PAGE_SIZE_MAX as usize).contains(n)).unwrap_or(PAGE_SIZE_DEFAULT as usize)
                }
                "Status" => status = Status::parse(&v),
                "FromDate" => from = crate::time::parse(&v).map(|t| t.unix_millis),
                "ToDate" => to = crate::time::parse(&v).map(|t| t.unix_millis),
                "Cursor" => match number_of_cursor(&v) {
                    Some(n) => cursor = Some(n),
                    None => {
                        return self.problem(
                            422,
                            Some(ProblemSuffix::Validation.as_str()),
                            "One or more validation errors occurred",
                            "Cursor is not a cursor this service issued".into(),
                            json!({ "errors": { "Cursor": ["take the cursor from nextCursor; never build it by hand"] } }),
                        )
                    }
                },
                _ => {}
            }
        }
        let mut items = Vec::new();
        let mut has_more = false;
        let mut last = None;
        for (i, o) in self.orders.iter().enumerate().rev() {
            if o.client != client || cursor.is_some_and(|c| o.number >= c) || status.is_some_and(|s| o.order.status() != s) {
                continue;
            }
            if from.is_some() || to.is_some() {
                let at = o.order.received_at().unix_millis();
                if from.is_some_and(|f| at < f) || to.is_some_and(|t| at > t) {
                    continue;
                }
            }
            if items.len() == page_size {
                has_more = true;
                break;
            }
            items.push(i);
            last = Some(o.number);
        }
        let next_cursor = if has_more { last.map(cursor_of) } else { None };
        let mut out = Vec::with_capacity(64 + items.len() * 320);
        out.extend_from_slice(br#"{"message":"OK","data":{"items":["#);
        for (n, &i) in items.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            let s = &mut self.orders[i];
            out.extend_from_slice(s.rendered.item.get_or_insert_with(|| list_item(&s.order)));
        }
        out.extend_from_slice(br#"],"nextCursor":"#);
        plain_or_null(&mut out, next_cursor.as_deref());
        out.extend_from_slice(if has_more { br#","hasMore":true}}"# } else { br#","hasMore":false}}"# });
        Answer { status: 200, body: out, problem: false, retry_after: None, delay_ms: 0, replayed: false }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fingerprints_tell_every_one_byte_change_apart() {
        let body: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let req = |method: &'static str, target: &'static str, body: &[u8]| {
            super::fingerprint(&super::Request { method, target, body, ..Default::default() })
        };
        let base = req("PUT", "/api/v1/menu", &body);
        assert_eq!(base, req("put", "/api/v1/menu", &body), "the method's casing is not part of it");
        let mut seen = std::collections::HashSet::from([base]);
        for at in 0..body.len() {
            let mut other = body.clone();
            other[at] ^= 1;
            assert!(seen.insert(req("PUT", "/api/v1/menu", &other)), "a change at byte {at}");
        }
        assert!(seen.insert(req("PUT", "/api/v1/menu?x=1", &body)));
        assert!(seen.insert(req("POST", "/api/v1/menu", &body)));
        assert!(seen.insert(req("PUT", "/api/v1/menu", &body[..999])));
        let mut longer = body.clone();
        longer.push(0);
        assert!(seen.insert(req("PUT", "/api/v1/menu", &longer)));
    }

    #[test]
    fn cursors_round_trip() {
        for n in [0u64, 1, 2, 99, 1 << 40] {
            assert_eq!(super::number_of_cursor(&super::cursor_of(n)), Some(n));
        }
        assert_eq!(super::number_of_cursor("x1"), None);
        assert_eq!(super::number_of_cursor("c"), None);
    }
}
