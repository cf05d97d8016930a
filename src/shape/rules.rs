//! Every rule this module can emit, as static data (id, default severity, one-line doc).
//!
//! Ids are stable and kebab-case. The prefix says where the rule applies: `payload/` for rules
//! shared by every payload and request body, `order-update/`, `menu-change/`, `order/`,
//! `pos-answer/`, `merchant-error/`, `order-detail/`, `order-list/`, `store-menu/`, `menu/`,
//! `capabilities/` for what the POS receives or reads, `request/`, `accept/`, `reject/`,
//! `status-update/`, `menu-write/`, `local-product/`, `menu-body/` for what the POS sends, and
//! `problem/` for the problem responses it reads back.

use crate::basis::Basis;
use crate::diagnostic::{json_rules, Rule, Severity};

macro_rules! rule {
    ($name:ident, $id:literal, $basis:expr, $source:literal, $sev:ident, $doc:literal) => {
        #[doc = $doc]
        pub static $name: Rule = Rule { id: $id, severity: Severity::$sev, doc: $doc, basis: $basis, source: $source };
    };
}

// --- shared by every payload and request body ---
rule!(
    TOO_MANY_DIAGNOSTICS,
    "payload/too-many-diagnostics",
    Basis::Assumed,
    "a bound of this toolkit on its report (the diagnostics budget); not a rule of the service",
    Error,
    "A payload report lists at most `maxDiagnostics` diagnostics (10000 by default) and 4 MiB of text; the rest is counted, not listed."
);
rule!(
    REQUEST_TOO_MANY_DIAGNOSTICS,
    "request/too-many-diagnostics",
    Basis::Assumed,
    "a bound of this toolkit on its report (the diagnostics budget); not a rule of the service",
    Error,
    "A request report lists at most 10000 diagnostics and 4 MiB of text; the rest is counted, not listed."
);
rule!(
    PROBLEM_TOO_MANY_DIAGNOSTICS,
    "problem/too-many-diagnostics",
    Basis::Assumed,
    "a bound of this toolkit on its report (the diagnostics budget); not a rule of the service",
    Error,
    "A problem report lists at most 10000 diagnostics and 4 MiB of text; the rest is counted, not listed."
);
rule!(
    REQUIRED_FIELD,
    "payload/required-field",
    Basis::Stated,
    "Resources and their fields; Webhook payloads (required, always present)",
    Error,
    "A field the contract marks as required (or always present) is missing."
);
rule!(
    FIELD_TYPE,
    "payload/field-type",
    Basis::Stated,
    "Resources and their fields; Webhook payloads (types)",
    Error,
    "A field has the wrong JSON type, or is null where the contract does not allow null."
);
rule!(
    VALUE_RANGE,
    "payload/value-range",
    Basis::Stated,
    "Menu endpoints and Limits (ranges)",
    Error,
    "A number is outside the range the contract gives (e.g. price at least 0, tax between 0 and 1)."
);
rule!(
    ENUM_VALUE,
    "payload/enum-value",
    Basis::Stated,
    "the value lists of the contract",
    Error,
    "A value is not one of the values the contract lists for the field."
);
rule!(
    TIMESTAMP,
    "payload/timestamp",
    Basis::Stated,
    "Resources and their fields: timestamps are ISO 8601 in UTC",
    Error,
    "A timestamp is not ISO 8601 in UTC (e.g. 2026-08-12T14:30:00Z)."
);
rule!(
    TIMESTAMP_OFFSET,
    "payload/timestamp-offset",
    Basis::Assumed,
    "a timestamp with an offset is ISO 8601 but not UTC; whether the service refuses it is not shown",
    Warning,
    "A request timestamp with a UTC offset: ISO 8601, but the contract's timestamps are UTC; the service's answer is not shown."
);
rule!(
    UNKNOWN_FIELD,
    "payload/unknown-field",
    Basis::Assumed,
    "the spec lists the fields; others are not shown",
    Warning,
    "A field the contract does not define (often a typo: the help suggests the closest name)."
);
rule!(
    ORDER_KEY_FORMAT,
    "payload/order-key-format",
    Basis::Stated,
    "orderKey: ord_ + 16 base62 characters",
    Error,
    "An orderKey is `ord_` followed by exactly 16 base62 characters."
);
rule!(
    CHANGE_KEY_FORMAT,
    "payload/change-key-format",
    Basis::Stated,
    "changeKey: chg_ + 16 base62",
    Error,
    "A changeKey / changeId is `chg_` followed by exactly 16 base62 characters."
);
rule!(
    RENAMED_FIELD,
    "payload/renamed-field",
    Basis::Stated,
    "Versioning 2026-08-10 Breaking: menu read fields renamed to image and modifierGroups",
    Error,
    "A read field renamed on 2026-08-10: `imageUrl` is now `image`, `modifiers` is now `modifierGroups`."
);
rule!(
    KIND_UNDETECTED,
    "payload/kind-undetected",
    Basis::Assumed,
    "this toolkit could not tell what the input is; nothing was checked",
    Error,
    "The shape matches no payload kind of the contract, so nothing could be checked; pass the kind explicitly."
);
rule!(
    KIND_AMBIGUOUS,
    "payload/kind-ambiguous",
    Basis::Assumed,
    "this toolkit's guess between shapes",
    Info,
    "The shape matches several payload kinds equally well; the first one was used (pass the kind to choose)."
);
rule!(
    PATH_UNKNOWN,
    "payload/path-unknown",
    Basis::Assumed,
    "this toolkit's routing of a path",
    Warning,
    "The path given is none of the routes the service calls on the POS nor a resource the POS reads."
);
rule!(
    PATH_KIND_MISMATCH,
    "payload/path-kind-mismatch",
    Basis::Assumed,
    "this toolkit's routing of a path",
    Warning,
    "The path given is the route of another payload kind than the one checked."
);

