//! REST requests the POS sends, and the answer the service would give.
//!
//! The precedence of the predicted status is documented on [`validate_request`].

use super::bodies::{self, BodyKind};
use super::fields::read_status_problem;
use super::rules as r;
use super::{percent_decode, segments, split_target};
use crate::basis::{Basis, Grounds, PredictionBasis};
use crate::check;
use crate::diagnostic::{json_rules, Collector, Path, Report, Rule, Severity};
use crate::http::{HeaderValue, Headers};
use crate::json::{self, Span};
use crate::order::ActionBody;
use serde::Serialize;

/// A REST request as the POS would send it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, `PUT` or `PATCH` (compared case-insensitively).
    pub method: String,
    /// The path, with its query when there is one (`/api/v1/Orders?PageSize=50`); an absolute
    /// URL or a `{base_url}` prefix is accepted and stripped.
    pub path: String,
    /// Its headers.
    pub headers: Headers,
    /// The raw body; `None` (or empty) when there is none.
    pub body: Option<Vec<u8>>,
    /// Unix seconds: the service's "now", for the occurredAt clamp.
    pub now: i64,
}

impl Request {
    /// The request of a pasted raw HTTP message (`crate::http::parse_message`); `None` for a
    /// response. An empty body is `None`.
    pub fn from_message(msg: &crate::http::Message, now: i64) -> Option<Self> {
        Some(Self {
            method: msg.method.clone()?,
            path: msg.path.clone()?,
            headers: msg.headers.clone(),
            body: (!msg.body.is_empty()).then(|| msg.body.clone()),
            now,
        })
    }
}

/// The answer the service would give.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "RequestPrediction"))]
#[serde(rename_all = "camelCase")]
pub struct Prediction {
    /// The HTTP status (see the module's precedence).
    pub status: u16,
    /// For an error, the RFC 7807 problem the service would send (`type` written with the
    /// contract's `{problem_base}` placeholder; `traceId` as `{trace_id}`).
    pub problem: Option<serde_json::Value>,
    /// What the status, the problem type and the meta rest on (stated, derived or assumed, with
    /// the source).
    pub basis: PredictionBasis,
    /// Every diagnostic, warnings and infos included.
    pub report: Report,
    /// The endpoint matched, e.g. `POST /api/v1/Orders/{orderKey}/accept`.
    pub endpoint: Option<String>,
}

/// One endpoint of the contract ("Endpoints").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// `GET`, `POST`, `PUT` or `PATCH`.
    pub method: &'static str,
    /// With `{param}` placeholders, exact casing.
    pub path: &'static str,
    /// The success status.
    pub success: u16,
    #[serde(skip)]
    pub(crate) body: BodyKind,
    /// Query parameters the endpoint defines.
    pub query: &'static [&'static str],
    /// The path's segments, counted once (every request is matched against the whole table).
    #[serde(skip)]
    pub(crate) segments: usize,
}

const fn ep(method: &'static str, path: &'static str, success: u16, body: BodyKind, query: &'static [&'static str]) -> Endpoint {
    let bytes = path.as_bytes();
    let (mut i, mut segments) = (1, 1);
    while i < bytes.len() {
        if bytes[i] == b'/' {
            segments += 1;
        }
        i += 1;
    }
    Endpoint { method, path, success, body, query, segments }
}

