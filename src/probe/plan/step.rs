//! What crosses between the plan and its face: the steps the face performs ([`Step`]), and what
//! they gave ([`Outcome`]). JSON both ways for the npm face; the native face uses the types.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// What the face does next.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Step {
    /// Start a sandbox with `options` (`createSandbox`'s); report `{ value: { url, apiKey, secret } }`.
    StartSandbox {
        /// The sandbox's options.
        options: Value,
    },
    /// Hand the sandbox's coordinates to the caller (`onReady`); report `{}`.
    Announce {
        /// `{ url, apiKey, secret, stores, pos }`.
        info: Value,
    },
    /// Call the sandbox; report `{ value }` (what the call gave) or `{ error }`.
    Sandbox(SandboxCall),
    /// Send `exchange` to the POS (and nowhere else), `copies` at the same moment, each waiting at
    /// most `timeout_ms` for its answer; report `{ answers: [{ status, answer, ms, error, at }] }`.
    #[serde(rename_all = "camelCase")]
    Send {
        /// What to send.
        exchange: Outgoing,
        /// How many copies, sent together.
        copies: u32,
        /// The answer budget of each, ms.
        timeout_ms: f64,
    },
    /// A REST call of the probe's own to the sandbox; report `{ value: { status, text } }` or `{ error }`.
    Rest {
        /// The method.
        method: &'static str,
        /// The full URL.
        url: String,
        /// The headers, in order.
        headers: Map<String, Value>,
        /// The body.
        body: String,
    },
    /// Wait `ms`; report `{}`.
    Sleep {
        /// How long, ms.
        ms: f64,
    },
    /// The run is over: `finish` writes the report.
    Done,
}

/// A call of the sandbox's API, by its name there (`createOrder`, `deliveries`, …) with its
/// arguments; serialized as `{ action, args }`.
#[derive(Debug, Clone, PartialEq)]
pub enum SandboxCall {
    /// A customer places an order (`createOrder`'s options); gives the order's detail.
    CreateOrder(Value),
    /// A driver is assigned to the order (the driver given, or the sandbox's own).
    AssignDriver(Value, Option<Value>),
    /// The driver is released (its options).
    ReleaseDriver(Value, Value),
    /// The driver confirms the delivery.
    Deliver(Value),
    /// The order is refunded (its options).
    Refund(Value, Value),
    /// The order is cancelled (its options).
    Cancel(Value, Value),
    /// The delivery of this id is sent again; gives the attempts' log entries.
    Redeliver(String),
    /// The REST faults to inject.
    SetFaults(Value),
    /// Every delivery attempt, oldest first.
    Deliveries,
    /// The POS's REST calls (numbered above `after`, when given), oldest first.
    Requests(Option<u64>),
    /// The order's detail (`null` when none).
    Order(Value),
    /// Waits for every delivery under way.
    Settle,
}

impl SandboxCall {
    /// The sandbox API's name of the call.
    pub fn action(&self) -> &'static str {
        match self {
            Self::CreateOrder(_) => "createOrder",
            Self::AssignDriver(..) => "assignDriver",
            Self::ReleaseDriver(..) => "releaseDriver",
            Self::Deliver(_) => "deliver",
            Self::Refund(..) => "refund",
            Self::Cancel(..) => "cancel",
            Self::Redeliver(_) => "redeliver",
            Self::SetFaults(_) => "setFaults",
            Self::Deliveries => "deliveries",
            Self::Requests(_) => "requests",
            Self::Order(_) => "order",
            Self::Settle => "settle",
        }
    }

    /// Its arguments, in order.
    pub fn args(&self) -> Vec<Value> {
        match self {
            Self::CreateOrder(v) | Self::Deliver(v) | Self::SetFaults(v) | Self::Order(v) => vec![v.clone()],
            Self::AssignDriver(k, d) => std::iter::once(k.clone()).chain(d.clone()).collect(),
            Self::ReleaseDriver(k, o) | Self::Refund(k, o) | Self::Cancel(k, o) => vec![k.clone(), o.clone()],
            Self::Redeliver(id) => vec![Value::String(id.clone())],
            Self::Requests(after) => after.map(|a| json!({ "after": a })).into_iter().collect(),
            Self::Deliveries | Self::Settle => Vec::new(),
        }
    }
}

/// A call of the sandbox as the control request that performs it (the routes of
/// [`crate::service::controls`]), for a face that has no `createSandbox()` API to call by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlCall {
    /// The method.
    pub method: &'static str,
    /// The path (and query) under the controls' prefix.
    pub target: String,
    /// The body (JSON text).
    pub body: String,
}

