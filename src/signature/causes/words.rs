//! The words of the checks the causes feed: the refusal's cause (or the causes ruled out), the
//! second defect of a POS that accepts a signature the service never makes, and a wrong route.

use super::{Attempt, CLOCK_OFFSET};

/// Minutes, for a clock window (the offsets are whole multiples of 300 s).
fn minutes(seconds: u64) -> String {
    let m = seconds / 60;
    match (m / 60, m % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// Where a receiver's clock is when it accepted a timestamp shifted by `offset` seconds: within
/// the 300 s window of it.
fn clock_window(offset: i64) -> String {
    let (lo, hi) = (offset.unsigned_abs().saturating_sub(300), offset.unsigned_abs() + 300);
    format!("{} to {} {}", minutes(lo), minutes(hi), if offset > 0 { "ahead" } else { "behind" })
}

/// What the receiver does, for an attempt (the clock's words say where it is).
fn does(a: &Attempt) -> String {
    match a.offset_seconds() {
        Some(o) => {
            format!("the receiver's clock is {} of the real time (a clock that drifted, or a local time taken for UTC)", clock_window(o))
        }
        None => a.cause.does.to_string(),
    }
}

/// How the attempt's delivery was signed, in words.
fn variant(a: &Attempt) -> String {
    match a.offset_seconds() {
        Some(o) => format!(
            "with X-Service-Timestamp {} s {} (signed as the service signs)",
            o.unsigned_abs(),
            if o > 0 { "ahead" } else { "behind" }
        ),
        None => a.cause.variant.to_string(),
    }
}

/// The first letter in upper case.
fn sentence(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// The message of the failed check `receiver/refusal-cause` ([`REFUSAL_CAUSE_RULE`](super::REFUSAL_CAUSE_RULE)):
/// the genuine delivery was refused with `genuine` (e.g. "HTTP 401"); `accepted` is the attempt
/// the POS accepted, with its answer ("HTTP 200"), or `None` when it accepted none of `tried`
/// (every attempt sent). It names the cause it saw, or none: then the causes tried are "ruled out".
pub fn refusal_cause_message(genuine: &str, accepted: Option<(Attempt, &str)>, tried: &[Attempt]) -> String {
    if let Some((a, answer)) = accepted {
        return format!(
            "{}: the POS refused a genuine delivery ({genuine}) and accepted the same delivery {} ({answer}). The contract: {}. Fix: {}.",
            sentence(&does(&a)),
            variant(&a),
            a.cause.contract,
            a.cause.fix
        );
    }
    let mut ruled_out: Vec<String> = Vec::new();
    for a in tried.iter().filter(|a| a.offset_seconds().is_none()) {
        let d = a.cause.does.to_string();
        if !ruled_out.contains(&d) {
            ruled_out.push(d);
        }
    }
    let clocks = clock_windows(tried);
    if !clocks.is_empty() {
        ruled_out.push(format!("a receiver clock {clocks}"));
    }
    if ruled_out.is_empty() {
        return format!("the POS refused a genuine delivery ({genuine}); no diagnostic delivery was sent, so no cause is named.");
    }
    format!(
        "the POS refused a genuine delivery ({genuine}) and each of the {} diagnostic deliveries (each signed the way one common mistake verifies): the cause is not among those tried. Ruled out: {}. Compare the receiver's verification with the contract: Authentication 4: \"message = timestamp + `.` + raw request body bytes; key = UTF-8 bytes of the secret; signature = `sha256=` + lowercase hex of HMAC-SHA256(key, UTF-8 message).\"",
        tried.len(),
        ruled_out.join("; ")
    )
}

/// The clock windows `tried` covered, merged: "5 min to 35 min ahead or behind, 55 min to 1 h 5 min ahead…".
fn clock_windows(tried: &[Attempt]) -> String {
    let mut windows: Vec<(i64, u64, u64)> = Vec::new(); // (sign, lo, hi) in seconds
    let mut offsets: Vec<i64> = tried.iter().filter(|a| a.cause.id == CLOCK_OFFSET).filter_map(Attempt::offset_seconds).collect();
    offsets.sort_by_key(|o| (o.signum(), o.unsigned_abs()));
    for o in offsets {
        let (lo, hi) = (o.unsigned_abs().saturating_sub(300), o.unsigned_abs() + 300);
        match windows.last_mut() {
            Some((s, _, h)) if *s == o.signum() && lo <= *h => *h = (*h).max(hi),
            _ => windows.push((o.signum(), lo, hi)),
        }
    }
    let side = |sign: i64| windows.iter().filter(|w| w.0 == sign).map(|w| (w.1, w.2)).collect::<Vec<_>>();
    let (ahead, behind) = (side(1), side(-1));
    let list =
        |ws: &[(u64, u64)], dir: &str| ws.iter().map(|(l, h)| format!("{} to {} {dir}", minutes(*l), minutes(*h))).collect::<Vec<_>>();
    let parts = if ahead == behind { list(&ahead, "ahead or behind") } else { [list(&ahead, "ahead"), list(&behind, "behind")].concat() };
    if parts.is_empty() {
        String::new()
    } else {
        format!("off by {}", parts.join(", "))
    }
}

/// The message of the failed check [`FOREIGN_SIGNATURE_RULE`](super::FOREIGN_SIGNATURE_RULE) for a
/// POS that accepted `accepted` (answered `answer`, e.g. "HTTP 200"): it accepts a signature the
/// service never makes. `None` for an attempt signed as the service signs (a clock offset).
pub fn foreign_signature_message(accepted: Attempt, answer: &str) -> Option<String> {
    if !accepted.cause.foreign_signature || accepted.offset_seconds().is_some() {
        return None;
    }
    Some(format!(
        "the POS accepts a signature the service never makes: a delivery {} was answered {answer}. The contract: {}; Authentication 5: \"reject a failed verification (sample receivers answer 401).\" Fix: {}, and refuse every other signature.",
        variant(&accepted),
        accepted.cause.contract,
        accepted.cause.fix
    ))
}

/// The finding of a genuine delivery answered 404 or 405 (`None` for another status): it was sent
/// as `method` to `url`, and the contract's route is `contract_route` (e.g. "POST
/// /v1/order/{remoteId}", the receiver's `RouteId::template`).
pub fn wrong_route_message(status: u16, method: &str, url: &str, contract_route: &str) -> Option<String> {
    let path = url.split_once("://").map_or(url, |(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]));
    let contract = format!("The contract: Endpoints the POS exposes: the service calls {contract_route} below {{pos_base_url}}");
    match status {
        404 => Some(format!(
            "the POS answered 404 to {method} {path}: nothing at the POS base URL serves the contract's route {contract_route} (the webhooks are mounted under another prefix, spelled otherwise, or not mounted). {contract}. Fix: serve {contract_route} exactly, below the base URL given to the service."
        )),
        405 => Some(format!(
            "the POS answered 405 to {method} {path}: the path is served, but not for {method}. {contract}. Fix: accept {method} on it."
        )),
        _ => None,
    }
}
