//! The transition table of "States and transitions", as data.
//!
//! Every row says where it comes from ([`Basis`]): `stated` when the spec says it in so many words,
//! `derived` when it follows from another sentence of the spec (quoted in [`Row::spec`]), and the
//! parts the spec does not show are listed in [`Row::unknown`] instead of being invented. A row
//! whose from-states are not shown has `from_unknown: true`, an empty `from`, and the states it
//! could plausibly apply from in `from_candidates` (drawn dashed, never asserted).
//!
//! The statuses, events, actors and problem suffixes are the contract's ([`crate::contract`]); the
//! string tables below are their names, for the checkers and schemas that list them.

use crate::contract::{ActorType, DriverEvent, ProblemSuffix, PublishedEvent, Status, UpdateEvent, WriteStatus};
use serde::Serialize;

/// Read status: received, waiting for the merchant (or the acceptance timeout).
pub const PENDING: &str = Status::Pending.as_str();
/// Read status passed through atomically by the accept cascade; never observable.
pub const ACCEPTED: &str = Status::Accepted.as_str();
/// Read status: accepted, being prepared.
pub const PREPARING: &str = Status::Preparing.as_str();
/// Read status: ready for pickup.
pub const READY: &str = Status::Ready.as_str();
/// Read status: the food left the merchant.
pub const HANDED_OVER: &str = Status::HandedOver.as_str();
/// Read status: rejected by the merchant (terminal).
pub const REJECTED: &str = Status::Rejected.as_str();
/// Read status: cancelled (by the customer, an operator, a timeout or a refund).
pub const CANCELLED: &str = Status::Cancelled.as_str();

/// The read vocabulary, in the spec's order.
pub const READ_VOCABULARY: &[&str] = Status::NAMES;
/// The states a POS can ever read (Accepted is passed through atomically).
pub const OBSERVABLE: &[&str] = &[PENDING, PREPARING, READY, HANDED_OVER, REJECTED, CANCELLED];
/// The write vocabulary of `PUT /api/v1/Orders/{orderKey}/status`.
pub const WRITE_VOCABULARY: &[&str] = WriteStatus::NAMES;

/// Events published by REST operations.
pub const EVENT_ACCEPTED: &str = PublishedEvent::Accepted.as_str();
/// Published by POST reject.
pub const EVENT_REJECTED: &str = PublishedEvent::Rejected.as_str();
/// Published by PUT status.
pub const EVENT_STATUS_CHANGED: &str = PublishedEvent::StatusChanged.as_str();

/// Problem-type suffixes of the 409 and 422 answers.
pub const PROBLEM_ACCEPTANCE_TIMEOUT: &str = ProblemSuffix::AcceptanceTimeout.as_str();
/// Problem `type` suffix of a 409 on an invalid state transition.
pub const PROBLEM_INVALID_TRANSITION: &str = ProblemSuffix::InvalidStateTransition.as_str();
/// Problem `type` suffix of a 422 on an invalid body.
pub const PROBLEM_VALIDATION: &str = ProblemSuffix::Validation.as_str();

/// The update webhook events the spec lists (unknown future values are ignored with a 200).
pub const UPDATE_EVENTS: &[&str] = UpdateEvent::NAMES;
/// `history[].actorType`.
pub const ACTOR_TYPES: &[&str] = ActorType::NAMES;
/// `history[].driver.event`.
pub const DRIVER_EVENTS: &[&str] = DriverEvent::NAMES;

pub use crate::basis::Basis;