// --- OrderUpdateEvent (PUT {pos_base_url}/v1/order/{remoteId}/{remoteOrderId}/events) ---
rule!(
    UPDATE_UNKNOWN_EVENT,
    "order-update/unknown-event",
    Basis::Stated,
    "OrderUpdateEvent: unknown future values are ignored with a 200",
    Info,
    "An `event` value the contract does not list yet: receivers ignore it and answer 200 (never an error)."
);
rule!(UPDATE_FIELD_MISSING_FOR_EVENT, "order-update/field-missing-for-event", Basis::Stated, "OrderUpdateEvent: reason, driver, releasedDriver, expectedNext present for their events", Error, "`reason` (cancelled, driver_released), `driver` (driver_assigned), `releasedDriver` and `expectedNext` (driver_released) must be present for their event.");
rule!(UPDATE_FIELD_NOT_FOR_EVENT, "order-update/field-not-for-event", Basis::Stated, "OrderUpdateEvent: reason absent otherwise", Warning, "`reason`, `driver`, `releasedDriver` or `expectedNext` is present for an event that does not carry it (the contract says absent otherwise).");
rule!(
    UPDATE_UNKNOWN_EXPECTED_NEXT,
    "order-update/unknown-expected-next",
    Basis::Stated,
    "OrderUpdateEvent: unknown values of expectedNext tolerated",
    Info,
    "An `expectedNext` other than `driver_reassignment`: unknown values are tolerated."
);
rule!(
    UPDATE_DRIVER_PHONE,
    "order-update/driver-phone-format",
    Basis::Stated,
    "OrderEventDriver: phone in international format (+ and digits)",
    Error,
    "A driver `phone` is in international format: it has digits and no letters."
);
rule!(
    UPDATE_DRIVER_PHONE_SHAPE,
    "order-update/driver-phone-shape", Basis::Assumed, "\"international format\" is stated; a form without + (00 prefix, spaces) is not shown either way",
    Warning,
    "A driver `phone` without a leading `+` (e.g. a 00 prefix), or with a digit count outside 7 to 15: only \"international format\" is stated."
);
rule!(
    UPDATE_REMOTE_ORDER_ID_PATH,
    "order-update/remote-order-id-path",
    Basis::Stated,
    "OrderUpdateEvent: the path parameter is authoritative",
    Warning,
    "The body's `remoteOrderId` differs from the one in the request path; the path parameter is authoritative."
);
rule!(
    UPDATE_STATUS_FIELD_REMOVED,
    "order-update/status-field-removed",
    Basis::Stated,
    "Events rule 5: the former status field is no longer emitted",
    Error,
    "The update webhook discriminator is `event` since 2026-08-12; the former `status` field is no longer emitted."
);
rule!(
    UPDATE_OLD_ROUTE,
    "order-update/old-route",
    Basis::Stated,
    "Events rule 5: the former /status route is no longer emitted",
    Error,
    "Update webhooks go to `/v1/order/{remoteId}/{remoteOrderId}/events` since 2026-08-12; the former `/status` route is no longer called."
);

