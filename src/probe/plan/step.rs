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
