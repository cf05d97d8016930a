// Types of the poscheck package (Node build and browser build expose the same API).

/** Loads the WebAssembly module. Browser build: required once before any call. Node: resolves at once. */
export default function init(input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;
export function init(input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;

/** A raw body: the exact bytes as received. */
export type RawBody = string | Uint8Array | ArrayBuffer | ArrayBufferView;
/** Node's `req.headers`, a Fetch `Headers`, a `Map`, or `[name, value]` pairs. Names are case-insensitive. */
export type HeadersInput =
  | Record<string, string | string[] | undefined>
  | Headers
  | Map<string, string>
  | ReadonlyArray<readonly [string, string]>;

/** Base class of every error thrown by this package. */
export class PoscheckError extends Error {
  readonly name: string;
  /** Stable code, e.g. `INVALID_ARGUMENT`, `NOT_INITIALIZED`, `MALFORMED_HEADER`. */
  readonly code: string;
}

export type WebhookErrorCode =
  | 'MISSING_TIMESTAMP'
  | 'MISSING_SIGNATURE'
  | 'MALFORMED_TIMESTAMP'
  | 'MALFORMED_SIGNATURE'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_IN_FUTURE'
  | 'SIGNATURE_MISMATCH'
  | 'INVALID_SECRET'
  | 'PAYLOAD_NOT_RAW';

/** A webhook that must be rejected. Answer with `httpStatus` (401). The message never contains the secret. */
export class WebhookVerificationError extends PoscheckError {
  readonly name: 'WebhookVerificationError';
  readonly code: WebhookErrorCode;
  readonly httpStatus: 401;
}

/** The replay window of the spec: 300 seconds. */
export const DEFAULT_TOLERANCE_SECONDS: 300;

export interface WebhookInput {
  /** The raw request body, never a parsed or re-serialized object. */
  body: RawBody;
  headers: HeadersInput;
  /** The account's HMAC secret, or several during a rotation. */
  secret: string | readonly string[];
  /**
   * Unix seconds; undefined or null means the current time. Milliseconds (`Date.now()`) are
   * refused with a hint (`INVALID_ARGUMENT`).
   */
  now?: number | null;
  /** Allowed |now − timestamp| in seconds, past and future alike; 0 means exact. Undefined or null: 300. */
  toleranceSeconds?: number | null;
}

export interface VerifiedWebhook {
  /** X-Service-Timestamp, unix seconds. */
  timestamp: number;
  /** X-Service-Delivery-Id: deduplicate on it (delivery is at-least-once). */
  deliveryId: string | null;
  /** X-Service-Event-Type (`order.created` on the creation webhook). */
  eventType: string | null;
  /** Index of the secret that matched. */
  secretIndex: number;
}

/** Verifies a webhook or throws `WebhookVerificationError`. */
export function verifyWebhook(input: WebhookInput): VerifiedWebhook;

export interface WebhookFinding {
  /** e.g. `BODY_RESERIALIZED`, `CLOCK_SKEW`, `SECRET_WHITESPACE`; see `webhookFindingCodes()`. */
  code: string;
  /** What happened and what to change. */
  message: string;
}

export interface WebhookDiagnosis {
  valid: boolean;
  code: WebhookErrorCode | null;
  message: string | null;
  findings: WebhookFinding[];
  /** Timestamp minus now, in seconds, when the timestamp parsed. */
  skewSeconds: number | null;
  verified: VerifiedWebhook | null;
}

/** Verifies and, on failure, names the likely cause. For the page and for logs. */
export function diagnoseWebhook(input: WebhookInput): WebhookDiagnosis;

export interface SignInput {
  body: RawBody;
  secret: string;
  /** Unix seconds; defaults to the current time. */
  timestamp?: number | string;
  deliveryId?: string;
  eventType?: string;
}

/** The headers the service would send; passable as is to `verifyWebhook` (`HeadersInput`). */
export interface SignedHeaders extends Record<string, string | undefined> {
  'X-Service-Timestamp': string;
  'X-Service-Signature-256': string;
  'X-Service-Delivery-Id'?: string;
  'X-Service-Event-Type'?: string;
}

/** The headers the service would send with `body` (to test a receiver). */
export function signWebhook(input: SignInput): SignedHeaders;

export function webhookErrorCodes(): WebhookErrorCode[];
export function webhookFindingCodes(): string[];

export interface HttpMessage {
  /** `POST` for a request, null for a response. */
  method: string | null;
  path: string | null;
  /** Status code, for a response. */
  status: number | null;
  headers: Array<[string, string]>;
  /** The body bytes exactly as they follow the blank line. */
  body: Uint8Array;
}

/** Splits a pasted raw HTTP request or response; throws PoscheckError (`MALFORMED_START_LINE`, `MALFORMED_HEADER`). */
export function parseHttpMessage(input: string | Uint8Array): HttpMessage;

// ---- reports (one shape for every checker) ------------------------------------------------------

export type Severity = 'error' | 'warning' | 'info';

export interface Span {
  /** Byte offset in the UTF-8 input. */
  start: number;
  end: number;
}

export interface RelatedLocation {
  path: string;
  pointer: string;
  line: number;
  column: number;
  span: Span;
  message: string;
}

export interface Diagnostic {
  /** Stable kebab-case rule id, e.g. `remote-code/unique-product`. */
  ruleId: string;
  severity: Severity;
  message: string;
  /** The service's field-path style: `categories[1].products[0].remoteCode`. */
  path: string;
  /** RFC 6901 JSON pointer. */
  pointer: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units (JS string indexing). */
  column: number;
  span: Span;
  related?: RelatedLocation[];
  help?: string;
}

export interface Report {
  /** What was checked, when detected (e.g. `orderUpdateEvent`). */
  kind?: string;
  /** No diagnostic of severity error. */
  ok: boolean;
  errorCount: number;
  warningCount: number;
  infoCount: number;
  diagnostics: Diagnostic[];
  /** What a 422 `meta.errors` would hold: field path → messages. */
  errors: Record<string, string[]>;
}

/** What a prediction or a rule rests on: stated by the spec, derived from stated rules, or assumed (the spec shows nothing). */
export type Basis = 'stated' | 'derived' | 'assumed';

/** A basis with its source (the spec section, the rules it follows from, or what is not shown). */
export interface Grounds {
  basis: Basis;
  source: string;
}

/** What each part of a predicted answer rests on. */
export interface PredictionBasis {
  status: Grounds;
  problemType?: Grounds;
  meta?: Grounds;
}

export interface RuleInfo {
  id: string;
  severity: Severity;
  doc: string;
  /** An `error` rule rests on `stated` or `derived` facts only. */
  basis: Basis;
  source: string;
}

/**
 * Bounds against hostile input, shared by every checker. Each must be an integer (or absent/null
 * for the default); anything else throws `PoscheckError` with code `INVALID_ARGUMENT`.
 */
export interface CheckOptions {
  /** Deepest nesting accepted (default 64; at most 1000, larger values are clamped). */
  maxDepth?: number;
  /** Largest input accepted, in bytes (default 64 MiB). */
  maxBytes?: number;
  /**
   * The report lists at most this many diagnostics (default 10000), and at most 4 MiB of text,
   * then ends with one `…/too-many-diagnostics` error that counts what was left out. Messages are
   * at most 1 KiB: a huge value is quoted by its head and tail.
   */
  maxDiagnostics?: number;
}

// ---- orders (the lifecycle as a checked state machine) -------------------------------------------

/** The `data` of GET /api/v1/Orders/{orderKey}: a plain object, a JSON string or UTF-8 bytes. */
export type OrderInput = Record<string, unknown> | string | Uint8Array;
/** `accept`, `reject`, or a PUT status value: `preparing`, `ready`, `handed_over`, `cancelled` (refused). */
export type OrderAction = 'accept' | 'reject' | 'preparing' | 'ready' | 'handed_over' | 'cancelled' | (string & {});

export interface Problem {
  /** `{problem_base}/<suffix>`: discriminate on the suffix. */
  type: string;
  title: string;
  status: number;
  detail: string;
  meta: { currentStatus: string; allowedTransitions: string[] } | { errors: Record<string, string[]> } | null;
  [key: string]: unknown;
}

export interface ActionPrediction {
  /** What the service would answer: 202, 409, 422… */
  httpStatus: number;
  /** The order status after the call (PascalCase), unchanged when refused. */
  status: string;
  /** The order with its status and timestamps as the service would set them. */
  order: Record<string, unknown>;
  /** The event published, e.g. `order.accepted_by_external_merchant.v1`. */
  event: string | null;
  problem: Problem | null;
  /** A 409 on `ready` when the order is already Ready (the one case the spec states): continue with handed_over. */
  alreadyReached: boolean;
  /** The weakest basis of `bases`. */
  basis: Basis;
  bases: PredictionBasis;
  /** What the spec does not show about this answer. */
  unknown: string[];
  advice: string;
  [key: string]: unknown;
}

export function checkOrder(input: string | Uint8Array, options?: CheckOptions): Report;
/**
 * What the service would answer to `action` on `order` at `now` (unix seconds, default: the clock).
 * `body` is the request body the POS sends (`{}` for accept, `{ reasonCode, message }` for reject,
 * `{ status, occurredAt }` for PUT status; a plain value is sent as JSON): a broken body is
 * answered 422, and an unknown reasonCode is normalized to SYSTEM_ISSUE in `response.reason`.
 */
export function predictAction(order: OrderInput, action: OrderAction, now?: number, body?: unknown): ActionPrediction;
/** Applies an update webhook body (OrderUpdateEvent); the receiver always answers 200. */
export function applyEvent(order: OrderInput, event: Record<string, unknown> | string | Uint8Array): {
  order: Record<string, unknown>;
  statusChanged: boolean;
  receiverHttpStatus: 200;
  ignored: boolean;
  /** False when the body cannot be acted on (no `event`, a missing field…): still answered 200; `problem` says why. */
  valid: boolean;
  problem: string | null;
  basis: Basis;
  grounds: Grounds;
  note: string;
  [key: string]: unknown;
};
/** Applies something the service or a driver does: `auto_accept`, `driver_marks_ready`, `refund_or_incident`, `cancellation_by_service`, `delivery_confirmed`. */
export function applyTrigger(order: OrderInput, trigger: string, now?: number): Record<string, unknown>;
/** What the POS may do now, with the seconds left to accept. */
export function nextActions(order: OrderInput, now?: number): Record<string, unknown>;
/** The statuses an order went through (for highlighting the diagram). */
export function orderHistoryPath(order: OrderInput): string[];
/** The transition table as data (states, vocabularies, rows, unknowns). */
export function orderMachine(): Record<string, unknown>;
/** The state diagram as SVG, drawn from the table; `highlight` lists statuses to highlight. */
export function orderDiagram(highlight?: readonly string[]): string;
export function orderRules(): RuleInfo[];

// ---- menus (the full menu submission tree of PUT /api/v1/menu) -----------------------------------

export interface LintOptions extends CheckOptions {
  /** The lint stops after this many diagnostics (default 10000) and says so (`menu/too-many-diagnostics`). */
  maxDiagnostics?: number;
}

/** Lints a full menu before POST /api/v1/menu/preview or PUT /api/v1/menu. Bytes are the fast path. */
export function lintMenu(input: string | Uint8Array, options?: LintOptions): Report;
export function menuRules(): RuleInfo[];

// ---- menu diff (what PUT /api/v1/menu would do, before any call) ---------------------------------


export interface DiffOptions extends LintOptions {
  /** Warn above this deactivated share of the active catalog, 0 to 1. Default 0.2: an assumption (the service's threshold is not shown). */
  threshold?: number;
  /** At most this many entries are listed (default 10000); the counts stay complete and `truncated` says so. */
  maxEntries?: number;
}

export interface FieldChange {
  /** `name`, `description`, `price`, `tax`, `maxPerOrder`, `image`, `category`, `position`, `min`, `max`, `type`, `isDefault`. */
  field: string;
  /** Absent when the field is absent on that side. */
  old?: unknown;
  new?: unknown;
  basis: Basis;
  note?: string;
  /** Where the new value is in `next`. */
  line?: number;
  column?: number;
  span?: Span;
}

export interface DiffEntry {
  change: 'created' | 'updated' | 'deactivated' | 'ambiguous';
  entity: 'category' | 'product' | 'modifierGroup' | 'option';
  remoteCode?: string;
  /** The service's code, from the read. */
  code?: string;
  name?: string;
  /** `product BURGER-1` for a group, `group "Extras"` for an option. */
  parent?: string;
  /** Which input `path`, `line`, `column` and `span` refer to: `next` except for deactivated items. */
  side: 'current' | 'next';
  path: string;
  pointer: string;
  line: number;
  column: number;
  span: Span;
  changes?: FieldChange[];
  basis: Basis;
  note?: string;
}

export interface DiffCounts {
  categories: number;
  products: number;
  modifierGroups: number;
  options: number;
}

export interface MenuDiff {
  /** Both sides were read as menus and compared; otherwise the reports say why. */
  compared: boolean;
  summary: {
    created: DiffCounts;
    updated: DiffCounts;
    deactivated: DiffCounts;
    unchanged: DiffCounts;
    /** Items on either side left unclassified (a duplicated code or name). */
    ambiguous: DiffCounts;
    /** Brand-origin products in the read: the active catalog. */
    activeProducts: number;
    /** `origin: store` products: outside the master catalog; what PUT /menu does to them is not shown. */
    storeLocalProducts: number;
    deactivatedShare: number;
    threshold: number;
    aboveThreshold: boolean;
    imagesNotCompared: number;
    /** The submission has lint errors: the service would refuse it (422). */
    wouldBeRefused: boolean;
  };
  entries: DiffEntry[];
  truncated?: { shown: number; total: number };
  /** What every part of the matching rests on. */
  basis: { topic: string; rule: string; basis: Basis; source: string }[];
  /** The store menu read's validation, with the diff's diagnostics about it. */
  current: Report;
  /** The submission's lint, with the diff's diagnostics positioned in it. */
  next: Report;
}

/** `next` (a full submission) against `current` (GET /api/v1/menu/stores/{storeRemoteId}, its data or the whole response). */
export function diffMenu(current: string | Uint8Array, next: string | Uint8Array, options?: DiffOptions): MenuDiff;
export function diffRules(): RuleInfo[];

// ---- payloads, requests, problems ----------------------------------------------------------------

export type PayloadKind =
  | 'orderUpdateEvent'
  | 'menuChangeCompleted'
  | 'orderCreated'
  | 'orderCreatedResponse'
  | 'merchantErrorResponse'
  | 'envelope'
  | 'orderDetail'
  | 'orderList'
  | 'storeMenu'
  | 'menuChange'
  | 'capabilities'
  | 'menuWriteAccepted'
  | 'acceptAnswer'
  | 'rejectAnswer'
  | 'statusAnswer'
  | 'fullMenu';

export interface PayloadOptions extends CheckOptions {
  /** The kind to check; detected from `path`, then from the shape, when absent. */
  kind?: PayloadKind;
  /** The request path the payload came with, e.g. `/v1/order/STORE-1/R-1001/events` (its remoteOrderId is authoritative). */
  path?: string;
}

/** Validates a payload; `report.kind` says which kind it was checked as. */
export function validatePayload(input: string | Uint8Array, options?: PayloadOptions): Report;
export function payloadKinds(): PayloadKind[];
export function payloadRules(): RuleInfo[];

export interface RequestInput {
  method: string;
  /** `/api/v1/...`, with its query; an absolute URL is accepted. */
  path: string;
  headers?: HeadersInput;
  /** Raw text or bytes as sent, or a plain value (serialized as JSON). */
  body?: RawBody | Record<string, unknown> | unknown[];
  /** Unix seconds, for the occurredAt clamp; default: the clock. */
  now?: number;
}

export interface RequestPrediction {
  /** The HTTP status the service would answer: 202, 200, 400, 401, 404, 409, 422… */
  status: number;
  /** The RFC 7807 problem it would send (422: `meta.errors` filled the service's way). */
  problem: Problem | null;
  /** What the status, the problem type and the meta rest on (stated, derived or assumed, with the source). */
  basis: PredictionBasis;
  report: Report;
  /** The endpoint matched, e.g. `POST /api/v1/Orders/{orderKey}/accept`. */
  endpoint: string | null;
}

/** Predicts the service's answer to a REST request before it is sent. */
export function validateRequest(input: RequestInput): RequestPrediction;

export interface ProblemInput {
  status: number;
  headers?: HeadersInput;
  body?: RawBody | Record<string, unknown>;
  /** Unix seconds, to turn a Retry-After HTTP date into seconds; default: the clock. */
  now?: number;
}

export interface ProblemClassification {
  /** The type suffix (`validation`, `acceptance-timeout`, …), host ignored; else a name from the status. */
  kind: string;
  retryable: boolean;
  retryAfterSeconds: number | null;
  /** 502/503: retry with the same Idempotency-Key. */
  reuseIdempotencyKey: boolean;
  /** A 409 with empty allowedTransitions: do not retry. */
  terminal: boolean;
  /** A 409 on ready with currentStatus Ready: continue with handed_over. */
  alreadyReached: boolean;
  /** A 422's meta.errors. */
  fieldErrors: Record<string, string[]>;
  advice: string;
  report: Report;
  [key: string]: unknown;
}

/** Turns an RFC 7807 problem from the service into advice. */
export function classifyProblem(input: ProblemInput): ProblemClassification;

export type Inspection =
  | { detected: 'payload'; report: Report }
  | { detected: 'request'; method: string; path: string; prediction: RequestPrediction }
  | { detected: 'problem'; status: number; classification: ProblemClassification }
  | { detected: 'response'; status: number; report: Report };

/** Detects what was pasted (a payload, a raw HTTP request, a response) and checks it. */
export function inspectInput(input: string | Uint8Array, options?: PayloadOptions & { now?: number }): Inspection;
