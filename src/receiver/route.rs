//! Routing: which route a request names below the base path, with its path parameters
//! (percent-decoded only when they need it), or the 404 / 405 answer.

use super::{Answer, Basis, Route, RouteId, Routing};
use std::borrow::Cow;

/// Splits the target into path and segments below `base_path`; `None` when outside it.
fn relative_path<'p>(target: &'p str, base_path: &str) -> Option<&'p str> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let base = base_path.trim_end_matches('/');
    let rest = path.strip_prefix(base)?;
    if rest.is_empty() || rest.starts_with('/') {
        Some(rest)
    } else {
        None
    }
}

/// The 404 of a path that names none of the routes (out of line: the common request never builds it).
#[cold]
#[inline(never)]
fn not_found() -> Routing {
    Routing::NotFound {
        answer: Answer::refuse(
            404,
            "NOT_FOUND",
            "not a webhook route: the service calls POST /v1/order/{remoteId}, PUT /v1/order/{remoteId}/{remoteOrderId}/events and POST /v1/menu/change/{changeKey}",
            Basis::Assumed,
            "Endpoints the POS exposes lists three routes; answers to other paths are not shown",
        ),
    }
}

/// The 404 of the former `/status` route.
#[cold]
#[inline(never)]
fn former_status_route() -> Routing {
    Routing::NotFound {
        answer: Answer::refuse(
            404,
            "NOT_FOUND",
            "the former /status route: update webhooks go to PUT /v1/order/{remoteId}/{remoteOrderId}/events since 2026-08-12",
            Basis::Stated,
            "Events 5: the former /status route and status field are no longer emitted",
        ),
    }
}

/// The 405 of a route asked with another method.
#[cold]
#[inline(never)]
fn method_not_allowed(id: RouteId) -> Routing {
    let mut a = Answer::refuse(
        405,
        "METHOD_NOT_ALLOWED",
        &format!("{} takes {} only", id.template(), id.method()),
        Basis::Stated,
        "Endpoints the POS exposes: each route has one method",
    );
    a.headers.push(["Allow", id.method()]);
    Routing::MethodNotAllowed { answer: a }
}

/// Which route `method` and `path` name. `path` is the request target as received (query allowed,
/// percent-encoded); `base_path` is the path part of `{pos_base_url}` (empty when the routes sit at
/// the root). Segments must match exactly; one trailing slash is tolerated.
pub fn route(method: &str, path: &str, base_path: &str) -> Routing {
    match route_ref(method, path, base_path) {
        Ok(route) => Routing::Matched { route: route.to_route() },
        Err(routing) => routing,
    }
}

/// A matched [`Route`] borrowing from the request target: its parameters are copied only when
/// percent-decoding changes them (the receiver's common delivery allocates nothing).
pub(crate) struct RouteRef<'t> {
    pub id: RouteId,
    /// The parameters, as the payload checks read them: what `route_of` says of
    /// [`path`](Self::path), which is the same for every path [`route_ref`] matches.
    pub info: crate::payload::RouteInfo<'t>,
    /// The path below the base path, without the query.
    pub path: &'t str,
}

impl<'t> RouteRef<'t> {
    fn new(id: RouteId, params: [Option<Cow<'t, str>>; 3], path: &'t str) -> Self {
        let [remote_id, remote_order_id, change_key] = params;
        let info =
            crate::payload::RouteInfo { kind: Some(id.payload_kind()), remote_id, remote_order_id, change_key, old_status_route: false };
        RouteRef { id, info, path }
    }

    pub(super) fn to_route(&self) -> Route {
        let own = |p: &Option<Cow<'_, str>>| p.as_deref().map(str::to_owned);
        Route {
            id: self.id,
            payload_kind: self.id.payload_kind().id(),
            remote_id: own(&self.info.remote_id),
            remote_order_id: own(&self.info.remote_order_id),
            change_key: own(&self.info.change_key),
            path: self.path.to_owned(),
        }
    }
}

impl Route {
    pub(super) fn borrowed(&self) -> RouteRef<'_> {
        fn lend(p: &Option<String>) -> Option<Cow<'_, str>> {
            p.as_deref().map(Cow::Borrowed)
        }
        RouteRef::new(self.id, [lend(&self.remote_id), lend(&self.remote_order_id), lend(&self.change_key)], &self.path)
    }
}