// --- MenuChangeCompletedWebhook and the menu change resource ---
rule!(
    CHANGE_KEY_PATH,
    "menu-change/change-key-path",
    Basis::Stated,
    "MenuChangeCompletedWebhook: changeKey equals the path parameter",
    Error,
    "The webhook's `changeKey` equals the `{changeKey}` of the request path."
);
rule!(
    CHANGE_STATUS_RESULTS,
    "menu-change/status-results",
    Basis::Stated,
    "MenuChangeCompletedWebhook: applied = all stores succeeded, failed = all failed",
    Error,
    "`status` agrees with `results[]`: `applied` = every row applied, `failed` = no row applied, `partial` = some of each."
);
rule!(
    CHANGE_COMPLETED_BEFORE_SUBMITTED,
    "menu-change/completed-before-submitted",
    Basis::Derived,
    "submittedAt and completedAt: completion follows submission",
    Error,
    "`completedAt` is not earlier than `submittedAt`."
);
rule!(
    CHANGE_ERROR_FIELDS_ON_APPLIED,
    "menu-change/error-fields-on-applied",
    Basis::Stated,
    "MenuChangeResult: when applied is true both are omitted",
    Error,
    "When `applied` is true, `errorCode` and `errorMessage` are omitted from the JSON (not serialized as null)."
);
rule!(
    CHANGE_ERROR_FIELDS_MISSING,
    "menu-change/error-fields-missing",
    Basis::Stated,
    "MenuChangeResult: present only when applied is false",
    Error,
    "When `applied` is false, `errorCode` and `errorMessage` are present."
);
rule!(CHANGE_UNKNOWN_TARGET_ENTITY, "menu-change/unknown-target-entity", Basis::Stated, "MenuChangeResult: targetEntity values in use (an open list)", Warning, "A `targetEntity` outside the values in use (`product`, `modifierOption`, `localProduct`; and `category`, `modifierGroup` in the resource).");
rule!(
    CHANGE_COMPLETED_AT_STATUS,
    "menu-change/completed-at-status",
    Basis::Stated,
    "Menu change: completedAt null while pending",
    Error,
    "In the menu change resource, `completedAt` is null while `status` is Pending and set once it is Applied."
);
rule!(
    CHANGE_APPLIED_AT_FAILED,
    "menu-change/applied-at-failed",
    Basis::Stated,
    "Menu change: appliedAt null when failed",
    Error,
    "A result row that failed (`applied` false) has `appliedAt` null."
);
rule!(
    CHANGE_APPLIED_WITH_FAILURES,
    "menu-change/applied-with-failures",
    Basis::Stated,
    "Menu change: a global Applied may coexist with rows where applied is false",
    Info,
    "Status `Applied` means processing finished, not success: some rows failed; read `results[].errorCode`."
);

// --- the 2xx answers of REST operations ---
rule!(
    WRITE_ANSWER_CHANGE_ID,
    "menu-write-answer/change-id",
    Basis::Stated,
    "Menu scopes and async model: every menu write returns 202 with data.changeId",
    Error,
    "The 202 of an asynchronous menu write carries `data.changeId` (`chg_` + 16 characters)."
);
rule!(
    ANSWER_STATUS,
    "order-answer/status",
    Basis::Stated,
    "Orders endpoints: the 202 data of accept (Preparing), reject (Rejected), PUT status (PascalCase result)",
    Error,
    "The 202 of accept says Preparing, of reject Rejected, of PUT status the PascalCase result (Ready or HandedOver)."
);
rule!(
    ANSWER_PREPARING_AT,
    "order-answer/preparing-at",
    Basis::Stated,
    "Orders endpoints: accept 202: preparingAt is not included",
    Error,
    "The accept answer does not include `preparingAt` (read it from the detail)."
);
rule!(
    ANSWER_REASON,
    "order-answer/reason",
    Basis::Derived,
    "Orders rule 2: an unknown reasonCode is normalized to SYSTEM_ISSUE and returned so in data.reason",
    Error,
    "The reject answer's `reason` is the applied code: one of the reasonCodes (an unknown one is normalized to SYSTEM_ISSUE)."
);

// --- order creation payload and data.order ---
rule!(
    ORDER_CURRENCY,
    "order/currency",
    Basis::Stated,
    "data.order: currency ISO 4217",
    Error,
    "`currency` is an ISO 4217 alphabetic code (three upper-case letters, e.g. USD)."
);
rule!(
    ORDER_EXPIRES_AT_NULL,
    "order/expires-at-null",
    Basis::Stated,
    "data.order: expiresAt null for auto-accept stores",
    Info,
    "`expiresAt` is null only for auto-accept stores; the payload alone cannot tell whether this store is one."
);
rule!(
    ORDER_FULFILLMENT_TIME_MISSING,
    "order/fulfillment-time-missing",
    Basis::Stated,
    "data.order: fulfillment driverPickupAt (delivery) or customerPickupAt (pickup)",
    Error,
    "`fulfillment.driverPickupAt` is present on delivery, `fulfillment.customerPickupAt` on pickup."
);
rule!(
    ORDER_FULFILLMENT_TIME_UNEXPECTED,
    "order/fulfillment-time-unexpected",
    Basis::Stated,
    "data.order: driverPickupAt (delivery) or customerPickupAt (pickup)",
    Error,
    "`driverPickupAt` belongs to delivery and `customerPickupAt` to pickup; the other type does not carry it."
);
rule!(
    ORDER_CUSTOMER_ON_DELIVERY,
    "order/customer-on-delivery",
    Basis::Stated,
    "data.order: customer only on pickup, null on delivery",
    Error,
    "`customer` is only on pickup orders; it is null on delivery."
);
rule!(
    ORDER_STORE_REMOTE_ID_PATH,
    "order/store-remote-id-path",
    Basis::Stated,
    "Endpoints the POS exposes: remoteId is the merchant's store code",
    Warning,
    "The body's `storeRemoteId` differs from the `{remoteId}` of the creation webhook path (both are the merchant's store code)."
);
rule!(ORDER_READ_STATUS, "order/read-status", Basis::Stated, "States and transitions: read vocabulary; the list filter does not accept DriverAssigned", Error, "An order status (responses and the list filter) is PascalCase in the read vocabulary: Pending, Accepted, Preparing, Ready, HandedOver, Rejected, Cancelled; there is no DriverAssigned.");