/// Every endpoint of the contract.
pub static ENDPOINTS: &[Endpoint] = &[
    ep("POST", "/api/v1/Orders/{orderKey}/accept", 202, BodyKind::Accept, &[]),
    ep("POST", "/api/v1/Orders/{orderKey}/reject", 202, BodyKind::Reject, &[]),
    ep("PUT", "/api/v1/Orders/{orderKey}/status", 202, BodyKind::Status, &[]),
    ep("GET", "/api/v1/Orders/{orderKey}", 200, BodyKind::None, &[]),
    ep("GET", "/api/v1/Orders", 200, BodyKind::None, &["Cursor", "PageSize", "Status", "FromDate", "ToDate"]),
    ep("PUT", "/api/v1/menu/availability", 202, BodyKind::Availability, &[]),
    ep("PUT", "/api/v1/menu/prices", 202, BodyKind::Prices, &[]),
    ep("PATCH", "/api/v1/menu/products/{code}", 202, BodyKind::PatchProduct, &[]),
    ep("PATCH", "/api/v1/menu/modifier-options/{code}", 202, BodyKind::PatchOption, &[]),
    ep("PATCH", "/api/v1/menu/categories/{code}", 202, BodyKind::PatchCategory, &[]),
    ep("PATCH", "/api/v1/menu/modifiers/{code}", 202, BodyKind::PatchGroup, &[]),
    ep("POST", "/api/v1/menu/changes", 202, BodyKind::Changes, &[]),
    ep("POST", "/api/v1/menu/stores/{storeRemoteId}/products", 202, BodyKind::LocalProduct, &[]),
    ep("POST", "/api/v1/menu/preview", 200, BodyKind::Menu, &[]),
    ep("PUT", "/api/v1/menu", 200, BodyKind::Menu, &["confirmLargeDeactivation"]),
    ep("GET", "/api/v1/menu/stores/{storeRemoteId}", 200, BodyKind::None, &[]),
    ep("GET", "/api/v1/menu/changes/{changeId}", 200, BodyKind::None, &[]),
    ep("GET", "/api/v1/menu/capabilities", 200, BodyKind::None, &[]),
];

impl Endpoint {
    /// `POST /api/v1/Orders/{orderKey}/accept`.
    pub fn id(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    fn is_mutation(&self) -> bool {
        matches!(self.method, "POST" | "PUT" | "PATCH")
    }
}

struct Matched {
    endpoint: &'static Endpoint,
    params: Vec<(&'static str, String)>,
    exact_case: bool,
}

fn pattern_match(e: &'static Endpoint, segs: &[String]) -> Option<Matched> {
    if e.segments != segs.len() {
        return None;
    }
    let pat = e.path.trim_start_matches('/');
    let mut params = Vec::new();
    let mut exact_case = true;
    for (p, s) in pat.split('/').zip(segs) {
        if let Some(name) = p.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
            params.push((name, s.clone()));
        } else if p != s {
            if p.eq_ignore_ascii_case(s) {
                exact_case = false;
            } else {
                return None;
            }
        }
    }
    Some(Matched { endpoint: e, params, exact_case })
}

/// The endpoint closest to an unknown path: same number of segments, one literal segment off by
/// at most 3 edits.
fn suggestion(segs: &[String]) -> Option<&'static Endpoint> {
    ENDPOINTS.iter().find(|e| {
        let pat: Vec<&'static str> = e.path.trim_start_matches('/').split('/').collect();
        if pat.len() != segs.len() {
            return false;
        }
        let mut off = 0;
        for (p, s) in pat.iter().zip(segs) {
            if p.starts_with('{') || p.eq_ignore_ascii_case(s) {
                continue;
            }
            if check::did_you_mean(s, &[*p], &[]).is_none() {
                return false;
            }
            off += 1;
        }
        off == 1
    })
}

/// A diagnostic about the request line, a header or the query: named `name`, no pointer.
fn push_meta<'c>(c: &'c mut Collector, rule: &'static Rule, name: &str, msg: impl Into<String>) -> &'c mut crate::diagnostic::Pending {
    c.push_at(rule, name.to_string(), String::new(), Span::new(0, 0), msg)
}

