//! `poscheck probe` natively: performs the steps of the probe's plan ([`crate::probe::plan`]), as
//! `pkg/src/probe.js` does. The plan decides what a run plays, in what order, within what bounds,
//! every verdict and the report; this file starts the sandbox, calls it, sends to the POS, sleeps
//! and reports what came back.

use super::sandbox::{Sandbox, SandboxOptions};
use super::send::{self, HttpClient};
use super::{wall_ms, FaceError};
use crate::probe::plan::{Answer, Flow, Outcome, Plan, Step};
use crate::probe::report::Report;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The POS's answers are kept up to this size.
const MAX_ANSWER: usize = 64 * 1024;
/// The probe's own REST calls to its sandbox wait at most this long.
const REST_BUDGET: Duration = Duration::from_secs(60);

/// What a run tells its caller on the way.
pub struct Hooks<'a> {
    /// The sandbox's coordinates, once it listens (`{ url, apiKey, secret, stores, pos }`).
    pub on_ready: &'a (dyn Fn(&Value) + Sync),
    /// A progress line (the checks decided, the scenario that starts).
    pub on_progress: &'a (dyn Fn(&str) + Sync),
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hooks")
    }
}

/// Grades the POS at `options.pos` (`probe()`'s options, as JSON): runs a sandbox whose webhooks
/// go to it, plays the plan's scenarios and gives the report. An error: options the plan refuses
/// (`INVALID_ARGUMENT`), or a step the run cannot go on without (the sandbox cannot listen).
pub async fn probe(options: &Value, hooks: Hooks<'_>) -> Result<Report, FaceError> {
    let mut plan = Plan::from_json(&options.to_string(), super::random_seed()).map_err(|e| FaceError::new(e.code(), e.to_string()))?;
    let started = Instant::now();
    let client = send::client();
    let mut sandbox: Option<Sandbox> = None;
    let result = run(&mut plan, &client, &mut sandbox, &hooks).await;
    if let Some(sb) = sandbox {
        sb.close().await;
    }
    result?;
    Ok(plan.finish((started.elapsed().as_secs_f64() * 1000.0).round()))
}

async fn run(plan: &mut Plan, client: &HttpClient, sandbox: &mut Option<Sandbox>, hooks: &Hooks<'_>) -> Result<(), FaceError> {
    loop {
        let next = plan.next(wall_ms() as f64).map_err(|e| FaceError::new(e.code(), e.to_string()))?;
        for line in &next.say {
            (hooks.on_progress)(line);
        }
        let (outcome, failure) = match next.step {
            Step::Done => return Ok(()),
            step => perform(step, client, sandbox, hooks).await,
        };
        let flow = plan.report(outcome, wall_ms() as f64).map_err(|e| FaceError::new(e.code(), e.to_string()))?;
        if flow == Flow::Abort {
            return Err(failure.unwrap_or_else(|| FaceError::new("INTERNAL", "the run cannot go on")));
        }
    }
}