// --- the POS's answer to the creation webhook, its error replies ---
rule!(POS_ANSWER_REMOTE_ORDER_ID, "pos-answer/remote-order-id", Basis::Stated, "Endpoints the POS exposes: 200 with remoteOrderId non-null and non-empty", Error, "The POS answers the creation webhook with `{ \"remoteOrderId\": \"…\" }`, non-null and non-empty, or the delivery counts as failed and is retried.");
rule!(MERCHANT_ERROR_SHAPE, "merchant-error/suggested-shape", Basis::Stated, "MerchantErrorResponse: any JSON or an empty body is accepted", Info, "The POS's error replies may be any JSON or empty; the suggested body is an object with optional string `error` and `message` and a `timestamp`.");

// --- order detail and list ---
rule!(
    LIST_HAS_MORE_CURSOR,
    "order-list/has-more-cursor",
    Basis::Stated,
    "GET /api/v1/Orders: nextCursor null on the last page; hasMore the loop stop condition",
    Error,
    "`hasMore` is true exactly when `nextCursor` is a string; `nextCursor` is null on the last page."
);
rule!(
    LIST_PAGE_SIZE,
    "order-list/page-size",
    Basis::Stated,
    "Limits: list page size maximum 100",
    Error,
    "A list page holds at most 100 items."
);
rule!(
    LIST_ACCEPTED_AT_STATUS,
    "order-list/accepted-at-status",
    Basis::Stated,
    "Order list item: acceptedAt null if pending or rejected",
    Error,
    "`acceptedAt` is null while the order is Pending or Rejected."
);
rule!(LIST_ACCEPTED_OBSERVED, "order-list/accepted-observed", Basis::Stated, "States and transitions: Accepted is never observable by the POS", Error, "A list item's status is never Accepted: the accept cascade passes through it atomically, so the POS never observes it (as in the detail).");

// --- store menu read, shared menu rules, capabilities ---
rule!(MENU_OVERRIDE_FIELD_FOR_TYPE, "store-menu/override-field-for-type", Basis::Stated, "overrides[]: only fields applicable to the type are populated", Error, "An override only populates the fields of its type: `replacedBy` on substituted, `window` on scheduled, `fields[]` on channel and value.");
rule!(
    MENU_EMPTY_OVERRIDES,
    "store-menu/empty-overrides",
    Basis::Stated,
    "overrides[]: items with no override omit the field",
    Warning,
    "Items with no override omit `overrides`; an empty array is not what the service sends."
);
rule!(MENU_OVERRIDE_DRIVES_STATE, "store-menu/override-drives-state", Basis::Stated, "overrides[]: element 0 drives orderable and resumesAt", Warning, "Element 0 of `overrides[]` drives `orderable` and `resumesAt`: an `unavailable` override with `orderable` true, or `resumesAt` with no override, disagree.");
rule!(
    MENU_GROUP_MIN_MAX,
    "menu/group-min-max",
    Basis::Stated,
    "Limits: modifier group min at least 0; max at least 1 and at least min",
    Error,
    "A modifier group has `min` at least 0 and `max` at least 1 and at least `min`."
);
rule!(
    MENU_IMAGE_URL,
    "menu/image-url",
    Basis::Stated,
    "Store menu: image (re-hosted WebP URL)",
    Error,
    "`image` is an absolute http or https URL."
);
rule!(
    CAPABILITIES_UNKNOWN_VALUE,
    "capabilities/unknown-value",
    Basis::Stated,
    "Capability entry: entity, field and scope values",
    Error,
    "A capability `entity`, `field` or `scope` outside the vocabulary of the contract."
);
rule!(
    CAPABILITIES_DUPLICATE,
    "capabilities/duplicate-entry",
    Basis::Assumed,
    "whether an entry may repeat is not shown",
    Warning,
    "The same (entity, field, scope) appears twice in `capabilities[]`."
);