/// Validates a REST request against the contract and predicts the service's answer.
///
/// # Precedence of the predicted status
///
/// The contract gives each failure its status but not the order in which the service checks
/// them. This function decides the following order (the first failing step gives the status;
/// every diagnostic is reported regardless, warnings and infos included):
///
/// 1. **401**: `X-Service-Api-Key` missing. The key identifies and scopes the client before
///    anything else can be looked up ("a resource that belongs to another client is reported as
///    not found" needs the client first).
/// 2. **404** (`{problem_base}/not-found`): no such endpoint (unknown path, wrong casing), or an
///    id in the path that cannot exist (malformed orderKey or changeId, empty code). A method the
///    path does not take is a warning: the answer is not shown (404 is assumed, `basis` says so).
/// 3. **400**: `X-Service-Schema-Version` missing or not `1.0`, on a mutation.
/// 4. **422** (`{problem_base}/validation`): `Idempotency-Key` missing, the query (PageSize not an
///    integer from 1 to 100, Status, dates) and the body. `meta.errors` holds the report's `errors` map (field path →
///    messages) restricted to these 422 errors.
/// 5. **409** (`{problem_base}/invalid-state-transition`): PUT status `preparing`, which the
///    contract says returns 409 after accept. `meta` has the stated shape with placeholders
///    (`{current_status}`, `{allowed_transitions}`): the values are the order's.
/// 6. Otherwise the success status of the endpoint: **202** for the order operations and the
///    asynchronous menu writes, **200** for reads, `POST /menu/preview` and `PUT /menu`.
///
/// Findings whose answer the contract does not show are warnings and never change the status: an
/// `Idempotency-Key` that is not a UUID v4, a missing or other `Content-Type`, an accept without body, an `occurredAt` with an offset. The prediction's
/// [`basis`](Prediction::basis) then says the status is assumed. On `POST /menu/preview` the menu
/// linter's semantic errors are warnings ("deeper semantic validations come back as warnings,
/// not 422").
///
/// Other 409s (acceptance window, transitions from the actual state, bulk deactivation), 429
/// and 502/503 depend on the service's state and are never predicted from the request alone.
///
/// 400 and 401 problems have `type` null (the contract shows no suffix for them; `basis` says
/// so); `traceId` is the placeholder `{trace_id}`.
///
/// Diagnostics about the request line, the headers and the query have the parameter or header
/// name as `path` (`orderKey`, `Idempotency-Key`, `PageSize`), `""` for the route itself, an
/// empty `pointer` and the span 0..0; body diagnostics are positioned in the body.
pub fn validate_request(request: &Request) -> Prediction {
    validate_request_linted(request, None).0
}

