//! The scenarios of a run, as data: which serves which check, what each is made from, which
//! other checks need it played, and the order a run plays them in.

use super::{COPIES, RELEASED};
use crate::probe::variant::Variant;

/// Where a variant's genuine delivery comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The run's first creation webhook.
    Creation,
    /// The driver_released update webhook (sent only once an order reached Preparing).
    Released,
}

/// What the sandbox's actors do in an update scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// A driver is assigned twice (the second time with a name and phone).
    AssignTwice,
    /// The driver is released.
    Release,
    /// The driver confirms the delivery.
    Deliver,
    /// The order is refunded after its handover.
    Refund,
    /// The customer cancels another order, placed for it.
    CancelOther,
}

/// One scenario of a run, in [`RECEIVER_SCENES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scene {
    /// A sandbox whose webhooks go to the POS.
    Start,
    /// Its coordinates handed to the caller.
    Announce,
    /// A genuine creation webhook (receiver/order-created-answered): every receiver check needs it.
    Creation,
    /// Why the POS refused a genuine delivery, asked of the POS with diagnostic variants (issue
    /// 40): the place for it, empty today.
    Diagnose,
    /// The creation webhook redelivered with its id (receiver/duplicate-retry-same-id).
    Retry,
    /// A variant of a genuine delivery, `copies` sent together.
    Variant {
        /// The check it serves.
        check: &'static str,
        /// What is changed.
        variant: Variant,
        /// Copies sent together.
        copies: u32,
        /// The genuine delivery it is made from.
        from: Source,
    },
    /// The sandbox's actors act on the run's order, and the update webhooks are graded.
    Update {
        /// The check it serves.
        check: &'static str,
        /// What the sandbox does, as the messages say it.
        what: &'static str,
        /// Who does what.
        act: Act,
        /// The checks that need this scenario played even when its own is not wanted.
        feeds: &'static [&'static str],
    },
    /// A menu change and its webhook (receiver/menu-change-answered).
    MenuChange,
    /// Every webhook of the run against the budget (receiver/answer-latency).
    Latency,
    /// `receiverOnly`: the client checks skipped.
    ClientSkipped,
    /// The POS's REST calls while it handles two orders, graded once it is done or the wait is over.
    Client,
}

const fn variant(check: &'static str, variant: Variant, copies: u32, from: Source) -> Scene {
    Scene::Variant { check, variant, copies, from }
}

/// The receiver scenarios, in the order a run plays them.
pub static RECEIVER_SCENES: &[Scene] = &[
    Scene::Creation,
    Scene::Diagnose,
    Scene::Retry,
    variant("receiver/duplicate-concurrent-copies", Variant::FreshOrder, COPIES, Source::Creation),
    variant("receiver/signature-tampered-body", Variant::TamperedBody, 1, Source::Creation),
    variant("receiver/signature-wrong-secret", Variant::WrongSecret, 1, Source::Creation),
    variant("receiver/timestamp-too-old", Variant::TimestampOld, 1, Source::Creation),
    variant("receiver/timestamp-in-future", Variant::TimestampAhead, 1, Source::Creation),
    variant("receiver/signature-missing", Variant::SignatureMissing, 1, Source::Creation),
    variant("receiver/timestamp-missing", Variant::TimestampMissing, 1, Source::Creation),
    variant("receiver/signature-raw-body", Variant::Whitespace, 1, Source::Creation),
    // Update webhooks, from the model: an order accepted by the service (autoAccept) once the POS
    // answered its creation, then the driver and the customer act on it.
    Scene::Update { check: "receiver/update-driver-assigned-twice", what: "assigned a driver twice", act: Act::AssignTwice, feeds: &[] },
    Scene::Update {
        check: RELEASED,
        what: "released the driver",
        act: Act::Release,
        feeds: &["receiver/update-unknown-event", "receiver/update-unknown-fields"],
    },
    variant("receiver/update-unknown-event", Variant::UnknownEvent, 1, Source::Released),
    variant("receiver/update-unknown-fields", Variant::UnknownFields, 1, Source::Released),
    Scene::Update {
        check: "receiver/update-delivered",
        what: "confirmed the delivery",
        act: Act::Deliver,
        feeds: &["receiver/update-cancelled-after-handover"],
    },
    Scene::Update {
        check: "receiver/update-cancelled-after-handover",
        what: "refunded the order after its handover",
        act: Act::Refund,
        feeds: &[],
    },
    Scene::Update { check: "receiver/update-cancelled", what: "cancelled an order for its customer", act: Act::CancelOther, feeds: &[] },
    // The menu change webhook: the probe writes a store-local product itself (its own call, left
    // out of the client checks), applied at once.
    Scene::MenuChange,
    Scene::Latency,
];