// --- REST requests: route, headers, query ---
rule!(
    REQ_UNKNOWN_ENDPOINT,
    "request/unknown-endpoint",
    Basis::Stated,
    "Errors: 404 resource does not exist",
    Error,
    "No endpoint of the contract has this path (404)."
);
rule!(
    REQ_PATH_CASING,
    "request/path-casing",
    Basis::Stated,
    "Conventions: casing is exact",
    Error,
    "Path casing is exact: `/api/v1/Orders` with capital O, `/api/v1/menu` lowercase (404 otherwise)."
);
rule!(
    REQ_METHOD,
    "request/method-not-allowed",
    Basis::Assumed,
    "the status for a method a path does not take is not shown",
    Warning,
    "The path exists with another method; the service's answer is not shown (no such endpoint: 404 assumed)."
);
rule!(
    REQ_PATH_ID_FORMAT,
    "request/path-id-format",
    Basis::Derived,
    "Errors: 404 resource does not exist; ids are ord_/chg_ + 16 base62",
    Error,
    "An id in the path is malformed (`ord_` / `chg_` + 16 base62, non-empty codes), so no resource can match (404)."
);
rule!(
    REQ_API_KEY,
    "request/api-key-missing",
    Basis::Stated,
    "Authentication 1: a missing, invalid or revoked key gives 401",
    Error,
    "Every request carries `X-Service-Api-Key` (401 when missing, invalid or revoked)."
);
rule!(
    REQ_SCHEMA_VERSION,
    "request/schema-version",
    Basis::Stated,
    "Errors: 400 X-Service-Schema-Version missing or unsupported",
    Error,
    "Every mutation (POST, PUT, PATCH) carries `X-Service-Schema-Version: 1.0` (400 when missing or unsupported)."
);
rule!(
    REQ_IDEMPOTENCY_KEY_MISSING,
    "request/idempotency-key-missing",
    Basis::Stated,
    "Errors: 422 missing Idempotency-Key",
    Error,
    "Every mutation carries an `Idempotency-Key` (422 when missing)."
);
rule!(
    REQ_IDEMPOTENCY_KEY_FORMAT,
    "request/idempotency-key-format", Basis::Assumed, "Idempotency-Key is a UUID v4; the answer to another format is not shown",
    Warning,
    "`Idempotency-Key` is a UUID v4, fresh per logical attempt and reused for its retries; the service's answer to another format is not shown."
);
rule!(
    REQ_CONTENT_TYPE,
    "request/content-type",
    Basis::Assumed,
    "mutations carry Content-Type: application/json; the answer to another type is not shown",
    Warning,
    "Every mutation carries `Content-Type: application/json`; the service's answer to another or no type is not shown."
);
rule!(
    REQ_IDEMPOTENCY_KEY_ON_READ,
    "request/idempotency-key-on-read",
    Basis::Stated,
    "GET /api/v1/Orders/{orderKey}: no Idempotency-Key",
    Info,
    "GET requests carry no `Idempotency-Key`; it has no effect there."
);
rule!(
    REQ_BODY_MISSING,
    "request/body-missing",
    Basis::Derived,
    "Errors: 422 invalid body; the endpoint's body has required fields",
    Error,
    "This endpoint takes a JSON body with required fields; none was sent (422, invalid body)."
);
rule!(
    REQ_ACCEPT_BODY_MISSING,
    "request/accept-body-missing",
    Basis::Assumed,
    "POST accept: body empty JSON object; the answer to no body is not shown",
    Warning,
    "POST accept takes an empty JSON object `{}`; none was sent: the service's answer to no body is not shown."
);
rule!(
    REQ_BODY_IGNORED,
    "request/body-ignored",
    Basis::Assumed,
    "GET takes no body; what the service does with one is not shown",
    Warning,
    "GET requests take no body; this one is ignored."
);
rule!(
    REQ_UNKNOWN_QUERY,
    "request/unknown-query-parameter",
    Basis::Assumed,
    "what the service does with a query parameter it does not define is not shown",
    Warning,
    "A query parameter this endpoint does not define."
);
rule!(
    REQ_PAGE_SIZE,
    "request/page-size",
    Basis::Stated,
    "Limits: list page size maximum 100",
    Error,
    "The list's `PageSize` is at most 100 (default 20)."
);
rule!(
    REQ_PAGE_SIZE_VALUE,
    "request/page-size-value",
    Basis::Derived,
    "Orders: PageSize (integer); Limits: list page size maximum 100, default 20 (a page size is a whole number of items, at least 1); Errors: 422 invalid request",
    Error,
    "`PageSize` is an integer from 1 to 100: 0, a negative number or a non-integer is refused like a size above 100 (422)."
);