/// A path segment as `encodeURIComponent` writes it.
fn segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl SandboxCall {
    /// The control request that performs the call (`None` for [`SandboxCall::Settle`], which is
    /// the face's own waiting). The same routes and bodies as the npm face's API methods.
    pub fn control(&self) -> Option<ControlCall> {
        use crate::service::controls::PREFIX;
        let text = |v: &Value| if v.is_null() { "{}".to_string() } else { v.to_string() };
        let key = |v: &Value| segment(&v.as_str().map_or_else(|| v.to_string(), str::to_string));
        let on = |k: &Value, action: &str, body: String| ControlCall {
            method: "POST",
            target: format!("{PREFIX}/orders/{}/{action}", key(k)),
            body,
        };
        Some(match self {
            Self::CreateOrder(o) => ControlCall { method: "POST", target: format!("{PREFIX}/orders"), body: text(o) },
            Self::AssignDriver(k, d) => on(k, "assign-driver", d.as_ref().map_or_else(|| "{}".into(), text)),
            Self::ReleaseDriver(k, o) => on(k, "release-driver", text(o)),
            Self::Deliver(k) => on(k, "deliver", "{}".into()),
            Self::Refund(k, o) => on(k, "refund", text(o)),
            Self::Cancel(k, o) => on(k, "cancel", text(o)),
            Self::Redeliver(id) => {
                ControlCall { method: "POST", target: format!("{PREFIX}/deliveries/{}/redeliver", segment(id)), body: "{}".into() }
            }
            Self::SetFaults(f) => ControlCall { method: "PUT", target: format!("{PREFIX}/faults"), body: text(f) },
            Self::Deliveries => ControlCall { method: "GET", target: format!("{PREFIX}/deliveries"), body: String::new() },
            Self::Requests(after) => ControlCall {
                method: "GET",
                target: format!("{PREFIX}/requests{}", after.map(|a| format!("?after={a}")).unwrap_or_default()),
                body: String::new(),
            },
            Self::Order(k) => ControlCall { method: "GET", target: format!("{PREFIX}/orders/{}", key(k)), body: String::new() },
            Self::Settle => return None,
        })
    }

    /// What the call gave, from its control's reply (`status`, `body`): the value the npm face's
    /// method resolves with (`setFaults` nothing; `order` null when there is none), or its error.
    pub fn outcome(&self, status: u16, body: &str) -> Outcome {
        if matches!(self, Self::Order(k) if k.as_str() == Some("")) || (matches!(self, Self::Order(_)) && status == 404) {
            return Outcome::value(Value::Null);
        }
        let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        if status >= 400 {
            let message = value.pointer("/error/message").and_then(Value::as_str).unwrap_or("the sandbox refused the call");
            return Outcome::error(message);
        }
        match self {
            Self::SetFaults(_) => Outcome::value(Value::Null),
            _ => Outcome::value(value),
        }
    }
}

impl Serialize for SandboxCall {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("SandboxCall", 2)?;
        st.serialize_field("action", self.action())?;
        st.serialize_field("args", &self.args())?;
        st.end()
    }
}

/// A request to the POS: what a variant or a genuine delivery is made of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outgoing {
    /// The method.
    pub method: String,
    /// The URL.
    pub url: String,
    /// The headers.
    pub headers: BTreeMap<String, String>,
    /// The body.
    pub body: String,
}

/// A step, and the progress lines to print before it is performed (the checks decided since the
/// last step, the scenario that starts).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Next {
    /// Progress lines, in order.
    pub say: Vec<String>,
    /// What to do.
    #[serde(flatten)]
    pub step: Step,
}

/// What a step gave: `{ value }`, `{ error }` (the action failed, with its message) or, for a
/// [`Step::Send`], `{ answers }`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Outcome {
    /// What the action gave (`null` for nothing).
    pub value: Value,
    /// Why the action failed.
    pub error: Option<String>,
    /// The POS's answers to a send, one per copy.
    pub answers: Vec<Answer>,
}

impl Outcome {
    /// An action that gave `value`.
    pub fn value(value: Value) -> Self {
        Self { value, ..Self::default() }
    }
    /// An action that failed with `message`.
    pub fn error(message: impl Into<String>) -> Self {
        Self { error: Some(message.into()), ..Self::default() }
    }
    /// The answers to a send.
    pub fn answers(answers: Vec<Answer>) -> Self {
        Self { answers, ..Self::default() }
    }
}

/// The POS's answer to one copy of a send.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Answer {
    /// The status (0 or none: no answer).
    pub status: Option<u16>,
    /// The answer's body (its first bytes).
    pub answer: Option<String>,
    /// Milliseconds to the answer.
    pub ms: Option<f64>,
    /// Why no answer came.
    pub error: Option<String>,
    /// When it was answered, unix seconds.
    pub at: Option<f64>,
}

/// Whether the run goes on after a step's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Ask for the next step.
    Go,
    /// The step failed and the run cannot go on without it: the face ends the run with the
    /// step's own error.
    Abort,
}