/// [`validate_request`], with the menu linter's report on the body already made (`menu`) for
/// `PUT /api/v1/menu` and `POST /api/v1/menu/preview` (the sandbox lints the upload itself, to
/// read it from the same parse). With a report, the body counts as present and `request.body`
/// may be left out (its diagnostics are the report's). Ignored for other endpoints.
///
/// Beside the prediction, the body of an order action (accept, reject, PUT status) as the order
/// engine reads it, from the same parse, when the request is one the order's state answers (a
/// success or the 409 of PUT status preparing): its errors are then the report's.
pub(crate) fn validate_request_linted(request: &Request, menu: Option<Report>) -> (Prediction, Option<ActionBody>) {
    let mut menu_report = menu;
    let mut c = Collector::new();
    c.set_budget(crate::diagnostic::DEFAULT_MAX_DIAGNOSTICS, &super::rules::REQUEST_TOO_MANY_DIAGNOSTICS);
    c.set_kind("request");
    let method = request.method.trim().to_ascii_uppercase();
    let (raw_path, query) = split_target(&request.path);
    let segs = segments(raw_path);
    let body: &[u8] = request.body.as_deref().unwrap_or(&[]);
    // A report given means the caller linted a body it had (and may pass no copy of it here).
    let has_body = menu_report.is_some() || !body.iter().all(u8::is_ascii_whitespace);

    let candidates: Vec<Matched> = ENDPOINTS.iter().filter_map(|e| pattern_match(e, &segs)).collect();
    let chosen = candidates.iter().filter(|m| m.endpoint.method == method).min_by_key(|m| !m.exact_case);
    let mut endpoint: Option<&'static Endpoint> = None;
    match chosen {
        Some(m) => {
            endpoint = Some(m.endpoint);
            if !m.exact_case {
                push_meta(
                    &mut c,
                    &r::REQ_PATH_CASING,
                    "",
                    format!("path \"{raw_path}\" differs from \"{}\" in casing only: casing is exact", m.endpoint.path),
                )
                .help("/api/v1/Orders has a capital O; /api/v1/menu is lowercase");
            }
            for (name, value) in &m.params {
                path_param(&mut c, name, value);
            }
        }
        None if !candidates.is_empty() => {
            let mut methods: Vec<&str> = candidates.iter().map(|m| m.endpoint.method).collect();
            methods.dedup();
            push_meta(
                &mut c,
                &r::REQ_METHOD,
                "",
                format!("{method} is not an endpoint of \"{raw_path}\"; it takes {}", methods.join(", ")),
            )
            .help("the status the service answers for another method is not shown; predicted 404");
        }
        None => {
            let d = push_meta(&mut c, &r::REQ_UNKNOWN_ENDPOINT, "", format!("no endpoint of the contract is {method} \"{raw_path}\""));
            if let Some(s) = suggestion(&segs) {
                d.help(format!("did you mean {} {}?", s.method, s.path));
            } else if !raw_path.starts_with("/api/v1/") {
                d.help("REST paths start with /api/v1/");
            }
        }
    }

    headers(
        &mut c,
        &request.headers,
        endpoint.map_or(matches!(method.as_str(), "POST" | "PUT" | "PATCH"), Endpoint::is_mutation),
        endpoint.is_some(),
    );

    let mut extra: Option<Report> = None;
    let mut action_body: Option<ActionBody> = None;
    let order_action = endpoint.is_some_and(|e| matches!(e.body, BodyKind::Accept | BodyKind::Reject | BodyKind::Status));
    if let Some(e) = endpoint {
        query_params(&mut c, e, query);
        if e.body == BodyKind::None {
            if has_body {
                push_meta(&mut c, &r::REQ_BODY_IGNORED, "", format!("{} takes no body; this one is ignored", e.id()));
            }
        } else if !has_body && e.body == BodyKind::Accept {
            // No body is not the empty JSON object accept takes: the engine reads it as sent.
            action_body = Some(ActionBody::check(e.body, body, request.now));
            push_meta(
                &mut c,
                &r::REQ_ACCEPT_BODY_MISSING,
                "",
                format!("{} takes an empty JSON object {{}}; none was sent (the answer to no body is not shown)", e.id()),
            );
        } else if !has_body {
            push_meta(&mut c, &r::REQ_BODY_MISSING, "", format!("{} takes a JSON body with required fields; none was sent", e.id()));
        } else if e.body == BodyKind::Menu {
            let mut menu = menu_report.take().unwrap_or_else(|| menu_body_report(body));
            if e.path == "/api/v1/menu/preview" {
                preview_softens(&mut c, &mut menu);
            }
            extra = Some(menu);
        } else {
            let arena = json::Arena::for_input(body.len());
            match json::parse(body, &json::Limits::default(), &arena) {
                Ok(doc) => {
                    c.duplicate_keys(&doc);
                    bodies::check(&mut c, e.body, &Path::ROOT, &doc.root, request.now);
                    if order_action {
                        action_body = Some(ActionBody::values(&doc.root));
                    }
                }
                Err(err) => {
                    let rule = match err.code {
                        "INVALID_UTF8" => &json_rules::INVALID_UTF8,
                        "TOO_DEEP" => &json_rules::TOO_DEEP,
                        "TOO_LARGE" => &json_rules::TOO_LARGE,
                        _ => &json_rules::SYNTAX,
                    };
                    let at = err.offset.min(body.len());
                    c.push(rule, &Path::ROOT, Span::new(at, at), err.message.clone());
                }
            }
        }
    }

    let mut report = c.finish(body);
    if let Some(menu) = extra {
        report = crate::diagnostic::merge_reports(report.kind.clone(), vec![report, menu]);
    }
    let status = predicted_status(&report, endpoint);
    let problem = problem_for(status, &report);
    let basis = basis_of(status, &report, endpoint);
    // The state answers a success or a 409: the body's errors are then all the report's errors.
    let action_body =
        action_body.filter(|_| status < 400 || status == 409).map(|b| if b.errors.is_empty() { b.with_errors(&report) } else { b });
    (Prediction { status, problem, basis, report, endpoint: endpoint.map(Endpoint::id) }, action_body)
}