// --- REST request bodies ---
rule!(
    ACCEPT_REMOTE_ORDER_ID,
    "accept/remote-order-id",
    Basis::Stated,
    "POST accept: remoteOrderId must not be sent",
    Error,
    "The accept body is an empty JSON object: `remoteOrderId` must not be sent (it comes from the creation webhook answer)."
);
rule!(REJECT_REASON_CODE_NORMALIZED, "reject/reason-code-normalized", Basis::Stated, "Orders rule 2: normalized to SYSTEM_ISSUE, never a 422", Warning, "A `reasonCode` outside STORE_CLOSED, OUT_OF_OPERATING_HOURS, ITEM_NOT_OFFERED, ITEM_OUT_OF_STOCK, PRICE_MISMATCH, SYSTEM_ISSUE is normalized to SYSTEM_ISSUE (never a 422).");
rule!(
    STATUS_CANCELLED,
    "status-update/cancelled-refused",
    Basis::Stated,
    "States and transitions: PUT status cancelled is not accepted",
    Error,
    "PUT status does not accept `cancelled`: the merchant cannot cancel after acceptance through the REST API."
);
rule!(STATUS_PREPARING_CONFLICT, "status-update/preparing-conflict", Basis::Stated, "States and transitions: PUT status preparing after accept returns 409", Error, "PUT status `preparing` returns 409 (invalid-state-transition) after accept, which already moves the order to Preparing; the value stays in the enum for forward compatibility.");
rule!(
    STATUS_OCCURRED_AT_CLAMPED,
    "status-update/occurred-at-clamped",
    Basis::Stated,
    "Orders rule 3: occurredAt clamped to [now - 24 h, now + 5 min]",
    Warning,
    "`occurredAt` outside [now − 24 h, now + 5 min] is clamped into that range by the service."
);
rule!(
    WRITE_NOT_SHIPPED,
    "menu-write/not-shipped",
    Basis::Stated,
    "Menu scopes: only shipped combinations are accepted; others return 422",
    Error,
    "Only shipped (entity, field, scope) combinations are accepted; others return 422."
);
rule!(WRITE_PENDING_ROLLOUT, "menu-write/pending-customer-rollout", Basis::Stated, "Menu scopes: modifierOption price and name in store scope carry pendingCustomerRollout", Warning, "modifierOption `price` and `name` in store scope are accepted and persisted but not yet reflected in the customer app (pendingCustomerRollout).");
rule!(
    WRITE_STORES_SCOPE,
    "menu-write/stores-scope",
    Basis::Stated,
    "Menu scopes: stores[] required in store scope, omitted in brand scope",
    Error,
    "`stores[]` is required in store scope and must be omitted in brand scope."
);
rule!(
    WRITE_EMPTY_STORES,
    "menu-write/empty-stores",
    Basis::Assumed,
    "what an empty stores[] does is not shown",
    Warning,
    "`stores[]` is empty: the write targets no store."
);
rule!(
    WRITE_BRAND_ONLY,
    "menu-write/brand-only",
    Basis::Stated,
    "Menu scopes: category and modifierGroup are brand-only",
    Error,
    "Categories and modifier groups are brand-only: `scope` must be `brand` (store is the default when omitted)."
);
rule!(
    WRITE_CATEGORY_CODE_REQUIRED,
    "menu-write/category-code-required",
    Basis::Stated,
    "PATCH modifier-options: categoryCode required in brand scope",
    Error,
    "A modifierOption change in brand scope needs `categoryCode` (the parent modifier group code)."
);
rule!(
    WRITE_EMPTY_SET,
    "menu-write/empty-set",
    Basis::Stated,
    "PATCH: absent or null field = no change",
    Warning,
    "`set` has no non-null field: an absent or null field means no change, so nothing would change."
);
rule!(
    WRITE_SCHEDULE,
    "menu-write/schedule",
    Basis::Stated,
    "set fields: schedule days[] and HH:mm times",
    Error,
    "`schedule` has `days[]` (at least one of mon to sun, case-insensitive) and `startTime` / `endTime` as HH:mm."
);
rule!(
    WRITE_NO_CHANNEL,
    "menu-write/no-channel",
    Basis::Stated,
    "set fields: an empty list means no channel",
    Info,
    "An empty `channels` list means no channel: the item is blocked everywhere."
);
rule!(
    WRITE_LOCAL_PRODUCT_SET,
    "menu-write/local-product-set-not-shown",
    Basis::Stated,
    "POST /menu/changes: localProduct set fields are not shown",
    Info,
    "The `set` fields of a `localProduct` change are not shown in the contract; they are not checked."
);
rule!(
    LOCAL_PRODUCT_TAX,
    "local-product/tax",
    Basis::Stated,
    "Limits: local product tax only 0, 0.15, 0.18",
    Error,
    "A local product's `tax` is 0, 0.15 or 0.18."
);
rule!(
    LOCAL_PRODUCT_AVAILABLE_IGNORED,
    "local-product/available-ignored",
    Basis::Stated,
    "POST local product: available ignored on creation",
    Warning,
    "`available` is ignored on creation: the product is always created active (info when it is true, warning when false)."
);
rule!(
    LOCAL_PRODUCT_POSITION,
    "local-product/position-not-accepted",
    Basis::Stated,
    "POST local product: position is not accepted",
    Warning,
    "`position` is not accepted on local product creation: the product is placed at the end of its category."
);
rule!(
    LOCAL_PRODUCT_CODE_FORMAT,
    "local-product/code-format",
    Basis::Derived,
    "POST local product: code kept as remoteCode (remoteCode rules)",
    Warning,
    "The `code` is kept as remoteCode: letters, digits and `_ . - :`, no spaces, up to 100 characters."
);