/// One status of the read vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "MachineState"))]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// The status, PascalCase.
    pub name: &'static str,
    /// Whether a POS can ever read it (`false` for Accepted only).
    pub observable: bool,
    /// No transition of any kind leaves it (Rejected, Cancelled). HandedOver is not terminal: the
    /// service may still cancel it (refund or incident).
    pub terminal: bool,
    /// Where `terminal` comes from.
    pub terminal_basis: Basis,
    /// A REST call of the merchant can still move it (false for HandedOver, Rejected, Cancelled:
    /// a 409 from them carries an empty `allowedTransitions`).
    pub merchant_action_left: bool,
    /// What the merchant's REST calls can move it to (the `meta.allowedTransitions` of a 409 from
    /// this state, before any condition such as the acceptance deadline).
    pub allowed_transitions: Vec<&'static str>,
    /// What the status means.
    pub doc: &'static str,
}

/// A value of the PUT status body and the read status it is compared as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct WriteValue {
    /// The value sent in the PUT status body (snake_case).
    pub value: &'static str,
    /// The read status it compares to.
    pub normalizes_to: &'static str,
    /// What it does.
    pub doc: &'static str,
}

/// A value a POS might send that the service does not accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct RefusedWrite {
    /// The value.
    pub value: &'static str,
    /// Why the service refuses it.
    pub doc: &'static str,
}

/// What a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum RowKind {
    /// The status moves (or, for the accept cascade, moves through Accepted).
    Transition,
    /// The service refuses the request (409 or 422); the status stays.
    Refusal,
    /// Runs beside the status and never changes it (driver cycle, delivery after handover, unknown events).
    Parallel,
}

/// Who or what fires a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum TriggerKind {
    /// A REST call of the POS; `name` is the action string (`accept`, `reject`, `ready`, …, `*` for any).
    Action,
    /// Something that happens inside the service, in the driver's app or at the customer's;
    /// `name` is the trigger string of [`apply_trigger`](super::apply_trigger).
    Service,
    /// An update webhook the POS receives; `name` is its `event` value (`*` for unknown values).
    UpdateEvent,
}

/// The trigger of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "MachineTrigger"))]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    /// Who fires it.
    pub kind: TriggerKind,
    /// Its name: an action, a service trigger or an update event.
    pub name: &'static str,
}

/// The condition column, as something the engine can evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "MachineCondition"))]
#[serde(rename_all = "camelCase")]
pub enum Condition {
    /// No condition.
    Always,
    /// `now` is before `order.expiresAt`.
    BeforeExpiresAt,
    /// `now` is at or after `order.expiresAt`, even if the order still reads Pending.
    AfterExpiresAt,
    /// An auto-accept store (`order.expiresAt` is null).
    AutoAcceptStore,
    /// A store that is not auto-accept (`order.expiresAt` is set).
    NotAutoAcceptStore,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "MachineRow"))]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// Stable kebab-case id (tests and the page refer to rows by it).
    pub id: &'static str,
    /// A transition, a refusal, or a parallel effect.
    pub kind: RowKind,
    /// The from-states the spec states (empty when `from_unknown`).
    pub from: &'static [Status],
    /// The spec does not show the from-states.
    pub from_unknown: bool,
    /// For a row whose from-states are not shown: the states it could apply from (not asserted).
    pub from_candidates: &'static [Status],
    /// What fires it.
    pub trigger: Trigger,
    /// The spec's words for the trigger.
    pub trigger_text: &'static str,
    /// A short label for diagrams.
    pub label: &'static str,
    /// Who acts: `merchant`, `driver`, `service` (customer, operator or system), `receiver`.
    pub actor: &'static str,
    /// When it applies.
    pub condition: Condition,
    /// The spec's words for the condition.
    pub condition_text: Option<&'static str>,
    /// The status after the row; `None` = unchanged.
    pub to: Option<Status>,
    /// A status passed through atomically and never observable (Accepted).
    pub through: Option<Status>,
    /// The service's answer to the REST call that fires the row.
    pub http_status: Option<u16>,
    /// Suffix of the problem `type` when the answer is an error.
    pub problem_type: Option<ProblemSuffix>,
    /// Order fields set by the row.
    pub sets: &'static [&'static str],
    /// Order fields cleared by the row.
    pub clears: &'static [&'static str],
    /// The event published.
    pub event: Option<PublishedEvent>,
    /// The update webhook sent to the POS.
    pub webhook: Option<UpdateEvent>,
    /// What the row rests on.
    pub basis: Basis,
    /// What the spec does not show about this row.
    pub unknown: &'static [&'static str],
    /// The spec's own words (or the sentence the row is derived from).
    pub spec: &'static str,
}