/// The menu linter's *deeper semantic* validations: the rules that compare a node with others
/// (remoteCodes unique across the menu, a group's max against its min). POST /menu/preview
/// reports them as warnings ("Deeper semantic validations come back as warnings, not 422"); every
/// other error of the linter is a check of the submission tree itself (a field present, of its
/// type, format and range, as the tree's table and the Limits state it: "product without image in
/// a full submission" is a 422 of the errors table) and is a 422 on preview as on PUT /menu
/// (preview's errors list 422).
const PREVIEW_SEMANTIC_RULES: &[&str] = {
    use crate::menu::rules as m;
    &[m::UNIQUE_CATEGORY.id, m::UNIQUE_PRODUCT.id, m::UNIQUE_GROUP.id, m::UNIQUE_OPTION.id, m::GROUP_MAX_BELOW_MIN.id]
};

/// POST /menu/preview: "Deeper semantic validations come back as warnings, not 422." The menu
/// linter's semantic errors ([`PREVIEW_SEMANTIC_RULES`]) become warnings; the others stay errors.
fn preview_softens(c: &mut Collector, menu: &mut Report) {
    let mut softened = 0;
    for d in menu.diagnostics.iter_mut() {
        if d.severity == Severity::Error && PREVIEW_SEMANTIC_RULES.contains(&d.rule_id) {
            d.severity = Severity::Warning;
            softened += 1;
        }
    }
    if softened > 0 {
        push_meta(
            c,
            &r::PREVIEW_WARNING,
            "",
            format!(
                "{softened} semantic error(s) of the menu come back as warnings on preview, not 422; PUT /api/v1/menu would refuse them"
            ),
        );
    }
}

/// The body of PUT /api/v1/menu and POST /api/v1/menu/preview: the full menu submission tree,
/// checked by the menu linter.
fn menu_body_report(body: &[u8]) -> Report {
    crate::menu::lint(body, &crate::menu::LintOptions::default())
}

fn path_param(c: &mut Collector, name: &'static str, value: &str) {
    let problem = match name {
        "orderKey" if !check::is_order_key(value) => Some("must be \"ord_\" followed by 16 base62 characters"),
        "changeId" if !check::is_change_key(value) => Some("must be \"chg_\" followed by 16 base62 characters"),
        _ if value.trim().is_empty() => Some("must not be empty"),
        _ => None,
    };
    if let Some(p) = problem {
        push_meta(c, &r::REQ_PATH_ID_FORMAT, name, format!("{name} \"{value}\" in the path {p}: no resource can match (404)"));
    }
}

