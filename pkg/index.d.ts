// Types of the poscheck package (Node build and browser build expose the same API).

// Result types, generated from the Rust types (scripts/gen-types.mjs, ts-rs): they cannot drift
// from what the functions return.
import type { Answer, Basis, Change, Classification, CliOutput, Counts, Diagnostic, DiffEntry, DiffSummary, Entity, EventOutcome, FieldChange, Grounds, Inspection, JsonValue, Machine, MachineCondition, MachineRow, MachineState, MachineTrigger, MachineUnknown, MatchBasis, MenuDiff, NextAction, NextActions, OrderPrediction, PayloadKind, PendingChange, PredictionBasis, Related, RefusedWrite, Report, RequestPrediction, RowKind, Rule, RuleInfo, Severity, Side, Span, TriggerKind, TriggerOutcome, Truncation, VerifiedWebhook, WebhookDiagnosis, WebhookFinding, WriteStatus, WriteValue } from './types.js';
export type { Answer, Basis, Change, Classification, CliOutput, Counts, Diagnostic, DiffEntry, DiffSummary, Entity, EventOutcome, FieldChange, Grounds, Inspection, JsonValue, Machine, MachineCondition, MachineRow, MachineState, MachineTrigger, MachineUnknown, MatchBasis, MenuDiff, NextAction, NextActions, OrderPrediction, PayloadKind, PendingChange, PredictionBasis, Related, RefusedWrite, Report, RequestPrediction, RowKind, Rule, RuleInfo, Severity, Side, Span, TriggerKind, TriggerOutcome, Truncation, VerifiedWebhook, WebhookDiagnosis, WebhookFinding, WriteValue } from './types.js';
/** Earlier names of generated types, kept for existing code. */
export type RelatedLocation = Related;
export type ActionPrediction = OrderPrediction;
export type DiffCounts = Counts;
export type ProblemClassification = Classification;

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


/** Verifies a webhook or throws `WebhookVerificationError`. */
export function verifyWebhook(input: WebhookInput): VerifiedWebhook;



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
  /** The body bytes exactly as they follow the blank line (a chunked body decoded; trailing
   *  whitespace past Content-Length dropped). */
  body: Uint8Array;
  /** How the paste was read when it was not a plain HTTP/1.1 message (curl -v prefixes, HTTP/2
   *  pseudo-headers, tab-separated headers, a missing blank line, a body alone, chunked coding),
   *  and a Content-Length that disagrees with the body: one sentence each. */
  notes: string[];
}

/** Splits a pasted raw HTTP request or response; throws PoscheckError (`MALFORMED_START_LINE`, `MALFORMED_HEADER`). */
export function parseHttpMessage(input: string | Uint8Array): HttpMessage;

// ---- reports (one shape for every checker) ------------------------------------------------------










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
export type OrderAction = 'accept' | 'reject' | WriteStatus | 'cancelled' | (string & {});

export interface Problem {
  /** `{problem_base}/<suffix>`: discriminate on the suffix. */
  type: string;
  title: string;
  status: number;
  detail: string;
  meta: { currentStatus: string; allowedTransitions: string[] } | { errors: Record<string, string[]> } | null;
  [key: string]: unknown;
}


export function checkOrder(input: string | Uint8Array, options?: CheckOptions): Report;
/**
 * What the service would answer to `action` on `order` at `now` (unix seconds, default: the clock).
 * `body` is the request body the POS sends (`{}` for accept, `{ reasonCode, message }` for reject,
 * `{ status, occurredAt }` for PUT status; a plain value is sent as JSON): a broken body is
 * answered 422, and an unknown reasonCode is normalized to SYSTEM_ISSUE in `response.reason`.
 * reasonCode is required on reject: a reject without a body (or without reasonCode) is answered
 * 422 with `problem.meta.errors.reasonCode`; pass the body to predict a reject.
 */
export function predictAction(order: OrderInput, action: OrderAction, now?: number, body?: unknown): ActionPrediction;
/** Applies an update webhook body (OrderUpdateEvent); the receiver always answers 200. */
export function applyEvent(order: OrderInput, event: Record<string, unknown> | string | Uint8Array): EventOutcome;
/** Applies something the service or a driver does: `auto_accept`, `driver_marks_ready`, `refund_or_incident`, `cancellation_by_service`, `delivery_confirmed`. */
export function applyTrigger(order: OrderInput, trigger: string, now?: number): TriggerOutcome;
/** What the POS may do now, with the seconds left to accept. */
export function nextActions(order: OrderInput, now?: number): NextActions;
/** The statuses an order went through (for highlighting the diagram). */
export function orderHistoryPath(order: OrderInput): string[];
/** The transition table as data (states, vocabularies, rows, unknowns). */
export function orderMachine(): Machine;
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





/** `next` (a full submission) against `current` (GET /api/v1/menu/stores/{storeRemoteId}, its data or the whole response). */
export function diffMenu(current: string | Uint8Array, next: string | Uint8Array, options?: DiffOptions): MenuDiff;
export function diffRules(): RuleInfo[];

// ---- payloads, requests, problems ----------------------------------------------------------------


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