// --- problem responses the POS reads back ---
rule!(
    PREVIEW_WARNING,
    "menu-body/preview-warning", Basis::Stated, "POST /menu/preview: deeper semantic validations come back as warnings, not 422",
    Info,
    "On POST /menu/preview, deeper semantic validations come back as warnings, not 422: the menu linter's semantic errors are reported as warnings there."
);
rule!(
    PROBLEM_NOT_JSON,
    "problem/not-problem-json",
    Basis::Stated,
    "Errors: every error follows RFC 7807",
    Warning,
    "An error body is an RFC 7807 problem: a JSON object (classified from the HTTP status alone otherwise)."
);
rule!(
    PROBLEM_MISSING_MEMBER,
    "problem/missing-member",
    Basis::Stated,
    "Errors: type, title, detail, status, traceId, meta",
    Warning,
    "A problem has `type`, `title`, `detail`, `status`, `traceId` and `meta`."
);
rule!(
    PROBLEM_STATUS_MISMATCH,
    "problem/status-mismatch",
    Basis::Stated,
    "Errors: status (integer)",
    Warning,
    "The problem's `status` member differs from the HTTP status."
);
rule!(PROBLEM_UNKNOWN_TYPE, "problem/unknown-type", Basis::Stated, "Errors: known type suffixes", Info, "The `type` ends in none of the known suffixes (not-found, idempotency-conflict, invalid-state-transition, validation, acceptance-timeout).");
rule!(
    PROBLEM_META_SHAPE,
    "problem/meta-shape",
    Basis::Stated,
    "Errors: meta shapes",
    Warning,
    "`meta` is `{ currentStatus, allowedTransitions[] }` on a transition 409, `{ errors: { path: [rules] } }` on a 422, null otherwise."
);
rule!(PROBLEM_READ_STATUS, "problem/read-status", Basis::Stated, "Errors: meta shapes: transition 409 { currentStatus, allowedTransitions } (PascalCase); States and transitions: read vocabulary", Warning, "The `meta.currentStatus` and every `meta.allowedTransitions` entry of a transition 409 (invalid-state-transition, or acceptance-timeout carrying that meta) are PascalCase in the read vocabulary: Pending, Accepted, Preparing, Ready, HandedOver, Rejected, Cancelled.");
rule!(
    PROBLEM_RETRY_AFTER,
    "problem/retry-after",
    Basis::Stated,
    "Errors: 429 honour Retry-After",
    Warning,
    "A 429 carries a `Retry-After` header (seconds or an HTTP date) to honour."
);