/// Something the table leaves open, for the page and the closing note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "MachineUnknown"))]
#[serde(rename_all = "camelCase")]
pub struct Unknown {
    /// The row it belongs to, if any.
    pub row: Option<&'static str>,
    /// What is not shown.
    pub what: &'static str,
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Machine {
    /// The status an order starts in (Pending).
    pub initial: &'static str,
    /// Every read status, with what can still move it.
    pub states: Vec<State>,
    /// The values of the PUT status body.
    pub write_vocabulary: &'static [WriteValue],
    /// Values the PUT status body must not carry.
    pub refused_writes: &'static [RefusedWrite],
    /// The `event` values of the update webhook.
    pub update_events: &'static [&'static str],
    /// The transition table.
    pub rows: &'static [Row],
    /// Every unknown of the rows, plus the ones that belong to no row.
    pub unknowns: Vec<Unknown>,
    /// Remarks that belong to no row.
    pub notes: &'static [&'static str],
}

const NONE: &[&str] = &[];
const NO_STATES: &[Status] = &[];
/// The observable statuses.
const SEEN: &[Status] = Status::OBSERVABLE;
/// No transition of any kind leaves them (Rejected: stated; Cancelled: derived, no row leaves it).
const TERMINAL_STATES: &[Status] = &[Status::Rejected, Status::Cancelled];

const fn action(name: &'static str) -> Trigger {
    Trigger { kind: TriggerKind::Action, name }
}
const fn service(name: &'static str) -> Trigger {
    Trigger { kind: TriggerKind::Service, name }
}
const fn update(name: &'static str) -> Trigger {
    Trigger { kind: TriggerKind::UpdateEvent, name }
}

/// A row with every optional column empty; the table below overrides what it needs.
const BASE: Row = Row {
    id: "",
    kind: RowKind::Transition,
    from: NO_STATES,
    from_unknown: false,
    from_candidates: NO_STATES,
    trigger: action("*"),
    trigger_text: "",
    label: "",
    actor: ActorType::Merchant.as_str(),
    condition: Condition::Always,
    condition_text: None,
    to: None,
    through: None,
    http_status: None,
    problem_type: None,
    sets: NONE,
    clears: NONE,
    event: None,
    webhook: None,
    basis: Basis::Stated,
    unknown: NONE,
    spec: "",
};

/// The id of the row of PUT status `ready` (the write value itself).
pub const ROW_READY: &str = WriteStatus::Ready.as_str();