fn headers(c: &mut Collector, h: &Headers, mutation: bool, known_endpoint: bool) {
    match h.lookup("X-Service-Api-Key") {
        HeaderValue::One(v) if !v.trim().is_empty() => {}
        HeaderValue::Conflicting => {
            push_meta(c, &r::REQ_API_KEY, "X-Service-Api-Key", "X-Service-Api-Key is sent twice with different values (401)");
        }
        _ => {
            push_meta(c, &r::REQ_API_KEY, "X-Service-Api-Key", "missing X-Service-Api-Key header: every request carries the API key (401)")
                .help("the key is issued during onboarding, one per merchant client; keep it server-side");
        }
    }
    if !known_endpoint {
        return;
    }
    let idem = h.lookup("Idempotency-Key");
    if !mutation {
        if !matches!(idem, HeaderValue::Absent) {
            push_meta(
                c,
                &r::REQ_IDEMPOTENCY_KEY_ON_READ,
                "Idempotency-Key",
                "GET requests carry no Idempotency-Key; it has no effect here",
            );
        }
        return;
    }
    match h.lookup("X-Service-Schema-Version") {
        HeaderValue::One(v) if v.trim() == crate::contract::SCHEMA_VERSION => {}
        HeaderValue::One(v) if !v.trim().is_empty() => {
            push_meta(
                c,
                &r::REQ_SCHEMA_VERSION,
                "X-Service-Schema-Version",
                format!("X-Service-Schema-Version \"{}\" is not supported: the contract is on 1.0 (400)", v.trim()),
            )
            .help("send X-Service-Schema-Version: 1.0 on every mutation");
        }
        HeaderValue::Conflicting => {
            push_meta(
                c,
                &r::REQ_SCHEMA_VERSION,
                "X-Service-Schema-Version",
                "X-Service-Schema-Version is sent twice with different values (400)",
            );
        }
        _ => {
            push_meta(c, &r::REQ_SCHEMA_VERSION, "X-Service-Schema-Version", "missing X-Service-Schema-Version header on a mutation (400)")
                .help("send X-Service-Schema-Version: 1.0 on every mutation");
        }
    }
    match idem {
        HeaderValue::One(v) if check::is_uuid_v4(v.trim()) => {}
        HeaderValue::One(v) if !v.trim().is_empty() => {
            push_meta(c, &r::REQ_IDEMPOTENCY_KEY_FORMAT, "Idempotency-Key", format!("Idempotency-Key \"{}\" is not a UUID v4", v.trim()))
                .help("generate a random UUID v4 per logical attempt and reuse it for that attempt's retries");
        }
        HeaderValue::Conflicting => {
            push_meta(c, &r::REQ_IDEMPOTENCY_KEY_FORMAT, "Idempotency-Key", "Idempotency-Key is sent twice with different values");
        }
        _ => {
            push_meta(c, &r::REQ_IDEMPOTENCY_KEY_MISSING, "Idempotency-Key", "missing Idempotency-Key header on a mutation (422)")
                .help("generate a random UUID v4 per logical attempt and reuse it for that attempt's retries");
        }
    }
    match h.lookup("Content-Type") {
        HeaderValue::One(v) if v.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")) => {}
        HeaderValue::One(v) => {
            push_meta(c, &r::REQ_CONTENT_TYPE, "Content-Type", format!("Content-Type \"{v}\" is not application/json"));
        }
        HeaderValue::Conflicting => {
            push_meta(c, &r::REQ_CONTENT_TYPE, "Content-Type", "Content-Type is sent twice with different values");
        }
        HeaderValue::Absent => {
            push_meta(c, &r::REQ_CONTENT_TYPE, "Content-Type", "missing Content-Type header: mutations send application/json");
        }
    }
}