/// Performs a step: what it gave, and the error it failed with (for a run that cannot go on).
async fn perform(step: Step, client: &HttpClient, sandbox: &mut Option<Sandbox>, hooks: &Hooks<'_>) -> (Outcome, Option<FaceError>) {
    let failed = |e: FaceError| (Outcome::error(e.message.clone()), Some(e));
    match step {
        Step::StartSandbox { options } => {
            let options = match SandboxOptions::from_json(&options) {
                Ok(o) => o,
                Err(e) => return failed(e),
            };
            match Sandbox::start(options).await {
                Ok(sb) => {
                    let config = &sb.info()["config"];
                    let value = json!({ "url": sb.url(), "apiKey": config["clients"][0]["apiKey"], "secret": config["secret"] });
                    *sandbox = Some(sb);
                    (Outcome::value(value), None)
                }
                Err(e) => failed(e),
            }
        }
        Step::Announce { info } => {
            (hooks.on_ready)(&info);
            (Outcome::default(), None)
        }
        Step::Sandbox(call) => {
            let Some(sb) = sandbox.as_ref() else { return failed(FaceError::new("INTERNAL", "no sandbox is running")) };
            match call.control() {
                None => {
                    sb.settle().await;
                    (Outcome::value(Value::Null), None)
                }
                Some(c) => {
                    let reply = sb.control(c.method, &c.target, c.body.as_bytes()).await;
                    (call.outcome(reply.status, &reply.body), None)
                }
            }
        }
        Step::Send { exchange, copies, timeout_ms } => {
            let budget = Duration::from_millis(timeout_ms.max(0.0) as u64);
            let headers: Vec<(String, String)> = exchange.headers.into_iter().collect();
            let body = exchange.body.into_bytes();
            let sends = (0..copies).map(|_| {
                let (client, method, url, headers, body) =
                    (client.clone(), exchange.method.clone(), exchange.url.clone(), headers.clone(), body.clone());
                tokio::spawn(async move { send::send(&client, &method, &url, &headers, body, budget, MAX_ANSWER).await })
            });
            let handles: Vec<_> = sends.collect();
            let mut answers = Vec::with_capacity(handles.len());
            for h in handles {
                let a = h.await.unwrap_or_default();
                answers.push(Answer {
                    status: Some(a.status),
                    answer: (a.error.is_none()).then(|| String::from_utf8_lossy(&a.body).into_owned()),
                    ms: Some(a.ms),
                    error: a.error,
                    at: Some(wall_ms() as f64 / 1000.0),
                });
            }
            (Outcome::answers(answers), None)
        }
        Step::Rest { method, url, headers, body } => {
            let headers: Vec<(String, String)> =
                headers.into_iter().map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect();
            let a = send::send(client, method, &url, &headers, body.into_bytes(), REST_BUDGET, 16 * 1024 * 1024).await;
            match a.error {
                Some(e) => (Outcome::error(e), None),
                None => (Outcome::value(json!({ "status": a.status, "text": String::from_utf8_lossy(&a.body) })), None),
            }
        }
        Step::Sleep { ms } => {
            tokio::time::sleep(Duration::from_millis(ms.max(0.0) as u64)).await;
            (Outcome::default(), None)
        }
        Step::Done => (Outcome::default(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::plan::SandboxCall;

    #[test]
    fn every_call_but_settle_is_a_control_route() {
        let calls = [
            SandboxCall::CreateOrder(json!({})),
            SandboxCall::AssignDriver(json!("ord_1"), None),
            SandboxCall::ReleaseDriver(json!("ord_1"), json!({})),
            SandboxCall::Deliver(json!("ord_1")),
            SandboxCall::Refund(json!("ord_1"), json!({})),
            SandboxCall::Cancel(json!("ord_1"), json!({})),
            SandboxCall::Redeliver("d 1".into()),
            SandboxCall::SetFaults(json!({})),
            SandboxCall::Deliveries,
            SandboxCall::Requests(Some(3)),
            SandboxCall::Order(json!("ord_1")),
        ];
        for call in &calls {
            let c = call.control().expect("a control");
            let routed = crate::service::controls::route(c.method, &c.target, c.body.as_bytes());
            assert!(routed.is_ok(), "{} → {} {} is not a control route: {routed:?}", call.action(), c.method, c.target);
        }
        assert!(SandboxCall::Settle.control().is_none());
        assert_eq!(SandboxCall::Redeliver("d 1".into()).control().map(|c| c.target), Some("/_sandbox/deliveries/d%201/redeliver".into()));
    }

    #[test]
    fn outcomes_are_the_npm_methods_values() {
        let order = SandboxCall::Order(json!("ord_x"));
        assert_eq!(order.outcome(404, r#"{"error":{"code":"NOT_FOUND","message":"no order"}}"#).value, Value::Null);
        let create = SandboxCall::CreateOrder(json!({}));
        let refused = create.outcome(400, r#"{"error":{"code":"INVALID_CONTROL","message":"store is unknown"}}"#);
        assert_eq!(refused.error.as_deref(), Some("store is unknown"));
        assert_eq!(SandboxCall::SetFaults(json!({})).outcome(200, r#"{"faults":{}}"#).value, Value::Null);
        assert_eq!(SandboxCall::Deliveries.outcome(200, "[1]").value, json!([1]));
    }
}