/// The rows, in the spec's order, then the bullets under the table.
pub static ROWS: &[Row] = &[
    Row {
        id: "accept",
        from: &[Status::Pending],
        trigger: action("accept"),
        trigger_text: "POST accept",
        label: "accept",
        condition: Condition::BeforeExpiresAt,
        condition_text: Some("before expiresAt"),
        to: Some(Status::Preparing),
        through: Some(Status::Accepted),
        http_status: Some(202),
        sets: &["acceptedAt", "preparingAt"],
        event: Some(PublishedEvent::Accepted),
        unknown: &["the answer exactly at expiresAt (the spec says \"before\" and \"after\"; the engine treats the instant itself as expired)"],
        spec: "Pending | POST accept | before expiresAt | Preparing (passes through Accepted atomically; Accepted is never observable by the POS) | acceptedAt set; event order.accepted_by_external_merchant.v1 published; no extra event for the cascade. preparingAt usually equals acceptedAt because of the accept cascade.",
        ..BASE
    },
    Row {
        id: "auto-accept",
        from: &[Status::Pending],
        trigger: service("auto_accept"),
        trigger_text: "POS answers 200 with remoteOrderId to the creation webhook",
        label: "auto-accept",
        actor: "service",
        condition: Condition::AutoAcceptStore,
        condition_text: Some("auto-accept store (expiresAt is null)"),
        to: Some(Status::Preparing),
        through: Some(Status::Accepted),
        sets: &["acceptedAt", "preparingAt"],
        unknown: &["whether order.accepted_by_external_merchant.v1 is published for an auto-accept (the row says only \"same cascade\")"],
        spec: "Pending | POS answers 200 with remoteOrderId to the creation webhook | auto-accept store | Preparing | same cascade; expiresAt is null",
        ..BASE
    },
    Row {
        id: "accept-after-expiry",
        kind: RowKind::Refusal,
        from: &[Status::Pending],
        trigger: action("accept"),
        trigger_text: "POST accept",
        label: "accept too late",
        condition: Condition::AfterExpiresAt,
        condition_text: Some("after expiresAt, even if the order still reads Pending"),
        http_status: Some(409),
        problem_type: Some(ProblemSuffix::AcceptanceTimeout),
        unknown: &["the meta of the acceptance-timeout 409 (the transition shape { currentStatus, allowedTransitions } is assumed)"],
        spec: "Pending | POST accept | after expiresAt, even if the order still reads Pending | unchanged | 409 with type ending /acceptance-timeout",
        ..BASE
    },
    Row {
        id: "reject",
        from: &[Status::Pending],
        trigger: action("reject"),
        trigger_text: "POST reject",
        label: "reject",
        to: Some(Status::Rejected),
        http_status: Some(202),
        sets: &["rejectedAt"],
        event: Some(PublishedEvent::Rejected),
        spec: "Pending | POST reject | | Rejected (terminal) | rejectedAt set; reason stored; acceptance timeout job cancelled; event order.rejected_by_external_merchant.v1 published",
        ..BASE
    },
    Row {
        // The row of PUT status `ready`: its id is the write value.
        id: ROW_READY,
        from: &[Status::Preparing],
        trigger: action(WriteStatus::Ready.as_str()),
        trigger_text: "PUT status ready",
        label: WriteStatus::Ready.as_str(),
        condition_text: Some("merchant request"),
        to: Some(Status::Ready),
        http_status: Some(202),
        sets: &["readyAt"],
        event: Some(PublishedEvent::StatusChanged),
        spec: "Preparing | PUT status ready | merchant request | Ready | event order.status_changed_by_external_merchant.v1 published. (readyAt: a merchant transition timestamp.)",
        ..BASE
    },
    Row {
        id: "driver-marks-ready",
        from: &[Status::Preparing],
        trigger: service("driver_marks_ready"),
        trigger_text: "driver marks the order ready in the driver's own app",
        label: "driver marks ready",
        actor: ActorType::Driver.as_str(),
        to: Some(Status::Ready),
        unknown: &["whether readyAt is set when the driver marks the order ready", "whether an event is published"],
        spec: "Preparing | driver marks the order ready in the driver's own app | | Ready | a later PUT status ready then returns 409 with meta.currentStatus Ready and allowedTransitions [HandedOver]; this is a state already reached, continue with handed_over",
        ..BASE
    },
    Row {
        id: "ready-already-reached",
        kind: RowKind::Refusal,
        from: &[Status::Ready],
        trigger: action(WriteStatus::Ready.as_str()),
        trigger_text: "PUT status ready",
        label: "ready again",
        http_status: Some(409),
        problem_type: Some(ProblemSuffix::InvalidStateTransition),
        spec: "a later PUT status ready then returns 409 with meta.currentStatus Ready and allowedTransitions [HandedOver]; this is a state already reached, continue with handed_over. Errors rule 2: a PUT status ready answered 409 with currentStatus Ready is a state already reached.",
        ..BASE
    },
    Row {
        id: "handed-over",
        from: &[Status::Ready],
        trigger: action(WriteStatus::HandedOver.as_str()),
        trigger_text: "PUT status handed_over",
        label: WriteStatus::HandedOver.as_str(),
        to: Some(Status::HandedOver),
        http_status: Some(202),
        sets: &["handedOverAt"],
        event: Some(PublishedEvent::StatusChanged),
        spec: "Ready | PUT status handed_over | | HandedOver | same event published. (deliveredAt: on pickup it equals handedOverAt.)",
        ..BASE
    },
    Row {
        id: "refund-or-incident",
        from: &[Status::HandedOver],
        trigger: service("refund_or_incident"),
        trigger_text: "cancellation by refund or incident after handover",
        label: "refund / incident",
        actor: "service",
        condition_text: Some("originates inside the service"),
        to: Some(Status::Cancelled),
        sets: &["cancelledAt"],
        webhook: Some(UpdateEvent::Cancelled),
        spec: "HandedOver | cancellation by refund or incident after handover | originates inside the service | Cancelled | cancelled update webhook sent; cancelledAt may be set after delivery",
        ..BASE
    },
    Row {
        id: "cancellation-by-service",
        from_unknown: true,
        from_candidates: &[Status::Pending, Status::Preparing, Status::Ready],
        trigger: service("cancellation_by_service"),
        trigger_text: "cancellation by customer, operator, timeout or failed webhook",
        label: "cancellation",
        actor: "service",
        to: Some(Status::Cancelled),
        sets: &["cancelledAt"],
        webhook: Some(UpdateEvent::Cancelled),
        unknown: &[
            "the from-states: \"any state where cancellation by the service applies\"; transitions of Cancelled from states other than HandedOver: not shown",
        ],
        spec: "any state where cancellation by the service applies | cancellation by customer, operator, timeout or failed webhook | | Cancelled | cancelled update webhook sent",
        ..BASE
    },
    Row {
        id: "delivery-confirmed",
        from_unknown: true,
        from_candidates: &[Status::Preparing, Status::Ready],
        trigger: service("delivery_confirmed"),
        trigger_text: "the driver confirms the delivery before the merchant reported the handover",
        label: "delivery confirmed",
        actor: "service",
        to: Some(Status::HandedOver),
        sets: &["deliveredAt"],
        webhook: Some(UpdateEvent::Delivered),
        basis: Basis::Derived,
        unknown: &["the from-states from which the service closes an order on confirmed delivery"],
        spec: "handedOverAt may be null while status is HandedOver, when the merchant never reported the handover and the service closed the order on confirmed delivery. Only the update events cancelled and delivered have a counterpart in the order status.",
        ..BASE
    },
    Row {
        id: "delivered-after-handover",
        kind: RowKind::Parallel,
        from: &[Status::HandedOver],
        trigger: service("delivery_confirmed"),
        trigger_text: "the driver confirms the delivery after the handover",
        label: UpdateEvent::Delivered.as_str(),
        actor: "service",
        sets: &["deliveredAt"],
        webhook: Some(UpdateEvent::Delivered),
        basis: Basis::Derived,
        spec: "deliveredAt: for orders created on or after 2026-08-12, null means no confirmed delivery yet; orders created before that date return null permanently. On delivery orders it is set when the driver confirms and is later than handedOverAt; on pickup it equals handedOverAt.",
        ..BASE
    },
    Row {
        id: "put-preparing-after-accept",
        kind: RowKind::Refusal,
        from: &[Status::Preparing, Status::Ready, Status::HandedOver],
        trigger: action(WriteStatus::Preparing.as_str()),
        trigger_text: "PUT status preparing",
        label: WriteStatus::Preparing.as_str(),
        http_status: Some(409),
        problem_type: Some(ProblemSuffix::InvalidStateTransition),
        spec: "PUT status preparing after accept returns 409 (the value stays in the enum for forward compatibility).",
        ..BASE
    },
    Row {
        id: "put-cancelled",
        kind: RowKind::Refusal,
        from: SEEN,
        trigger: action(crate::contract::REFUSED_WRITE_STATUS),
        trigger_text: "PUT status cancelled",
        label: crate::contract::REFUSED_WRITE_STATUS,
        http_status: Some(422),
        problem_type: Some(ProblemSuffix::Validation),
        unknown: &["the status code of PUT status cancelled (\"not accepted\"; 422 follows from the body enum preparing, ready, handed_over)"],
        spec: "PUT status cancelled is not accepted; the merchant cannot cancel after acceptance through the REST API.",
        ..BASE
    },
    Row {
        id: "put-unknown-value",
        kind: RowKind::Refusal,
        from: SEEN,
        trigger: action("*"),
        trigger_text: "PUT status with a value outside preparing, ready, handed_over",
        label: "unknown value",
        http_status: Some(422),
        problem_type: Some(ProblemSuffix::Validation),
        basis: Basis::Derived,
        unknown: &["whether other spellings (Ready, READY, handedOver) are normalized or refused"],
        spec: "PUT status body: status (required: preparing, ready, handed_over). 422: invalid body.",
        ..BASE
    },
    Row {
        id: "terminal",
        kind: RowKind::Refusal,
        from: TERMINAL_STATES,
        trigger: action("*"),
        trigger_text: "any REST transition on a terminal state",
        label: "terminal",
        http_status: Some(409),
        problem_type: Some(ProblemSuffix::InvalidStateTransition),
        basis: Basis::Stated,
        unknown: &["that Cancelled answers with an empty allowedTransitions is derived: the table has no transition out of it"],
        spec: "Rejected is terminal. A 409 with empty meta.allowedTransitions means a terminal state; do not retry.",
        ..BASE
    },
    Row {
        id: "no-merchant-transition",
        kind: RowKind::Refusal,
        from: &[Status::HandedOver],
        trigger: action("*"),
        trigger_text: "any REST transition on a HandedOver order",
        label: "no merchant action",
        http_status: Some(409),
        problem_type: Some(ProblemSuffix::InvalidStateTransition),
        basis: Basis::Derived,
        unknown: &["that HandedOver answers with an empty allowedTransitions is derived: the table has no merchant transition out of it (it is not terminal: HandedOver → Cancelled by refund or incident)"],
        spec: "Ready | PUT status handed_over | | HandedOver; HandedOver | cancellation by refund or incident after handover | originates inside the service | Cancelled. No merchant row leaves HandedOver.",
        ..BASE
    },
    Row {
        id: "invalid-transition",
        kind: RowKind::Refusal,
        from: SEEN,
        trigger: action("*"),
        trigger_text: "any other REST transition",
        label: "invalid",
        http_status: Some(409),
        problem_type: Some(ProblemSuffix::InvalidStateTransition),
        basis: Basis::Derived,
        unknown: &["meta.allowedTransitions is stated for Ready ([HandedOver]) and terminal states ([]) only; for Pending and Preparing it is derived from the table"],
        spec: "409: invalid state transition (type suffix invalid-state-transition); read meta.allowedTransitions. Transition 409 meta: { currentStatus, allowedTransitions } (PascalCase).",
        ..BASE
    },
    Row {
        id: "driver-assigned",
        kind: RowKind::Parallel,
        from: SEEN,
        trigger: update(UpdateEvent::DriverAssigned.as_str()),
        trigger_text: "a driver is assigned",
        label: "driver assigned",
        actor: "service",
        sets: &["driverAssignedAt"],
        webhook: Some(UpdateEvent::DriverAssigned),
        unknown: &["which states a driver can be assigned in (the spec says only that it may arrive while the order is Preparing, and more than once)"],
        spec: "Driver cycle (assigned, reassigned, released) runs in parallel and does not change status. It is recorded in driverAssignedAt, in history rows with driver.event, and in the driver_assigned and driver_released update webhooks.",
        ..BASE
    },
    Row {
        id: "driver-reassigned",
        kind: RowKind::Parallel,
        from: SEEN,
        trigger: service(DriverEvent::Reassigned.as_str()),
        trigger_text: "the driver is replaced",
        label: "driver reassigned",
        actor: "service",
        unknown: &[
            "which update webhook a reassignment sends (the events are driver_assigned and driver_released; a release carries expectedNext driver_reassignment)",
            "whether driverAssignedAt changes on a reassignment",
        ],
        spec: "history driver.event driver_reassigned, with previousCode; assign, reassign and release rows have fromStatus equal to toStatus.",
        ..BASE
    },
    Row {
        id: "driver-released",
        kind: RowKind::Parallel,
        from: SEEN,
        trigger: update(UpdateEvent::DriverReleased.as_str()),
        trigger_text: "the driver is released",
        label: "driver released",
        actor: "service",
        clears: &["driverAssignedAt"],
        webhook: Some(UpdateEvent::DriverReleased),
        spec: "driverAssignedAt: cleared when the driver is released. driver_released carries releasedDriver and expectedNext.",
        ..BASE
    },
    Row {
        id: "unknown-update-event",
        kind: RowKind::Parallel,
        from: SEEN,
        trigger: update("*"),
        trigger_text: "an update webhook with an event value not listed",
        label: "unknown event",
        actor: "receiver",
        http_status: Some(200),
        spec: "unknown future values are ignored with a 200; new values may be added to the update webhook event set without a version change.",
        ..BASE
    },
];