/** Predicts the service's answer to a REST request before it is sent. */
export function validateRequest(input: RequestInput): RequestPrediction;

export interface ProblemInput {
  status: number;
  headers?: HeadersInput;
  body?: RawBody | Record<string, unknown>;
  /** Unix seconds, to turn a Retry-After HTTP date into seconds; default: the clock. */
  now?: number;
}


/**
 * Turns an RFC 7807 problem from the service into advice. `report` holds what breaks the contract
 * in the problem itself, e.g. a transition 409 whose `meta.currentStatus` or `allowedTransitions`
 * is not PascalCase in the read vocabulary (`problem/read-status`: `handed_over` for `HandedOver`).
 */
export function classifyProblem(input: ProblemInput): ProblemClassification;


/** Detects what was pasted (a payload, a raw HTTP request, a response) and checks it. */
export function inspectInput(input: string | Uint8Array, options?: PayloadOptions & { now?: number }): Inspection;

// ---- webhook receiver (createReceiver) ----------------------------------------------------------

/** The three routes the service calls on the POS. */
export type ReceiverRoute = 'orderCreated' | 'orderUpdate' | 'menuChangeCompleted';

/** The delivery metadata, from the verified request. */
export interface DeliveryMeta {
  /** X-Service-Delivery-Id (null when absent: such a delivery is never deduplicated). */
  id: string | null;
  /** X-Service-Timestamp, unix seconds. */
  timestamp: number;
  /** X-Service-Event-Type (`order.created` on the creation webhook), when sent. */
  eventType: string | null;
  /** Which secret matched (rotation). */
  secretIndex: number;
}

/** What a verified delivery carries, for a handler (WebhookContext) or for onInvalid (InvalidDelivery). */
export interface DeliveryInfo {
  route: ReceiverRoute;
  /** The merchant's store code (both order routes). */
  remoteId?: string;
  /** Update route: the path's remoteOrderId, authoritative over the body's. */
  remoteOrderId?: string;
  /** Menu change route: the path's changeKey (equal to the body's). */
  changeKey?: string;
  delivery: DeliveryMeta;
  headers: Record<string, string | string[] | undefined> | Headers;
  /** The exact bytes that were verified. */
  rawBody: Uint8Array;
  /** Aborted, with a reason saying so, when the time limit (timeoutMs) passes; made on first read. */
  signal: AbortSignal;
}

/** What every handler receives: the payload, validated by the core and parsed once after verification. */
export interface WebhookContext<P = any> extends DeliveryInfo {
  payload: P;
  /** The core's report on the payload (ok; warnings and infos may be present). */
  report: Report;
}

/** A delivery answered without its handler: an unknown update `event`, or a payload that breaks the contract. */
export interface InvalidDelivery extends DeliveryInfo {
  reason: 'unknown-event' | 'invalid-payload';
  /** The core's report on the payload, with what breaks the contract. */
  report: Report;
  /** What the receiver answers: 200 on the update and menu routes, 422 on the creation route. */
  answer: ReceiverAnswer;
}

/** An answer decided by the core, with what it rests on. */
export interface ReceiverAnswer {
  status: number;
  /** `OK`, a WebhookErrorCode (401), `NOT_FOUND`, `METHOD_NOT_ALLOWED`, `PAYLOAD_TOO_LARGE`, `INVALID_PAYLOAD`,
   *  `NO_REMOTE_ORDER_ID`, `HANDLER_FAILED`, `HANDLER_TIMEOUT`, `STORE_UNAVAILABLE`, `DELIVERY_IN_PROGRESS`,
   *  `DELIVERY_ID_CONFLICTING`, `BODY_UNAVAILABLE`, `NO_HANDLER`. */
  code: string;
  /** JSON text. */
  body: string;
  headers: Array<[string, string]>;
  /** Whether the service is meant to deliver again (every answer but a 200). */
  retry: boolean;
  basis: 'stated' | 'derived' | 'assumed';
  restsOn: string;
}

/** What the error hook is told besides the error. */
export interface ReceiverErrorInfo {
  /** `HANDLER_FAILED`, `HANDLER_TIMEOUT`, `NO_REMOTE_ORDER_ID`, `STORE_UNAVAILABLE`, `STORE_COMPLETE_FAILED`,
   *  `STORE_RELEASE_FAILED`, `CLAIM_LOST`, `BODY_UNAVAILABLE`, `ON_INVALID_FAILED`, `RECEIVER_FAILED`, … */
  code: string;
  route?: ReceiverRoute;
  deliveryId?: string | null;
}

/** A stored first answer, replayed to the retries of a delivery. */
export interface StoredAnswer {
  status: number;
  code: string;
  body: string;
}

export type ClaimResult = { state: 'claimed' } | { state: 'pending' } | { state: 'done'; answer: StoredAnswer };

