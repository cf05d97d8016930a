//! The verdicts of the receiver checks: each from the exchanges its scenario produced.

use super::{rule, Check, CheckStatus, Exchange};
use serde::Deserialize;

/// The contract's answer budget for the creation webhook, ms.
pub const CONTRACT_BUDGET_MS: f64 = 30_000.0;

/// What the face hands over for one receiver check.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReceiverInput {
    /// What the scenario sent and got, in order (for `receiver/answer-latency`: every webhook of
    /// the run).
    pub exchanges: Vec<Exchange>,
    /// Why the scenario could not run (its check is then inconclusive).
    pub unavailable: Option<String>,
    /// Whether a valid creation webhook was answered 200 with a remoteOrderId in this run: when
    /// not, the checks that need one are inconclusive rather than failed.
    pub creation_works: Option<bool>,
    /// The latency budget, ms (default 30,000, the contract's).
    pub budget_ms: Option<f64>,
}

/// The verdict of the receiver check `id` on `input`; `None` for an id that is not a receiver check.
pub fn grade(id: &str, input: &ReceiverInput) -> Option<Check> {
    let r = rule(id).filter(|r| r.side == super::Side::Receiver)?;
    let ex: Vec<&Exchange> = input.exchanges.iter().collect();
    let verdict = |status, message: String| Some(Check::new(r, status, message, &ex));
    if let Some(why) = &input.unavailable {
        return verdict(CheckStatus::Inconclusive, why.clone());
    }
    if ex.is_empty() {
        return verdict(CheckStatus::Inconclusive, "nothing was sent for this check".into());
    }
    let creation_broken = input.creation_works == Some(false);
    let needs_creation =
        "a valid creation webhook is not answered 200 with a remoteOrderId (receiver/order-created-answered), so this cannot be judged";
    let (status, message) = match id {
        "receiver/order-created-answered" => {
            let e = ex[0];
            match (e.remote_order_id(), e.ms) {
                (Some(id), Some(ms)) if ms > CONTRACT_BUDGET_MS => {
                    (CheckStatus::Failed, format!("answered 200 with remoteOrderId {id:?}, but after {ms} ms: the contract allows 30 s"))
                }
                (Some(id), ms) => (CheckStatus::Passed, format!("answered 200 with remoteOrderId {id:?}{}", in_ms(ms))),
                (None, _) if e.status == Some(200) => {
                    (CheckStatus::Failed, format!("answered 200 without a non-empty string remoteOrderId: {}", short(e.answer.as_deref())))
                }
                (None, _) => (CheckStatus::Failed, format!("a valid, correctly signed creation webhook got {}", e.outcome())),
            }
        }
        "receiver/duplicate-retry-same-id" => {
            let first = ex[0].remote_order_id();
            match (first, ex.get(1)) {
                (None, _) => (CheckStatus::Inconclusive, needs_creation.into()),
                (Some(_), None) => (CheckStatus::Inconclusive, "the retry was not sent".into()),
                (Some(a), Some(retry)) => match retry.remote_order_id() {
                    Some(b) if a == b => (CheckStatus::Passed, format!("the retry got the same remoteOrderId {a:?}")),
                    Some(b) => (CheckStatus::Failed, format!("the retry of the same delivery got remoteOrderId {b:?}, the first attempt {a:?}: the order was processed twice")),
                    None => (CheckStatus::Failed, format!("the retry of a delivery already answered 200 got {}; the contract asks for 200 without reprocessing", retry.outcome())),
                },
            }
        }
        "receiver/duplicate-concurrent-copies" => {
            let ids: Vec<String> = ex.iter().filter_map(|e| e.remote_order_id()).collect();
            let refused = ex.iter().filter(|e| e.remote_order_id().is_none()).count();
            let mut distinct = ids.clone();
            distinct.sort();
            distinct.dedup();
            if ids.is_empty() {
                if creation_broken {
                    (CheckStatus::Inconclusive, needs_creation.into())
                } else {
                    (CheckStatus::Failed, format!("none of {} copies sent together was answered 200 with a remoteOrderId", ex.len()))
                }
            } else if distinct.len() > 1 {
                (CheckStatus::Failed, format!("{} copies of one delivery sent together got {} different remoteOrderIds ({}): the order was processed more than once", ex.len(), distinct.len(), distinct.join(", ")))
            } else if refused > 0 {
                (
                    CheckStatus::Passed,
                    format!(
                        "every 200 carried remoteOrderId {:?}; {refused} of {} copies were not answered 200 (the service retries those)",
                        distinct[0],
                        ex.len()
                    ),
                )
            } else {
                (CheckStatus::Passed, format!("{} copies sent together all got remoteOrderId {:?}", ex.len(), distinct[0]))
            }
        }
        "receiver/signature-tampered-body"
        | "receiver/signature-wrong-secret"
        | "receiver/timestamp-too-old"
        | "receiver/timestamp-in-future"
        | "receiver/signature-missing"
        | "receiver/timestamp-missing" => {
            let e = ex[0];
            let what = match id {
                "receiver/signature-tampered-body" => "a body changed by one byte after signing",
                "receiver/signature-wrong-secret" => "a signature made with another secret",
                "receiver/timestamp-too-old" => "a timestamp 330 s old",
                "receiver/timestamp-in-future" => "a timestamp 330 s ahead",
                "receiver/signature-missing" => "no X-Service-Signature-256 header",
                _ => "no X-Service-Timestamp header",
            };
            if e.ok() {
                (CheckStatus::Failed, format!("a delivery with {what} was accepted ({}): it must be refused", e.outcome()))
            } else if creation_broken {
                // A POS that refuses (or does not answer) valid deliveries too proves nothing here.
                (CheckStatus::Inconclusive, format!("refused ({}), but a valid delivery is not accepted either (receiver/order-created-answered), so this proves nothing", e.outcome()))
            } else if e.status.is_some() {
                (CheckStatus::Passed, format!("refused with {}", e.outcome()))
            } else {
                (CheckStatus::Passed, format!("refused: {} (an answer such as 401 is clearer to the service's operators)", e.outcome()))
            }
        }
        "receiver/signature-raw-body" => {
            let e = ex[0];
            if e.remote_order_id().is_some() {
                (
                    CheckStatus::Passed,
                    "a body with insignificant whitespace, signed as sent, was accepted: the signature is checked on the raw bytes".into(),
                )
            } else if creation_broken {
                (CheckStatus::Inconclusive, needs_creation.into())
            } else {
                (CheckStatus::Failed, format!("a body with insignificant whitespace, signed as sent, got {}: the receiver checks the signature on something other than the raw bytes (a re-serialized body?)", e.outcome()))
            }
        }
        "receiver/menu-change-answered" => {
            let bad: Vec<&&Exchange> = ex.iter().filter(|e| !e.ok()).collect();
            match bad.first() {
                None => (CheckStatus::Passed, format!("answered {}", ex[0].outcome())),
                Some(e) => (CheckStatus::Failed, format!("the menu change webhook got {}", e.outcome())),
            }
        }
        "receiver/answer-latency" => latency(&ex, input.budget_ms.unwrap_or(CONTRACT_BUDGET_MS)),
        // The update webhooks: every one answered 200.
        _ => {
            let bad: Vec<&&Exchange> = ex.iter().filter(|e| e.status != Some(200)).collect();
            match bad.first() {
                None if ex.len() == 1 => (CheckStatus::Passed, "answered 200".into()),
                None => (CheckStatus::Passed, format!("all {} answered 200", ex.len())),
                Some(e) => (
                    CheckStatus::Failed,
                    format!(
                        "{} of {} answered other than 200, e.g. {}: the contract says \"Always 200\"",
                        bad.len(),
                        ex.len(),
                        e.outcome()
                    ),
                ),
            }
        }
    };
    // The latency check's evidence is the slowest exchange only (a run sends dozens).
    if id == "receiver/answer-latency" {
        let slowest = ex.iter().copied().max_by(|a, b| a.ms.unwrap_or(f64::MAX).total_cmp(&b.ms.unwrap_or(f64::MAX)));
        return Some(Check::new(r, status, message, &slowest.into_iter().collect::<Vec<_>>()));
    }
    verdict(status, message)
}