static WRITES: &[WriteValue] = &[
    WriteValue {
        value: WriteStatus::Preparing.as_str(),
        normalizes_to: WriteStatus::Preparing.read().as_str(),
        doc: "Kept in the enum for forward compatibility; after accept it returns 409 (accept already leads to Preparing).",
    },
    WriteValue {
        value: WriteStatus::Ready.as_str(),
        normalizes_to: WriteStatus::Ready.read().as_str(),
        doc: "From Preparing. When the order is already Ready (the driver marked it), 409: continue with handed_over.",
    },
    WriteValue {
        value: WriteStatus::HandedOver.as_str(),
        normalizes_to: WriteStatus::HandedOver.read().as_str(),
        doc: "From Ready: the merchant released the food (to the driver on delivery, to the customer on pickup).",
    },
];

static REFUSED: &[RefusedWrite] = &[RefusedWrite {
    value: crate::contract::REFUSED_WRITE_STATUS,
    doc: "Not accepted: the merchant cannot cancel after acceptance through the REST API (before acceptance, reject).",
}];

/// Unknowns that belong to no single row.
static GENERAL_UNKNOWNS: &[&str] = &[
    "whether Cancelled is terminal is derived (the table has no row out of it); that HandedOver only leaves to Cancelled (refund or incident) is derived the same way",
    "which history rows the service writes for the accept cascade (Accepted is never observable, so it should never appear)",
    "the actorType and actorId of the history rows the service writes for each trigger (simulated: merchant for the REST calls, driver for the driver marking ready and a confirmed delivery; assumed: system for auto-accept, cancellation by the service and driver rows, operator for a refund or incident; actorId null)",
    "where the stored rejection reason shows (simulated, assumed: merchantStatusReason and the history row's reason carry the applied code)",
    "what occurredAt of PUT status changes besides the clamp (simulated, assumed: readyAt and handedOverAt take the service's time, as changedAt does)",
    "the history of orders from before 2026-08-11, when the driver was a status",
    "the acceptance window's length (expiresAt is published in the creation webhook; receivedAt anchors it)",
    "traceId and the title and detail texts of predicted problems (clients discriminate on the type suffix only)",
];