/** Where handled deliveries are remembered (keyed on X-Service-Delivery-Id). */
export interface DeliveryStore {
  /** Claims a delivery for `leaseMs`, or says it is being handled, or gives its first answer. */
  claim(deliveryId: string, options: { token: string; leaseMs: number }): Promise<ClaimResult>;
  /** Records the answer for `ttlMs`; false when another token holds a live claim. */
  complete(deliveryId: string, token: string, answer: StoredAnswer, ttlMs: number): Promise<boolean>;
  /** Drops this token's claim (a failed handler), so that the retry runs it. */
  release(deliveryId: string, token: string): Promise<void>;
}

export interface ReceiverOptions {
  /** The account's HMAC secret, or several during a rotation. */
  secret: string | readonly string[];
  /** Creates the order; returns the POS order id (a non-empty string), answered as { remoteOrderId }. */
  onOrderCreated?: (ctx: WebhookContext) => string | Promise<string>;
  /** An OrderUpdateEvent with a known `event`; `ctx.remoteOrderId` is the path's. Answered 200. */
  onOrderUpdate?: (ctx: WebhookContext) => unknown;
  /** A MenuChangeCompletedWebhook whose changeKey equals the path's. Answered 200. */
  onMenuChangeCompleted?: (ctx: WebhookContext) => unknown;
  /** Deliveries answered without their handler (unknown event, broken payload). */
  onInvalid?: (info: InvalidDelivery) => unknown;
  /** Handler failures, time-outs, store errors. Default: console.error. */
  onError?: (error: unknown, info: ReceiverErrorInfo) => void;
  /** Default: an in-memory store (one process). Use createRedisStore for several processes. */
  store?: DeliveryStore;
  /** Default 300. */
  toleranceSeconds?: number;
  /** Time limit of a handler in ms; default 25,000 (the service waits 30 s). */
  timeoutMs?: number;
  /** Largest body read, in bytes; default 1 MiB (1,048,576). Larger: 413 without buffering the rest. */
  maxBodyBytes?: number;
  /** The path part of {pos_base_url}, e.g. `/pos` (node:http and Fetch see full paths). Default ''. */
  basePath?: string;
  /** How long answers are remembered; default 24 h. */
  dedupeTtlMs?: number;
  /** How long a claim lives if its process dies; default timeoutMs + 30 s. */
  leaseMs?: number;
  /** How long a concurrent attempt waits for the first one's answer before 409; default timeoutMs. */
  duplicateWaitMs?: number;
  /** How long recording an answer (or releasing a claim) is retried while the store is down; default 10 s. */
  storeRetryMs?: number;
  /** Unix seconds (a function, or a fixed number for tests); default the clock. */
  now?: number | (() => number);
}

/** A request for the framework-free `handle()`. */
export interface ReceiverRequest {
  method: string;
  /** The request target as received: path and query, percent-encoded. */
  url: string;
  headers: HeadersInput;
  /** The raw bytes; a parsed object is refused (PAYLOAD_NOT_RAW). */
  body?: RawBody | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
}

export interface ReceiverResponse {
  status: number;
  code: string;
  headers: Record<string, string>;
  body: string;
  /** False for a path that is none of the three routes (404). */
  matched: boolean;
  /** True when the answer is the stored first answer of this delivery. */
  replayed: boolean;
}

type NodeNext = (err?: unknown) => void;

/** The receiver is itself the framework-free handler (`await receiver(request)`), with its adapters. */
export interface Receiver {
  (request: ReceiverRequest): Promise<ReceiverResponse>;
  /** Framework-free: one request in, one answer out (the same as calling the receiver). */
  handle(request: ReceiverRequest): Promise<ReceiverResponse>;
  /**
   * node:http: `http.createServer(receiver.node)`; with `next`, unknown paths go on. `req` and `res`
   * are Node's IncomingMessage and ServerResponse (typed loosely: no dependency on @types/node).
   */
  node(req: any, res: any, next?: NodeNext): Promise<void>;
  /** Express 4 and 5: `app.use(receiver.express())`, before any body parser. */
  express(): (req: any, res: any, next: NodeNext) => Promise<void>;
  express(req: any, res: any, next: NodeNext): Promise<void>;
  /** Fetch API: Hono, Next.js route handlers, Workers, Deno, Bun. */
  fetch(request: Request): Promise<Response>;
  /** Fastify 5 plugin (encapsulated raw content-type parser): `app.register(receiver.fastify, { prefix })`. */
  fastify(instance: any, options?: unknown): Promise<void>;
  readonly store: DeliveryStore;
}

/** The whole webhook receiver: routes, verification, validation, exactly-once handling, answers. */
export function createReceiver(options: ReceiverOptions): Receiver;

/** The in-memory store: bounded (oldest answers first), entries expire on their own. */
export function createMemoryStore(options?: { maxEntries?: number; clock?: () => number }): DeliveryStore & { readonly size: number };

/**
 * A Redis store for several processes: a `redis` (createClient) or `ioredis` client. A claim is one
 * `SET NX PX`, recording and releasing atomic Lua steps; the claims and records of one turn of the
 * event loop go as one command (`batch: false` turns that off; an ioredis Cluster never batches).
 */
export function createRedisStore(client: unknown, options?: { prefix?: string; timeoutMs?: number; batch?: boolean }): DeliveryStore;