fn in_ms(ms: Option<f64>) -> String {
    ms.map(|m| format!(" in {m} ms")).unwrap_or_default()
}

fn short(s: Option<&str>) -> String {
    match s {
        None | Some("") => "an empty body".into(),
        Some(s) => format!("{:?}", s.chars().take(120).collect::<String>()),
    }
}

/// The route of a webhook URL, as the contract names it.
fn route(e: &Exchange) -> &'static str {
    let path = e.url.split("://").nth(1).map_or(e.url.as_str(), |rest| rest.find('/').map_or("", |i| &rest[i..]));
    if path.contains("/v1/menu/change/") {
        "POST /v1/menu/change/{changeKey}"
    } else if path.ends_with("/events") {
        "PUT /v1/order/{remoteId}/{remoteOrderId}/events"
    } else {
        "POST /v1/order/{remoteId}"
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn latency(ex: &[&Exchange], budget: f64) -> (CheckStatus, String) {
    let mut routes: Vec<(&'static str, Vec<f64>, usize)> = Vec::new();
    let mut unanswered = 0;
    for e in ex {
        let r = route(e);
        let i = match routes.iter().position(|(n, _, _)| *n == r) {
            Some(i) => i,
            None => {
                routes.push((r, Vec::new(), 0));
                routes.len() - 1
            }
        };
        match (e.status, e.ms) {
            (Some(_), Some(ms)) => routes[i].1.push(ms),
            _ => {
                routes[i].2 += 1;
                unanswered += 1;
            }
        }
    }
    let mut over = false;
    let mut parts = Vec::new();
    for (name, mut ms, missing) in routes {
        if ms.is_empty() {
            parts.push(format!("{name}: no answer ({missing})"));
            continue;
        }
        ms.sort_by(f64::total_cmp);
        let max = *ms.last().unwrap_or(&0.0);
        over |= max > budget;
        parts.push(format!(
            "{name}: p50 {} ms, p99 {} ms, max {max} ms over {} answers{}",
            percentile(&ms, 50.0),
            percentile(&ms, 99.0),
            ms.len(),
            if missing > 0 { format!(", {missing} without an answer") } else { String::new() }
        ));
    }
    let summary = parts.join("; ");
    if over {
        (CheckStatus::Failed, format!("an answer took longer than the budget of {budget} ms: {summary}"))
    } else if unanswered == ex.len() {
        (CheckStatus::Inconclusive, format!("no webhook was answered: {summary}"))
    } else {
        (CheckStatus::Passed, format!("within the budget of {budget} ms: {summary}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16, answer: &str, ms: f64) -> Exchange {
        Exchange {
            method: "POST".into(),
            url: "http://127.0.0.1:1/v1/order/S".into(),
            status: Some(status),
            answer: Some(answer.into()),
            ms: Some(ms),
            ..Exchange::default()
        }
    }

    fn input(exchanges: Vec<Exchange>) -> ReceiverInput {
        ReceiverInput { exchanges, ..ReceiverInput::default() }
    }

    #[test]
    fn creation_needs_a_non_empty_remote_order_id_within_30_s() {
        let g = |e| grade("receiver/order-created-answered", &input(vec![e])).unwrap().status;
        assert_eq!(g(answered(200, r#"{"remoteOrderId":"R-1"}"#, 3.0)), CheckStatus::Passed);
        assert_eq!(g(answered(200, r#"{"remoteOrderId":" "}"#, 3.0)), CheckStatus::Failed);
        assert_eq!(g(answered(200, r#"{"remoteOrderId":null}"#, 3.0)), CheckStatus::Failed);
        assert_eq!(g(answered(201, r#"{"remoteOrderId":"R-1"}"#, 3.0)), CheckStatus::Failed);
        assert_eq!(g(answered(200, r#"{"remoteOrderId":"R-1"}"#, 30_001.0)), CheckStatus::Failed);
        assert_eq!(g(Exchange { error: Some("ECONNREFUSED".into()), ..Exchange::default() }), CheckStatus::Failed);
    }

    #[test]
    fn duplicates_compare_remote_order_ids() {
        let g = |v| grade("receiver/duplicate-concurrent-copies", &input(v)).unwrap();
        let a = || answered(200, r#"{"remoteOrderId":"R-1"}"#, 1.0);
        let b = answered(200, r#"{"remoteOrderId":"R-2"}"#, 1.0);
        assert_eq!(g(vec![a(), a(), a()]).status, CheckStatus::Passed);
        let failed = g(vec![a(), b, a()]);
        assert_eq!(failed.status, CheckStatus::Failed);
        assert_eq!(failed.evidence.len(), 3);
        assert!(failed.message.contains("R-1") && failed.message.contains("R-2"));
        assert_eq!(g(vec![a(), answered(409, "{}", 1.0)]).status, CheckStatus::Passed);
        let retry = |v| grade("receiver/duplicate-retry-same-id", &input(v)).unwrap().status;
        assert_eq!(retry(vec![a(), a()]), CheckStatus::Passed);
        assert_eq!(retry(vec![a(), answered(200, r#"{"remoteOrderId":"R-9"}"#, 1.0)]), CheckStatus::Failed);
        assert_eq!(retry(vec![answered(500, "", 1.0), a()]), CheckStatus::Inconclusive);
    }

    #[test]
    fn refusals_are_anything_but_2xx_and_updates_need_200() {
        let g = |id, e| grade(id, &input(vec![e])).unwrap().status;
        assert_eq!(g("receiver/signature-tampered-body", answered(401, "", 1.0)), CheckStatus::Passed);
        assert_eq!(g("receiver/signature-tampered-body", answered(204, "", 1.0)), CheckStatus::Failed);
        assert_eq!(
            g("receiver/timestamp-missing", Exchange { error: Some("socket hang up".into()), ..Exchange::default() }),
            CheckStatus::Passed
        );
        let broken = ReceiverInput { exchanges: vec![answered(401, "", 1.0)], creation_works: Some(false), ..ReceiverInput::default() };
        assert_eq!(grade("receiver/signature-wrong-secret", &broken).unwrap().status, CheckStatus::Inconclusive);
        assert_eq!(g("receiver/update-unknown-event", answered(200, "", 1.0)), CheckStatus::Passed);
        assert_eq!(g("receiver/update-unknown-event", answered(204, "", 1.0)), CheckStatus::Failed);
        assert_eq!(g("receiver/menu-change-answered", answered(204, "", 1.0)), CheckStatus::Passed);
        let unavailable = ReceiverInput { unavailable: Some("the order never reached Preparing".into()), ..ReceiverInput::default() };
        assert_eq!(grade("receiver/update-delivered", &unavailable).unwrap().status, CheckStatus::Inconclusive);
        assert!(grade("client/path-casing", &unavailable).is_none());
    }

    #[test]
    fn latency_is_per_route_against_the_budget() {
        let mut slow = answered(200, "{}", 250.0);
        slow.url = "http://127.0.0.1:1/v1/order/S/R-1/events".into();
        let v = vec![answered(200, "{}", 10.0), answered(200, "{}", 20.0), slow];
        let ok = grade("receiver/answer-latency", &input(v.clone())).unwrap();
        assert_eq!(ok.status, CheckStatus::Passed);
        assert!(ok.message.contains("POST /v1/order/{remoteId}: p50 10 ms, p99 20 ms, max 20 ms over 2 answers"), "{}", ok.message);
        let tight =
            grade("receiver/answer-latency", &ReceiverInput { exchanges: v, budget_ms: Some(200.0), ..ReceiverInput::default() }).unwrap();
        assert_eq!(tight.status, CheckStatus::Failed);
        assert_eq!(tight.evidence.len(), 1);
        assert_eq!(tight.evidence[0].ms, Some(250.0));
    }
}