static NOTES: &[&str] = &[
    "The read vocabulary (PascalCase) and the write vocabulary (snake_case) differ and are normalized before comparison.",
    "A driver is not a status: there is no DriverAssigned state, the status never moves on driver assignment, and the list filter does not accept one.",
    "Only the update events cancelled and delivered have a counterpart in the order status.",
    "handedOverAt must not be used to detect that the order left; status is used for that.",
    "Orders created before 2026-08-12 return deliveredAt null permanently; for them HandedOver is the only sign of closure.",
];

fn state_doc(status: Status) -> &'static str {
    match status {
        Status::Pending => "Received, waiting for accept or reject before order.expiresAt (auto-accept stores: accepted by the service).",
        Status::Accepted => "Passed through atomically by the accept cascade; never observable by the POS.",
        Status::Preparing => "Accepted (the cascade lands here); the POS prepares the food.",
        Status::Ready => "Ready for pickup, marked by the merchant or by the driver in the driver's app.",
        Status::HandedOver => {
            "The food left (to the driver on delivery, to the customer on pickup); the service may still cancel it (refund or incident)."
        }
        Status::Rejected => "Rejected by the merchant; terminal.",
        Status::Cancelled => "Cancelled by the service (customer, operator, timeout, failed webhook, refund or incident).",
    }
}

