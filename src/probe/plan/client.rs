//! The client scenario: two orders the POS handles through its REST client, the wait while it
//! does, and the client checks graded on the calls it made.

use super::{number, parse, Outcome, Placed, Plan, PlanError, SandboxCall, Step, CLIENT_POLL_MS, CLIENT_QUIET_MS, END};
use crate::contract::{ActorType, Status};
use crate::probe::client;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// A REST call's number in the sandbox's log.
#[derive(Debug, Clone, Copy, Deserialize)]
struct Numbered {
    seq: u64,
}

/// The client scenario's progress.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ClientRun {
    /// The log's last call before the scenario.
    after: u64,
    /// The last call seen while waiting.
    polled: u64,
    /// The order the POS accepts, then readies and hands over.
    target: Option<String>,
    /// The order the customer cancels at once.
    gone: Option<String>,
    end: f64,
    quiet_since: f64,
    status: Option<String>,
}

impl Plan {
    // The client scenario: sub 0 reads the log's last call, 1 sets the faults, 2 to 4 place the
    // orders, 5 starts the wait, 6 pauses, 7 reads the new calls, 8 reads the order, 9 settles,
    // 10 reads every call and grades.
    pub(super) fn play_client(&mut self, now: f64) -> Option<Step> {
        loop {
            let c = &self.client;
            let step = match self.sub {
                0 => SandboxCall::Requests(None),
                1 if self.o.faults.is_empty() => {
                    self.sub = 2;
                    continue;
                }
                1 => {
                    let mut f: Map<String, Value> = self.o.faults.iter().map(|(k, v)| ((*k).to_string(), json!(v))).collect();
                    f.insert("retryAfterSeconds".into(), number(self.o.retry_after_seconds));
                    f.insert("serverErrorsPrefix".into(), Value::String("/api/v1/menu".into()));
                    SandboxCall::SetFaults(Value::Object(f))
                }
                2 => {
                    let sb = self.sandbox.as_ref()?;
                    let key: String = sb.api_key.chars().take(8).collect();
                    self.say
                        .push(format!("waiting up to {} s for the POS's REST calls to {}/api/v1/ (API key {key}…)", self.o.wait, sb.url));
                    self.client.end = now + self.o.wait * 1000.0;
                    // The POS accepts this one by hand; the driver marks it ready the moment it
                    // does, so that the POS's PUT status ready meets the 409 "already Ready".
                    SandboxCall::CreateOrder(self.new_order(false, Some(true), Some("poscheck probe: accept, then ready and handed_over")))
                }
                // This one the customer cancels at once: what the POS then sends meets a terminal 409.
                3 => SandboxCall::CreateOrder(self.new_order(false, None, Some("poscheck probe: cancelled by the customer"))),
                4 => SandboxCall::Cancel(
                    c.gone.clone().map_or(Value::Null, Value::String),
                    json!({ "by": ActorType::Customer.as_str(), "reason": "ordered by mistake" }),
                ),
                5 => {
                    self.client.quiet_since = now;
                    self.sub = 6;
                    continue;
                }
                6 if now < c.end => return Some(Step::Sleep { ms: CLIENT_POLL_MS }),
                6 => {
                    self.sub = 9;
                    continue;
                }
                7 => SandboxCall::Requests(Some(c.polled)),
                8 => match &c.target {
                    Some(t) => SandboxCall::Order(Value::String(t.clone())),
                    None => {
                        self.sub = 6;
                        continue;
                    }
                },
                9 => SandboxCall::Settle,
                10 => SandboxCall::Requests(Some(c.after)),
                _ => return None,
            };
            return Some(Step::Sandbox(step));
        }
    }

    pub(super) fn take_client(&mut self, outcome: Outcome, now: f64) -> Result<(), PlanError> {
        if let Some(e) = outcome.error {
            // Placing the scenario's orders failed (subs 2 to 4): the wait goes on without them.
            self.say.push(format!("the sandbox could not place the client scenario's orders: {e}"));
            self.sub = 5;
            return Ok(());
        }
        match self.sub {
            0 => {
                let calls: Vec<Numbered> = parse(outcome.value, "the REST calls")?;
                self.client.after = calls.last().map_or(0, |c| c.seq);
                self.client.polled = self.client.after;
                self.sub = 1;
            }
            1 => self.sub = 2,
            2 | 3 => {
                let placed: Placed = parse(outcome.value, "the order")?;
                if self.sub == 2 {
                    self.client.target = placed.order_key;
                } else {
                    self.client.gone = placed.order_key;
                }
                self.sub += 1;
            }
            4 => self.sub = 5,
            6 => self.sub = 7,
            7 => {
                let calls: Vec<Numbered> = parse(outcome.value, "the REST calls")?;
                if let Some(last) = calls.iter().map(|c| c.seq).max() {
                    self.client.polled = self.client.polled.max(last);
                    self.client.quiet_since = now;
                }
                self.sub = 8;
            }
            8 => {
                let placed: Option<Placed> = parse(outcome.value, "the order")?;
                self.client.status = placed.and_then(|p| p.status);
                let done = self.client.status.as_deref().is_some_and(|s| Status::MERCHANT_DONE.iter().any(|d| d.as_str() == s));
                let quiet = 1000.0 * self.o.retry_after_seconds + CLIENT_QUIET_MS;
                self.sub = if done && now - self.client.quiet_since >= quiet { 9 } else { 6 };
            }
            9 => self.sub = 10,
            _ => {
                let calls: Vec<client::Call> = parse(outcome.value, "the REST calls")?;
                let input = client::ClientInput { calls, exclude_keys: self.own_keys.clone(), wait_seconds: self.o.wait };
                for c in client::grade(&input) {
                    if self.wanted(&c.id) {
                        self.record(c);
                    }
                }
                self.sub = END;
            }
        }
        Ok(())
    }
}