fn query_params(c: &mut Collector, e: &Endpoint, query: Option<&str>) {
    let Some(q) = query else { return };
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, v) = (percent_decode(k, true), percent_decode(v, true));
        let Some(name) = e.query.iter().copied().find(|n| *n == k) else {
            let d = push_meta(c, &r::REQ_UNKNOWN_QUERY, &k, format!("{} defines no query parameter \"{k}\"", e.id()));
            if let Some(s) = check::did_you_mean(&k, e.query, &[]) {
                d.help(format!("did you mean \"{s}\"?"));
            } else if !e.query.is_empty() {
                d.help(format!("its query parameters: {}", e.query.join(", ")));
            }
            continue;
        };
        match name {
            // Digits past i64 are a number above 100 too, not "not an integer".
            "PageSize" => match v
                .parse::<i64>()
                .ok()
                .or_else(|| (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())).then_some(i64::MAX))
                .filter(|_| !v.starts_with('+'))
            {
                Some(n) if n > 100 => {
                    push_meta(c, &r::REQ_PAGE_SIZE, name, format!("PageSize {v} is above the maximum of 100"))
                        .help("the maximum page size is 100 (default 20); follow nextCursor for more");
                }
                Some(n) if n >= 1 => {}
                _ => {
                    push_meta(c, &r::REQ_PAGE_SIZE_VALUE, name, format!("PageSize \"{v}\" is not an integer from 1 to 100"))
                        .help("the maximum page size is 100 (default 20); omit PageSize for the default");
                }
            },
            "Status" => {
                if let Some((msg, help)) = read_status_problem(&v) {
                    let d = push_meta(c, &r::ORDER_READ_STATUS, name, msg);
                    if let Some(h) = help {
                        d.help(h);
                    }
                }
            }
            "FromDate" | "ToDate" => match crate::time::parse(&v) {
                Some(t) if t.utc => {}
                _ => {
                    push_meta(
                        c,
                        &r::TIMESTAMP,
                        name,
                        format!("{name} must be an ISO 8601 UTC timestamp like 2026-08-12T14:30:00Z, found \"{v}\""),
                    );
                }
            },
            "confirmLargeDeactivation" if !matches!(v.to_ascii_lowercase().as_str(), "true" | "false") => {
                push_meta(c, &r::FIELD_TYPE, name, format!("confirmLargeDeactivation must be a boolean (true or false), found \"{v}\""));
            }
            _ => {}
        }
    }
}

/// The status an error rule leads to (see the module's precedence).
fn status_of(rule_id: &str) -> u16 {
    if rule_id == r::REQ_API_KEY.id {
        401
    } else if [r::REQ_UNKNOWN_ENDPOINT.id, r::REQ_PATH_CASING.id, r::REQ_METHOD.id, r::REQ_PATH_ID_FORMAT.id].contains(&rule_id) {
        404
    } else if rule_id == r::REQ_SCHEMA_VERSION.id {
        400
    } else if rule_id == r::STATUS_PREPARING_CONFLICT.id {
        409
    } else {
        422
    }
}

fn predicted_status(report: &Report, endpoint: Option<&Endpoint>) -> u16 {
    let statuses: Vec<u16> = report.diagnostics.iter().filter(|d| d.severity == Severity::Error).map(|d| status_of(d.rule_id)).collect();
    for s in [401, 404, 400, 422, 409] {
        if statuses.contains(&s) {
            return s;
        }
    }
    endpoint.map_or(404, |e| e.success)
}