/// [`route`] without copies: the matched route, or the routing answer (404, 405).
pub(crate) fn route_ref<'t>(method: &str, path: &'t str, base_path: &str) -> Result<RouteRef<'t>, Routing> {
    let Some(rel) = relative_path(path, base_path) else { return Err(not_found()) };
    let trimmed = rel.strip_prefix('/').unwrap_or(rel);
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    // The routes have at most five segments: more is no route (no Vec per request).
    let mut seen = [""; 6];
    let mut count = 0;
    if !trimmed.is_empty() {
        for segment in trimmed.split('/') {
            if count == seen.len() {
                return Err(not_found());
            }
            seen[count] = segment;
            count += 1;
        }
    }
    let raw = &seen[..count];
    let param = |s: &'t str| {
        (!s.is_empty()).then(|| if s.contains('%') { Cow::Owned(crate::payload::percent_decode(s, false)) } else { Cow::Borrowed(s) })
    };
    let (id, remote_id, remote_order_id, change_key) = match raw {
        ["v1", "order", rid] => match param(rid) {
            Some(r) => (RouteId::OrderCreated, Some(r), None, None),
            None => return Err(not_found()),
        },
        ["v1", "order", rid, roid, "events"] => match (param(rid), param(roid)) {
            (Some(r), Some(o)) => (RouteId::OrderUpdate, Some(r), Some(o), None),
            _ => return Err(not_found()),
        },
        ["v1", "menu", "change", key] => match param(key) {
            Some(k) => (RouteId::MenuChangeCompleted, None, None, Some(k)),
            None => return Err(not_found()),
        },
        ["v1", "order", _, _, "status"] => return Err(former_status_route()),
        _ => return Err(not_found()),
    };
    if method != id.method() {
        return Err(method_not_allowed(id));
    }
    Ok(RouteRef::new(id, [remote_id, remote_order_id, change_key], rel))
}

/// The byte spans in `target` of `route`'s path parameters (remoteId, remoteOrderId, changeKey;
/// `(0, 0)` for one the route does not have), when each is its segment exactly as sent (nothing
/// percent-decoded): a caller holding `target` then takes them from it without a string crossing.
/// `None` when a parameter differs from its raw segment (the caller reads the decoded [`Route`]).
pub fn param_spans(route: &Route, target: &str, base_path: &str) -> Option<[(u32, u32); 3]> {
    param_spans_ref(&route.borrowed(), target, base_path)
}

/// [`param_spans`] of a borrowed route.
pub(crate) fn param_spans_ref(route: &RouteRef<'_>, target: &str, base_path: &str) -> Option<[(u32, u32); 3]> {
    let start = base_path.trim_end_matches('/').len();
    if !target.get(start..)?.starts_with(route.path) {
        return None;
    }
    let inner = route.path.strip_prefix('/').unwrap_or(route.path);
    let mut at = start + (route.path.len() - inner.len());
    let mut segments = [(0usize, 0usize); 5];
    for (i, segment) in inner.split('/').enumerate() {
        if let Some(slot) = segments.get_mut(i) {
            *slot = (at, at + segment.len());
        }
        at += segment.len() + 1;
    }
    let pick = |i: usize, decoded: &Option<Cow<'_, str>>| -> Option<(u32, u32)> {
        let (a, b) = segments[i];
        (target.get(a..b)? == decoded.as_deref()?).then_some((a as u32, b as u32))
    };
    let none = (0, 0);
    Some(match route.id {
        RouteId::OrderCreated => [pick(2, &route.info.remote_id)?, none, none],
        RouteId::OrderUpdate => [pick(2, &route.info.remote_id)?, pick(3, &route.info.remote_order_id)?, none],
        RouteId::MenuChangeCompleted => [none, none, pick(3, &route.info.change_key)?],
    })
}