/// The target states of the merchant's REST transitions from `status` (before conditions).
pub fn allowed_transitions(status: Status) -> Vec<Status> {
    let mut out: Vec<Status> = Vec::new();
    for row in ROWS {
        if row.kind == RowKind::Transition && row.trigger.kind == TriggerKind::Action && row.from.contains(&status) {
            if let Some(to) = row.to {
                if !out.contains(&to) {
                    out.push(to);
                }
            }
        }
    }
    out
}

/// No row of the table moves `status` anywhere (service rows and rows whose from-states are not
/// shown included): Rejected and Cancelled. Accepted is passed through, never terminal.
pub fn is_terminal(status: Status) -> bool {
    status.observable()
        && !ROWS.iter().any(|r| {
            r.kind == RowKind::Transition
                && r.to.is_some_and(|t| t != status)
                && (r.from.contains(&status) || r.from_candidates.contains(&status))
        })
}

/// The status `s` spells in the read vocabulary, if it is one.
pub fn read_status(s: &str) -> Option<Status> {
    Status::parse(s)
}

/// The read status a PUT status value normalizes to (`handed_over` → `HandedOver`).
pub fn normalize_write(value: &str) -> Option<Status> {
    WriteStatus::parse(value).map(WriteStatus::read)
}

/// The row with `id`.
pub fn row(id: &str) -> Option<&'static Row> {
    ROWS.iter().find(|r| r.id == id)
}

/// The transition table as data.
pub fn machine() -> Machine {
    let states = Status::ALL
        .iter()
        .map(|&status| {
            let allowed = allowed_transitions(status);
            let terminal = is_terminal(status);
            State {
                name: status.as_str(),
                observable: status.observable(),
                terminal,
                terminal_basis: if status == Status::Rejected || !terminal { Basis::Stated } else { Basis::Derived },
                merchant_action_left: !status.observable() || !allowed.is_empty(),
                allowed_transitions: allowed.iter().map(|s| s.as_str()).collect(),
                doc: state_doc(status),
            }
        })
        .collect();
    let mut unknowns: Vec<Unknown> =
        ROWS.iter().flat_map(|r| r.unknown.iter().map(move |w| Unknown { row: Some(r.id), what: w })).collect();
    unknowns.extend(GENERAL_UNKNOWNS.iter().map(|w| Unknown { row: None, what: w }));
    Machine {
        initial: PENDING,
        states,
        write_vocabulary: WRITES,
        refused_writes: REFUSED,
        update_events: UPDATE_EVENTS,
        rows: ROWS,
        unknowns,
        notes: NOTES,
    }
}

#[cfg(test)]
mod tests;