/// What each part of the prediction rests on.
fn basis_of(status: u16, report: &Report, endpoint: Option<&Endpoint>) -> PredictionBasis {
    let grounds_of = |ids: Vec<&'static str>| -> Grounds {
        let mut basis = Basis::Stated;
        let mut sources: Vec<&'static str> = Vec::new();
        for id in ids {
            let (b, src) = super::grounds(id);
            basis = basis.max(b);
            if !sources.contains(&src) {
                sources.push(src);
            }
        }
        Grounds { basis, source: sources.join("; ") }
    };
    let status_grounds = if status >= 400 {
        let ids: Vec<&'static str> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error && status_of(d.rule_id) == status)
            .map(|d| d.rule_id)
            .collect();
        let query_only = status == 422
            && report.diagnostics.iter().filter(|d| d.severity == Severity::Error && status_of(d.rule_id) == 422).all(|d| {
                d.pointer.is_empty() && ["PageSize", "Status", "FromDate", "ToDate", "confirmLargeDeactivation"].contains(&d.path.as_str())
            });
        if ids.is_empty() {
            // No error rule: only an assumed finding (a method the path does not take) leads here.
            Grounds::assumed("not shown: the answer to a method the path does not take (no such endpoint: 404 assumed)")
        } else if query_only {
            // The query breaks a stated rule; the Errors table gives 422 for an invalid body and
            // lists no separate status for an invalid query.
            let g = grounds_of(ids);
            Grounds::derived(format!(
                "{}; Errors: 422 is the status of an invalid request (no other status is listed for the query)",
                g.source
            ))
        } else {
            grounds_of(ids)
        }
    } else {
        // The success of the endpoint, unless a finding whose answer is not shown could change it.
        let assumed: Vec<&str> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning && super::grounds(d.rule_id).0 == Basis::Assumed)
            .filter(|d| {
                [
                    r::REQ_IDEMPOTENCY_KEY_FORMAT.id,
                    r::REQ_CONTENT_TYPE.id,
                    r::REQ_ACCEPT_BODY_MISSING.id,
                    r::TIMESTAMP_OFFSET.id,
                    r::REQ_METHOD.id,
                ]
                .contains(&d.rule_id)
            })
            .map(|d| d.message.as_str())
            .collect();
        match endpoint {
            Some(e) if assumed.is_empty() => Grounds::stated(format!("Endpoints: {} answers {} on success", e.id(), e.success)),
            Some(e) => {
                Grounds::assumed(format!("not shown: the service's answer to: {}; {} on success assumed", assumed.join("; "), e.success))
            }
            None => Grounds::assumed("not shown"),
        }
    };
    let (problem_type, meta) = match status {
        422 => (
            Some(Grounds::stated("Errors: known type suffixes: validation; 422 invalid body")),
            Some(Grounds::stated("Errors: meta shapes: validation 422 { errors: { <field path>: string[] } }")),
        ),
        404 => (
            Some(Grounds::derived("Errors: known type suffixes: not-found; 404 resource does not exist")),
            Some(Grounds::stated("Errors: meta shapes: otherwise null")),
        ),
        409 => (
            Some(Grounds::stated("Errors: 409 invalid state transition (type suffix invalid-state-transition)")),
            Some(Grounds::derived("Errors: transition 409 meta { currentStatus, allowedTransitions }; the values are the order's and are not known from the request alone")),
        ),
        400 | 401 => (
            Some(Grounds::assumed(format!("not shown: the spec lists no type suffix for {status}; type is left null"))),
            Some(Grounds::stated("Errors: meta shapes: otherwise null")),
        ),
        _ => (None, None),
    };
    PredictionBasis { status: status_grounds, problem_type, meta }
}

/// The RFC 7807 problem for an error status, as the service would build it.
fn problem_for(status: u16, report: &Report) -> Option<serde_json::Value> {
    if status < 400 {
        return None;
    }
    let (type_, title) = match status {
        422 => ("{problem_base}/validation", "One or more validation errors occurred"),
        404 => ("{problem_base}/not-found", "Not Found"),
        409 => ("{problem_base}/invalid-state-transition", "Invalid state transition"),
        // The contract shows no type suffix for 400 and 401: the type is not predicted (null).
        400 => ("", "Bad Request"),
        _ => ("", "Unauthorized"),
    };
    let mut detail: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && status_of(d.rule_id) == status)
        .map(|d| d.message.as_str())
        .collect();
    if detail.is_empty() {
        // A status predicted from a warning (another method on a known path: 404 assumed).
        detail.extend(report.diagnostics.iter().find(|d| status_of(d.rule_id) == status).map(|d| d.message.as_str()));
    }
    let meta = match status {
        422 => {
            let mut errors: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
            for d in report.diagnostics.iter().filter(|d| d.severity == Severity::Error && status_of(d.rule_id) == 422) {
                errors.entry(d.path.as_str()).or_default().push(d.message.as_str());
            }
            serde_json::json!({ "errors": errors })
        }
        // The shape is stated; the values are the order's, which the request alone does not show.
        409 => serde_json::json!({ "currentStatus": "{current_status}", "allowedTransitions": "{allowed_transitions}" }),
        _ => serde_json::Value::Null,
    };
    Some(serde_json::json!({
        "type": if type_.is_empty() { serde_json::Value::Null } else { serde_json::Value::from(type_) },
        "title": title,
        "status": status,
        "detail": detail.join("; "),
        "traceId": "{trace_id}",
        "meta": meta,
    }))
}

#[cfg(test)]
mod tests;