/// Every rule this module can emit, the shared JSON rules included.
pub static RULES: &[&Rule] = &[
    &TOO_MANY_DIAGNOSTICS,
    &REQUEST_TOO_MANY_DIAGNOSTICS,
    &PROBLEM_TOO_MANY_DIAGNOSTICS,
    &json_rules::SYNTAX,
    &json_rules::INVALID_UTF8,
    &json_rules::TOO_DEEP,
    &json_rules::TOO_LARGE,
    &json_rules::DUPLICATE_KEY,
    &REQUIRED_FIELD,
    &FIELD_TYPE,
    &VALUE_RANGE,
    &ENUM_VALUE,
    &TIMESTAMP,
    &TIMESTAMP_OFFSET,
    &UNKNOWN_FIELD,
    &ORDER_KEY_FORMAT,
    &CHANGE_KEY_FORMAT,
    &RENAMED_FIELD,
    &KIND_UNDETECTED,
    &KIND_AMBIGUOUS,
    &PATH_UNKNOWN,
    &PATH_KIND_MISMATCH,
    &UPDATE_UNKNOWN_EVENT,
    &UPDATE_FIELD_MISSING_FOR_EVENT,
    &UPDATE_FIELD_NOT_FOR_EVENT,
    &UPDATE_UNKNOWN_EXPECTED_NEXT,
    &UPDATE_DRIVER_PHONE,
    &UPDATE_DRIVER_PHONE_SHAPE,
    &UPDATE_REMOTE_ORDER_ID_PATH,
    &UPDATE_STATUS_FIELD_REMOVED,
    &UPDATE_OLD_ROUTE,
    &CHANGE_KEY_PATH,
    &CHANGE_STATUS_RESULTS,
    &CHANGE_COMPLETED_BEFORE_SUBMITTED,
    &CHANGE_ERROR_FIELDS_ON_APPLIED,
    &CHANGE_ERROR_FIELDS_MISSING,
    &CHANGE_UNKNOWN_TARGET_ENTITY,
    &CHANGE_COMPLETED_AT_STATUS,
    &CHANGE_APPLIED_AT_FAILED,
    &CHANGE_APPLIED_WITH_FAILURES,
    &WRITE_ANSWER_CHANGE_ID,
    &ANSWER_STATUS,
    &ANSWER_PREPARING_AT,
    &ANSWER_REASON,
    &ORDER_CURRENCY,
    &ORDER_EXPIRES_AT_NULL,
    &ORDER_FULFILLMENT_TIME_MISSING,
    &ORDER_FULFILLMENT_TIME_UNEXPECTED,
    &ORDER_CUSTOMER_ON_DELIVERY,
    &ORDER_STORE_REMOTE_ID_PATH,
    &ORDER_READ_STATUS,
    &POS_ANSWER_REMOTE_ORDER_ID,
    &MERCHANT_ERROR_SHAPE,
    &LIST_HAS_MORE_CURSOR,
    &LIST_PAGE_SIZE,
    &LIST_ACCEPTED_AT_STATUS,
    &LIST_ACCEPTED_OBSERVED,
    &MENU_OVERRIDE_FIELD_FOR_TYPE,
    &MENU_EMPTY_OVERRIDES,
    &MENU_OVERRIDE_DRIVES_STATE,
    &MENU_GROUP_MIN_MAX,
    &MENU_IMAGE_URL,
    &CAPABILITIES_UNKNOWN_VALUE,
    &CAPABILITIES_DUPLICATE,
    &REQ_UNKNOWN_ENDPOINT,
    &REQ_PATH_CASING,
    &REQ_METHOD,
    &REQ_PATH_ID_FORMAT,
    &REQ_API_KEY,
    &REQ_SCHEMA_VERSION,
    &REQ_IDEMPOTENCY_KEY_MISSING,
    &REQ_IDEMPOTENCY_KEY_FORMAT,
    &REQ_CONTENT_TYPE,
    &REQ_IDEMPOTENCY_KEY_ON_READ,
    &REQ_BODY_MISSING,
    &REQ_ACCEPT_BODY_MISSING,
    &REQ_BODY_IGNORED,
    &REQ_UNKNOWN_QUERY,
    &REQ_PAGE_SIZE,
    &REQ_PAGE_SIZE_VALUE,
    &ACCEPT_REMOTE_ORDER_ID,
    &REJECT_REASON_CODE_NORMALIZED,
    &STATUS_CANCELLED,
    &STATUS_PREPARING_CONFLICT,
    &STATUS_OCCURRED_AT_CLAMPED,
    &WRITE_NOT_SHIPPED,
    &WRITE_PENDING_ROLLOUT,
    &WRITE_STORES_SCOPE,
    &WRITE_EMPTY_STORES,
    &WRITE_BRAND_ONLY,
    &WRITE_CATEGORY_CODE_REQUIRED,
    &WRITE_EMPTY_SET,
    &WRITE_SCHEDULE,
    &WRITE_NO_CHANNEL,
    &WRITE_LOCAL_PRODUCT_SET,
    &LOCAL_PRODUCT_TAX,
    &LOCAL_PRODUCT_AVAILABLE_IGNORED,
    &LOCAL_PRODUCT_POSITION,
    &LOCAL_PRODUCT_CODE_FORMAT,
    &PREVIEW_WARNING,
    &PROBLEM_NOT_JSON,
    &PROBLEM_MISSING_MEMBER,
    &PROBLEM_STATUS_MISMATCH,
    &PROBLEM_UNKNOWN_TYPE,
    &PROBLEM_META_SHAPE,
    &PROBLEM_READ_STATUS,
    &PROBLEM_RETRY_AFTER,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let mut seen = std::collections::BTreeSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate rule id {}", r.id);
            assert!(r.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'/'), "{}", r.id);
            assert!(r.id.contains('/'), "{}", r.id);
            assert!(r.doc.ends_with('.') || r.doc.ends_with(')'), "{}", r.id);
        }
    }
}
