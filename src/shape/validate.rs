//! The validation engine over a set of shape checkers: parse once, route by path, detect the
//! kind, unwrap the envelope, check, report. [`crate::payload`] runs it over every kind (the order
//! and menu checkers included); the webhook-only and store-menu-only sets here reach only their
//! own checkers (a narrow build links no other).

use super::fields::P;
use super::{fields, menu_read, order, rules, webhooks, PayloadKind, RouteInfo};
use crate::diagnostic::{parse_error_report, Collector, Path, Report};
use crate::json::{self, Span, Value};
use std::borrow::Cow;

/// Options of [`validate_payload`](crate::payload::validate_payload).
#[derive(Debug, Clone, Default)]
pub struct PayloadOptions {
    /// The kind to check; detected from the path, then from the shape, when `None`.
    pub kind: Option<PayloadKind>,
    /// The request path the payload came with (e.g. `/v1/order/store-1/R-1/events`): its
    /// parameters are compared with the body (the path's remoteOrderId is authoritative).
    pub path: Option<String>,
    /// Bounds against hostile input.
    pub limits: json::Limits,
}

/// Decodes `%XX` escapes (invalid escapes and invalid UTF-8 are kept as they are).
pub(crate) fn percent_decode(s: &str, plus_is_space: bool) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                let hex = b[i + 1..i + 3]
                    .iter()
                    .all(u8::is_ascii_hexdigit)
                    .then(|| std::str::from_utf8(&b[i + 1..i + 3]).ok())
                    .flatten()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(x) => {
                        out.push(x);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            x => {
                out.push(x);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Strips `scheme://host` (or a `{placeholder}` base), the query and the fragment.
pub(crate) fn split_target(target: &str) -> (&str, Option<&str>) {
    // Byte searches: every delimiter is ASCII, so each position found is a character boundary
    // (and a short target is not worth the setup of a `str` pattern search).
    let at = |s: &str, b: u8| s.bytes().position(|x| x == b);
    let t = target.trim();
    let t = at(t, b'#').map_or(t, |i| &t[..i]);
    let (path, query) = match at(t, b'?') {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let path = if let Some(i) = path.as_bytes().windows(3).position(|w| w == b"://") {
        let rest = &path[i + 3..];
        at(rest, b'/').map_or("", |i| &rest[i..])
    } else if path.starts_with('{') {
        at(path, b'}').map_or(path, |i| &path[i + 1..])
    } else {
        path
    };
    (path, query)
}

/// Segments of a path, percent-decoded, one trailing slash tolerated.
pub(crate) fn segments(path: &str) -> Vec<String> {
    let p = path.strip_prefix('/').unwrap_or(path);
    let p = p.strip_suffix('/').unwrap_or(p);
    if p.is_empty() {
        return Vec::new();
    }
    p.split('/').map(|s| percent_decode(s, false)).collect()
}

/// The route a payload path names: a route the service calls on the POS (matched on its last
/// segments, since `{pos_base_url}` may carry a path of its own) or a REST resource the POS reads.
pub(crate) fn route_of(path: &str) -> RouteInfo<'_> {
    let (whole, _) = split_target(path);
    let p = whole.strip_prefix('/').unwrap_or(whole);
    let p = p.strip_suffix('/').unwrap_or(p);
    // The webhook routes, on the last five segments at most (no vector: this runs per delivery).
    let mut raw = [""; 5];
    let mut n = 0;
    if !p.is_empty() {
        for (slot, seg) in raw.iter_mut().rev().zip(p.rsplit('/')) {
            *slot = seg;
            n += 1;
        }
    }
    let mut decoded = raw.map(|seg| seg.contains('%').then(|| percent_decode(seg, false)));
    let route = {
        let seg: [&str; 5] = std::array::from_fn(|i| decoded[i].as_deref().unwrap_or(raw[i]));
        if n == 5 && seg[..2] == ["v1", "order"] && matches!(seg[4], "events" | "status") {
            Some((PayloadKind::OrderUpdateEvent, seg[4] == "status"))
        } else if n >= 4 && seg[1..4] == ["v1", "menu", "change"] {
            Some((PayloadKind::MenuChangeCompleted, false))
        } else if n >= 3 && seg[2..4] == ["v1", "order"] {
            Some((PayloadKind::OrderCreated, false))
        } else {
            None
        }
    };
    // A parameter: its segment as written, or decoded when it has a `%`.
    let mut param = |i: usize| Some(decoded[i].take().map_or(Cow::Borrowed(raw[i]), Cow::Owned));
    let info = RouteInfo::default();
    match route {
        Some((kind @ PayloadKind::OrderUpdateEvent, old_status_route)) => {
            RouteInfo { kind: Some(kind), remote_id: param(2), remote_order_id: param(3), old_status_route, ..info }
        }
        Some((kind @ PayloadKind::MenuChangeCompleted, _)) => RouteInfo { kind: Some(kind), change_key: param(4), ..info },
        Some((kind, _)) => RouteInfo { kind: Some(kind), remote_id: param(4), ..info },
        // The REST resources the POS reads, on the whole path.
        None => RouteInfo { kind: resource_route(whole), ..info },
    }
}

/// The kind of a REST resource the POS reads at path `p`, out of line: a webhook delivery's path
/// never gets here.
#[cold]
#[inline(never)]
fn resource_route(p: &str) -> Option<PayloadKind> {
    let segs = segments(p);
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["api", "v1", "Orders", _, "accept"] => Some(PayloadKind::AcceptAnswer),
        ["api", "v1", "Orders", _, "reject"] => Some(PayloadKind::RejectAnswer),
        ["api", "v1", "Orders", _, "status"] => Some(PayloadKind::StatusAnswer),
        ["api", "v1", "menu", "availability" | "prices" | "changes"]
        | ["api", "v1", "menu", "products" | "modifier-options" | "categories" | "modifiers", _]
        | ["api", "v1", "menu", "stores", _, "products"] => Some(PayloadKind::MenuWriteAccepted),
        ["api", "v1", "Orders"] => Some(PayloadKind::OrderList),
        ["api", "v1", "Orders", _] => Some(PayloadKind::OrderDetail),
        ["api", "v1", "menu", "stores", _] => Some(PayloadKind::StoreMenu),
        ["api", "v1", "menu", "changes", _] => Some(PayloadKind::MenuChange),
        ["api", "v1", "menu", "capabilities"] => Some(PayloadKind::Capabilities),
        ["api", "v1", ..] => Some(PayloadKind::Envelope),
        _ => None,
    }
}

/// How well the shape of `v` fits `kind`: `None` when it cannot be that kind.
fn score(kind: PayloadKind, v: &Value) -> Option<usize> {
    let members = v.as_object()?;
    let has = |k: &str| v.get(k).is_some();
    let count = |keys: &[&str]| keys.iter().filter(|k| has(k)).count();
    match kind {
        PayloadKind::OrderUpdateEvent => (has("event") || has("occurredAt"))
            .then(|| count(&["orderKey", "remoteOrderId", "event", "occurredAt", "reason", "driver", "releasedDriver", "expectedNext"])),
        PayloadKind::MenuChangeCompleted => {
            has("changeKey").then(|| count(&["changeKey", "status", "submittedAt", "completedAt", "results"]))
        }
        PayloadKind::MenuChange => (has("changeId") && (has("status") || has("results") || has("submittedAt")))
            .then(|| count(&["changeId", "status", "schemaVersion", "submittedAt", "completedAt", "results"])),
        PayloadKind::MenuWriteAccepted => (has("changeId") && !has("status") && !has("results") && !has("submittedAt")).then_some(1),
        PayloadKind::AcceptAnswer => (has("orderKey") && has("acceptedAt") && !has("history") && !has("receivedAt"))
            .then(|| count(&["orderKey", "status", "acceptedAt", "remoteOrderId"])),
        PayloadKind::RejectAnswer => (has("orderKey") && has("rejectedAt") && !has("history") && !has("receivedAt"))
            .then(|| count(&["orderKey", "status", "rejectedAt", "reason"])),
        PayloadKind::StatusAnswer => (has("orderKey") && has("changedAt") && !has("history") && !has("receivedAt"))
            .then(|| count(&["orderKey", "status", "changedAt"])),
        PayloadKind::FullMenu => looks_like_submission(v).then_some(2),
        PayloadKind::OrderCreated => ["displayCode", "fulfillment", "storeRemoteId", "payment", "summary"]
            .iter()
            .any(|k| has(k))
            .then(|| count(order::CREATION_FIELDS)),
        PayloadKind::OrderCreatedResponse => (has("remoteOrderId") && !has("orderKey") && !has("event")).then_some(1),
        PayloadKind::MerchantErrorResponse => {
            (!members.is_empty() && !has("data") && members.iter().all(|m| matches!(m.key, "error" | "message" | "timestamp")))
                .then_some(members.len())
        }
        PayloadKind::Envelope => has("data").then(|| count(&["message", "data"])),
        PayloadKind::OrderDetail => {
            (has("orderKey") && !has("event") && !has("occurredAt") && (has("history") || has("receivedAt") || has("brandId")))
                .then(|| count(super::order::DETAIL_FIELDS))
        }
        PayloadKind::OrderList => {
            (has("items") && (has("hasMore") || has("nextCursor"))).then(|| count(&["items", "nextCursor", "hasMore"]))
        }
        PayloadKind::StoreMenu => (has("categories") && !looks_like_submission(v)).then_some(1),
        PayloadKind::Capabilities => has("capabilities").then(|| count(&["capabilities", "notes"])),
    }
}

/// A full menu submission (categories with `remoteCode` and no `code`) is the menu linter's input.
fn looks_like_submission(v: &Value) -> bool {
    v.get("categories")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .is_some_and(|c| c.get("remoteCode").is_some() && c.get("code").is_none())
}

/// The best kinds for `v` among `kinds` (several when tied).
fn best(kinds: &[PayloadKind], v: &Value) -> Vec<PayloadKind> {
    let scored: Vec<(PayloadKind, usize)> = kinds.iter().filter_map(|k| score(*k, v).map(|s| (*k, s))).collect();
    let top = scored.iter().map(|s| s.1).max().unwrap_or(0);
    scored.into_iter().filter(|s| s.1 == top).map(|s| s.0).collect()
}

/// What a validation found: nothing (with the kind checked), or a report to read.
///
/// [`validate_payload`] always builds the report; this is for callers that answer a clean
/// payload without one (the wasm face hands back a number for it, and the report's text only when
/// there is something to say).
#[derive(Debug)]
pub(crate) enum Outcome {
    /// No diagnostic at all, and the payload was checked as this kind (a payload whose kind could
    /// not be told has a diagnostic saying so).
    Clean(PayloadKind),
    /// A report to read: at least one diagnostic, except for a full menu, whose report is the
    /// menu linter's, handed on whole.
    Report(Report),
}

impl Outcome {
    /// What `c` gathered, for a payload checked as `kind`.
    fn of(c: Collector, kind: PayloadKind, input: &[u8]) -> Self {
        if c.is_clean() {
            Self::Clean(kind)
        } else {
            Self::Report(report_of(c, kind, input))
        }
    }

    /// The report, built also for a clean payload (the same one [`Collector::finish`] gives).
    pub(crate) fn into_report(self, input: &[u8]) -> Report {
        match self {
            Self::Report(r) => r,
            Self::Clean(kind) => report_of(Collector::new(), kind, input),
        }
    }
}

/// The report of what `c` gathered on a payload checked as `kind`.
pub(crate) fn report_of(mut c: Collector, kind: PayloadKind, input: &[u8]) -> Report {
    c.set_kind(kind.id());
    c.finish(input)
}

/// [`validate_payload`] for the three webhook payloads only (OrderCreated, OrderUpdateEvent,
/// MenuChangeCompleted), with the same report for them; any other kind is reported as undetected.
/// What the receiver uses: a build that exports only the webhook functions then carries none of
/// the other checkers (the menu linter, the resources).
pub(crate) fn validate_webhook_payload(input: &[u8], options: &PayloadOptions) -> Report {
    validate_webhook_payload_outcome(input, options).into_report(input)
}

/// [`validate_webhook_payload`], answering a clean payload without building its report.
pub(crate) fn validate_webhook_payload_outcome(input: &[u8], options: &PayloadOptions) -> Outcome {
    validate_with::<WebhookKinds>(input, options)
}

/// [`validate_webhook_payload_outcome`] of a delivery on `path` (checked as the kind of its route),
/// with the default limits: what the receiver asks, having routed `path` itself. `route` is what
/// [`route_of`] says of `path`, so the path is neither copied into options nor split again.
pub(crate) fn webhook_delivery_outcome(input: &[u8], path: &str, route: &RouteInfo<'_>) -> Outcome {
    validate_routed::<WebhookKinds>(input, route.kind, Some(path), Some(route), json::Limits::default())
}

/// [`validate_payload`] of a store menu read (`GET /api/v1/menu/stores/{id}`, its `data` or the
/// whole envelope) with the store menu's checker only: what `diffMenu` reads its current side
/// with, so that a build exporting the menu functions only (`poscheck/menu`) carries no other
/// payload checker (measured: 169.0 against 142.8 KB gzipped).
pub(crate) fn validate_store_menu(input: &[u8], limits: json::Limits) -> Report {
    let options = PayloadOptions { kind: Some(PayloadKind::StoreMenu), path: None, limits };
    validate_with::<StoreMenuKinds>(input, &options).into_report(input)
}

/// Which checkers a validation can reach (a type parameter, so that a narrow one links only its own).
pub(crate) trait Checkers {
    /// Checks `root` as `kind`; `false` when this set has no checker for it.
    fn check(c: &mut Collector, kind: PayloadKind, root: &Value, route: &RouteInfo) -> bool;
    /// The report of a full menu submission (the menu linter's), when this set checks them.
    fn full_menu(input: &[u8], limits: json::Limits) -> Option<Report>;
}

struct WebhookKinds;

impl Checkers for WebhookKinds {
    fn check(c: &mut Collector, kind: PayloadKind, root: &Value, route: &RouteInfo) -> bool {
        let path = Path::ROOT;
        match kind {
            PayloadKind::OrderUpdateEvent => webhooks::order_update_event(c, &path, root, route),
            PayloadKind::MenuChangeCompleted => webhooks::menu_change_completed(c, &path, root, route),
            PayloadKind::OrderCreated => order::order_content(c, &path, root, route, true),
            _ => return false,
        }
        true
    }
    fn full_menu(_: &[u8], _: json::Limits) -> Option<Report> {
        None
    }
}

struct StoreMenuKinds;

impl Checkers for StoreMenuKinds {
    fn check(c: &mut Collector, kind: PayloadKind, root: &Value, _: &RouteInfo) -> bool {
        if kind != PayloadKind::StoreMenu {
            return false;
        }
        let path = Path::ROOT;
        if root.get("data").is_some() {
            if envelope(c, &path, root) {
                menu_read::store_menu(c, &path.key("data"), root.get("data").expect("checked above"));
            }
        } else {
            menu_read::store_menu(c, &path, root);
        }
        true
    }
    fn full_menu(_: &[u8], _: json::Limits) -> Option<Report> {
        None
    }
}

pub(crate) fn validate_with<K: Checkers>(input: &[u8], options: &PayloadOptions) -> Outcome {
    let path = options.path.as_deref();
    validate_routed::<K>(input, options.kind, path, path.map(route_of).as_ref(), options.limits)
}

/// [`validate_with`] with the options' parts, and what `path` says already known (`route`:
/// [`route_of`] of `path`).
fn validate_routed<K: Checkers>(
    input: &[u8],
    kind: Option<PayloadKind>,
    path: Option<&str>,
    route: Option<&RouteInfo<'_>>,
    limits: json::Limits,
) -> Outcome {
    let hinted = kind.or_else(|| route.as_ref().and_then(|r| r.kind));
    if hinted == Some(PayloadKind::MerchantErrorResponse) && input.iter().all(u8::is_ascii_whitespace) {
        return Outcome::Clean(PayloadKind::MerchantErrorResponse);
    }
    let arena = json::Arena::for_input(input.len());
    let doc = match json::parse(input, &limits, &arena) {
        Ok(d) => d,
        Err(e) => return Outcome::Report(parse_error_report(input, &e, hinted.map(|k| k.id()))),
    };
    let mut c = Collector::new();
    c.set_budget(limits.max_diagnostics, &rules::TOO_MANY_DIAGNOSTICS);
    c.duplicate_keys(&doc);
    let root = &doc.root;
    let here = Span::new(root.span.start, root.span.start);
    let no_route = RouteInfo::default();
    let route = route.unwrap_or(&no_route);
    if let Some(p) = path {
        if route.kind.is_none() || route.old_status_route {
            path_findings(&mut c, p, route, here);
        }
    }
    let kind = match (kind, route.kind) {
        (Some(k), Some(rk)) => {
            if k != rk && !(k == PayloadKind::Envelope && rk.is_resource()) && !(rk == PayloadKind::Envelope && k.is_resource()) {
                kind_mismatch(&mut c, rk, k, here);
            }
            Some(k)
        }
        (Some(k), None) => Some(k),
        (None, Some(rk)) if rk != PayloadKind::Envelope => Some(rk),
        _ => detect(&mut c, root, here),
    };
    let Some(kind) = kind else {
        return Outcome::Report(c.finish(input)); // detect() said why
    };
    if kind == PayloadKind::FullMenu {
        // A full menu submission is the menu linter's input: one checker for it.
        if let Some(menu) = K::full_menu(input, limits) {
            c.set_kind(kind.id());
            let own = c.finish(input);
            return Outcome::Report(crate::diagnostic::merge_reports(own.kind.clone(), vec![own, menu]));
        }
    } else if K::check(&mut c, kind, root, route) {
        return Outcome::of(c, kind, input);
    }
    not_checked_here(&mut c, kind, here);
    Outcome::Report(c.finish(input))
}

// The findings of validate_routed that a delivery on its own route never has, out of line (issue 30:
// the machine code a delivery runs through).

/// A path that names no route, or the former `/status` route.
#[cold]
#[inline(never)]
fn path_findings(c: &mut Collector, p: &str, route: &RouteInfo<'_>, here: Span) {
    if route.kind.is_none() {
        c.push(
            &rules::PATH_UNKNOWN,
            &Path::ROOT,
            here,
            format!("\"{p}\" is not a route the service calls on the POS nor a resource the POS reads"),
        )
        .help("webhook routes: /v1/order/{remoteId}, /v1/order/{remoteId}/{remoteOrderId}/events, /v1/menu/change/{changeKey}");
    }
    if route.old_status_route {
        c.push(&rules::UPDATE_OLD_ROUTE, &Path::ROOT, here, format!("\"{p}\" is the former /status route: update webhooks go to /v1/order/{{remoteId}}/{{remoteOrderId}}/events since 2026-08-12"));
    }
}

/// A payload checked as another kind than its path's route.
#[cold]
#[inline(never)]
fn kind_mismatch(c: &mut Collector, route_kind: PayloadKind, kind: PayloadKind, here: Span) {
    c.push(
        &rules::PATH_KIND_MISMATCH,
        &Path::ROOT,
        here,
        format!("the path is the route of {} but the payload is checked as {}", route_kind.id(), kind.id()),
    );
}

/// A kind this build's checkers do not check.
#[cold]
#[inline(never)]
fn not_checked_here(c: &mut Collector, kind: PayloadKind, here: Span) {
    c.push(
        &rules::KIND_UNDETECTED,
        &Path::ROOT,
        here,
        format!(
            "{} is not a webhook payload: this checker (poscheck/webhook, the receiver kit) validates only those; the toolkit's validatePayload checks every kind",
            kind.id()
        ),
    );
}

/// Detects the kind from the shape, reporting ambiguity (info) or failure (error).
fn detect(c: &mut Collector, root: &Value, here: Span) -> Option<PayloadKind> {
    let mut found = best(PayloadKind::ALL, root);
    if found == [PayloadKind::Envelope] {
        if let Some(data) = root.get("data") {
            let resources: Vec<PayloadKind> = PayloadKind::ALL.iter().copied().filter(PayloadKind::is_resource).collect();
            let inner = best(&resources, data);
            if !inner.is_empty() {
                found = inner;
            }
        }
    }
    match found.as_slice() {
        [] => {
            let d = c.push(
                &rules::KIND_UNDETECTED,
                &Path::ROOT,
                here,
                format!("the shape matches no payload kind of the contract (found {})", crate::check::describe(root)),
            );
            if looks_like_submission(root) {
                d.help("this looks like a full menu submission (categories[].remoteCode): check it with the menu linter");
            } else {
                d.help(format!("pass the kind explicitly: {}", PayloadKind::ALL.iter().map(|k| k.id()).collect::<Vec<_>>().join(", ")));
            }
            None
        }
        [one] => Some(*one),
        [first, rest @ ..] => {
            let others = rest.iter().map(|k| k.id()).collect::<Vec<_>>().join(", ");
            c.push(
                &rules::KIND_AMBIGUOUS,
                &Path::ROOT,
                here,
                format!("the shape fits {} and {others} equally well; checked as {}", first.id(), first.id()),
            )
            .help("pass the kind explicitly to choose");
            Some(*first)
        }
    }
}

/// The 2xx envelope `{ message: string, data: object }`. Returns whether `data` is an object.
pub(crate) fn envelope(c: &mut Collector, path: &Path, v: &Value) -> bool {
    if fields::as_obj(c, path, v).is_none() {
        return false;
    }
    fields::f_str(c, path, v, "message", P::Req);
    let data = fields::f_obj(c, path, v, "data", P::Req).is_some();
    fields::unknown(c, path, v, fields::ENVELOPE_FIELDS);
    data
}
