// poscheck/sandbox: a local, stateful, contract-true Merchant Order and Menu Integration Service
// for POS tests (Node only). The answers come from the service model of the Rust core, the one
// that answers the toolkit's predictions.

import type { ActorType, FulfillmentType, Status } from './types.js';

/** A status of the read vocabulary (generated from src/contract.rs). */
export type OrderStatus = Status;

export interface SandboxStore {
  remoteId: string;
  storeId: number;
  brandId: number;
  autoAccept: boolean;
}

export interface SandboxClient {
  apiKey: string;
  stores: SandboxStore[];
}

/** The onboarding config; every field is optional (the default: one client, STORE-1 and STORE-2 with autoAccept). */
export interface SandboxConfig {
  secret?: string;
  pos?: string;
  clients?: Array<{ apiKey?: string; stores: Array<{ remoteId: string; storeId?: number; brandId?: number; autoAccept?: boolean }> }>;
}

/** Faults injected on the REST side, each a share of requests (0 to 1). */
export interface SandboxFaults {
  rateLimited?: number;
  retryAfterSeconds?: number;
  badGateway?: number;
  unavailable?: number;
  slow?: number;
  slowMs?: number;
  /** Only paths starting with this prefix get faults. */
  pathPrefix?: string;
  /** Only paths starting with this prefix get the 502s and 503s (the contract gives them on menu endpoints only: '/api/v1/menu'). */
  serverErrorsPrefix?: string;
}

/** What the contract does not show: each an option with an assumed default. */
export interface SandboxAssumptions {
  /** receivedAt → expiresAt (default 300). */
  acceptanceWindowSeconds?: number;
  /** expiresAt → the timeout job cancels a Pending order (default 0). */
  timeoutJobDelaySeconds?: number;
  /** Delays of the retries after a failed attempt (default [10, 60, 180]). */
  retryScheduleSeconds?: number[];
  /** The POS's answer budget (default 30000, stated for the creation webhook). */
  answerBudgetMs?: number;
  /** Enforce the rate limits (default true; false for load tests). */
  rateLimits?: boolean;
  /** Requests a minute per API key (default 100, stated). */
  perMinute?: number;
  /** Requests an hour per API key (default 1000, stated). */
  perHour?: number;
  /** Orders held at most (default 100000). */
  maxOrders?: number;
  faults?: SandboxFaults;
  /** A menu write's 202 → its change applied and its webhook sent (default 5; not shown). */
  menuChangeDelaySeconds?: number;
  /** PUT /menu answers 409 above this share of active brand products deactivated (default 0.2, as diffMenu; not shown). */
  deactivationThreshold?: number;
  /** Image URLs containing one of these are refused with 422 before emission (default [".invalid/"]). */
  badImageUrls?: string[];
}

/** What a menu upload did (seedMenu, the data of PUT /api/v1/menu). */
export interface MenuUploadCounts {
  created: number;
  updated: number;
  deactivated: number;
  unchanged: number;
  /** Active brand products before the upload (the threshold's denominator). */
  activeProducts: number;
  deactivatedProducts: number;
}

export interface SandboxOptions extends SandboxAssumptions {
  /** The POS base URL deliveries go to (default http://127.0.0.1:3000). */
  pos?: string;
  /** The onboarding config (an object or its JSON text). */
  config?: SandboxConfig | string;
  /** 'real' (default) or 'manual' (moved only by advance()). */
  clock?: 'real' | 'manual';
  /** Ids (order keys, delivery ids, secret and key when generated) are reproducible from it. */
  seed?: number;
  /** The port (default: a free one). */
  port?: number;
  /**
   * The address (default 127.0.0.1). Beyond the loopback (e.g. 0.0.0.0) the controls are reachable
   * by the network, unauthenticated: a warning is printed.
   */
  host?: string;
  /**
   * Host names under which the controls (`/_sandbox/…`) and the console answer, beside 127.0.0.1,
   * localhost, [::1] and `host` (a list, or one comma-separated string). Others get 403. The REST
   * API under /api/v1/ answers any Host (its API key protects it).
   */
  allowedHosts?: string[] | string;
  /** A file the state is kept in across restarts. */
  state?: string;
  /** A live log: true for the console, or a function taking each line. */
  log?: boolean | ((line: string) => void);
}

export interface HistoryRow {
  fromStatus: OrderStatus | null;
  toStatus: OrderStatus;
  changedAt: string;
  actorType: ActorType;
  actorId: string | null;
  reason: string | null;
  driver: { event: string; code: string | null; fullName: string | null; previousCode?: string | null } | null;
}

/** The order detail (`data` of GET /api/v1/Orders/{orderKey}). */
export interface SandboxOrder {
  orderKey: string;
  storeId: number;
  brandId: number;
  status: OrderStatus;
  merchantStatusReason: string | null;
  remoteOrderId: string | null;
  receivedAt: string;
  acceptedAt: string | null;
  rejectedAt: string | null;
  preparingAt: string | null;
  readyAt: string | null;
  driverAssignedAt: string | null;
  handedOverAt: string | null;
  deliveredAt: string | null;
  cancelledAt: string | null;
  history: HistoryRow[];
  order: Record<string, unknown> | null;
}

export interface NewOrderOptions {
  /** The store's remoteId (default: the first store). */
  store?: string;
  type?: FulfillmentType;
  items?: Array<{ remoteCode: string; name?: string; quantity?: number; unitPrice?: number; note?: string }>;
  payment?: 'card' | 'cash' | 'bips';
  customerNote?: string;
  express?: boolean;
  /** Accepted by the service once the POS answers the creation webhook, as at an autoAccept store (default: the store's setting). */
  autoAccept?: boolean;
  /** The driver marks the order ready the moment the POS accepts it, so the POS's PUT status ready meets the 409 "already Ready" (default false). */
  readyByDriverOnAccept?: boolean;
}

/** One delivery attempt, as sent and as answered. */
export interface DeliveryAttempt {
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  redelivery: boolean;
  kind: 'orderCreated' | 'orderUpdate' | 'menuChange';
  orderKey: string | null;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Sandbox clock when the answer (or its absence) came, unix seconds. */
  at: number;
  /** The POS's status; null when it did not answer. */
  status: number | null;
  /** The POS's answer body (its first 64 KiB); absent when it did not answer. */
  answer?: string;
  /** Why no answer came (a connection error, no answer within the budget). */
  error: string | null;
  /** The latency, ms. */
  ms: number;
  ok: boolean;
  failure: string | null;
  /** When the next attempt is due (sandbox clock, unix seconds). */
  retryAt: number | null;
  effects: string[];
}

/** A REST call the POS made and the answer it got (`sb.requests()`). */
export interface RestCall {
  /** Its number in the journal, from 1, never reused (`requests({ after: seq })` reads on from it). */
  seq: number;
  /** The sandbox clock when it was answered, unix seconds. */
  at: number;
  /** The method as sent. */
  method: string;
  /** The path with its query, as sent. */
  path: string;
  /** The headers the contract reads, those sent, lower-case: x-service-api-key, x-service-schema-version, idempotency-key, content-type. */
  headers: Record<string, string>;
  /** The body as text (invalid UTF-8 replaced), at most 1 MiB. */
  body: string;
  status: number;
  /** The answer's body, at most 1 MiB. */
  answer: string;
  /** The Retry-After sent, seconds (null when none). */
  retryAfter: number | null;
  replayed: boolean;
  delayMs: number;
  /** The body or the answer was cut at 1 MiB. */
  truncated: boolean;
}

/** A REST call in the journal (`sb.journal()`). */
export interface JournalRestEntry extends RestCall {
  type: 'rest';
}

/** A delivery attempt in the journal (`sb.journal()`): as `deliveries()` lists it, and more. */
export interface JournalDeliveryEntry extends Omit<DeliveryAttempt, 'answer'> {
  /** Its number in the journal, in the same sequence as the REST calls. */
  seq: number;
  type: 'delivery';
  /** The menu change it concerns (a menu change webhook), else null. */
  changeId: string | null;
  /** The POS's answer body (its first 64 KiB); null when it did not answer. */
  answer: string | null;
  /** The body was cut at 1 MiB or the answer at 64 KiB. */
  truncated: boolean;
}

export type JournalEntry = JournalRestEntry | JournalDeliveryEntry;

/** A page of the journal (`sb.journal({ after })`, `GET /_sandbox/journal?after=SEQ`). */
export interface JournalPage {
  /** The entries numbered above `after`, oldest first: at most 1,000 (and about 4 MiB of bodies). */
  entries: JournalEntry[];
  /** The `after` of the next page. */
  next: number;
  /** Entries past this page are kept already. */
  more: boolean;
  /** The last seq written (kept or not; a reset does not change it). */
  latest: number;
}

export interface Sandbox {
  /** The bare origin, http://127.0.0.1:PORT (paths are /api/v1/…). */
  readonly url: string;
  /** The console's URL (`url` + `/`): the orders, their timelines, deliveries and REST calls, live. */
  readonly consoleUrl: string;
  /** The first client's API key. */
  readonly apiKey: string;
  readonly clients: SandboxClient[];
  /** The account's HMAC secret. */
  readonly secret: string;
  readonly stores: SandboxStore[];
  readonly pos: string;
  readonly clock: 'real' | 'manual';
  /** The assumed values in force (and the problem-type base, this sandbox's URL + /problems). */
  readonly assumptions: Required<Omit<SandboxAssumptions, 'faults'>> & { faults: SandboxFaults; problemBase: string };
  info(): Record<string, unknown>;
  /** The sandbox clock, unix seconds. */
  now(): number;
  /** Manual clock: moves it on, firing every due timer in order; resolves with now() once their deliveries settled. */
  advance(seconds: number): Promise<number>;
  createOrder(options?: NewOrderOptions): Promise<SandboxOrder>;
  assignDriver(orderKey: string, driver?: { fullName?: string; phone?: string | null; code?: string }): Promise<SandboxOrder>;
  releaseDriver(orderKey: string, options?: { reason?: string }): Promise<SandboxOrder>;
  markReadyByDriver(orderKey: string): Promise<SandboxOrder>;
  deliver(orderKey: string): Promise<SandboxOrder>;
  cancel(orderKey: string, options?: { by?: 'customer' | 'operator'; reason?: string }): Promise<SandboxOrder>;
  refund(orderKey: string, options?: { reason?: string }): Promise<SandboxOrder>;
  /** The detail without spending the POS's rate limit; null when there is none. */
  order(orderKey: string): SandboxOrder | null;
  orders(): SandboxOrder[];
  redeliver(deliveryId: string, options?: { copies?: number }): Promise<DeliveryAttempt[]>;
  /** Every delivery attempt kept (the last 10,000), oldest first. */
  deliveries(): DeliveryAttempt[];
  /** Every REST call kept (the last 10,000), oldest first; `after`: only those numbered above it. */
  requests(options?: { after?: number }): RestCall[];
  /**
   * The journal: REST calls and delivery attempts under one seq (20,000 entries and 64 MiB at
   * most, the oldest dropped first), a page from `after` on (default 0). A seq is never reused,
   * not even after reset(). Throws INVALID_ARGUMENT for an `after` that is not an integer from 0.
   */
  journal(options?: { after?: number }): JournalPage;
  /** Seeds a brand's master catalog with a full menu submission (object or JSON text), as a confirmed PUT /api/v1/menu would. */
  seedMenu(menu: unknown, options?: { brand?: number }): MenuUploadCounts;
  /** The menu state as kept: catalogs by brand id, store layers (overrides, local products), changes, failing stores. */
  menuState(): { catalogs: Record<string, unknown>; stores: Record<string, unknown>; changes: unknown[]; failing: Record<string, string> };
  /** The store menu read (the data of GET /api/v1/menu/stores/{store}), without spending the rate limit. */
  storeMenu(store: string): { categories: unknown[] };
  /** Every menu change for `store` fails with `errorCode` (default STORE_UNAVAILABLE) until `{ fail: false }`. */
  failMenuChanges(store: string, options?: { errorCode?: string; fail?: boolean }): void;
  setFaults(faults: SandboxFaults): void;
  /** Waits for every delivery under way. */
  settle(): Promise<void>;
  reset(): void;
  exportState(): string;
  close(): Promise<void>;
}

export class SandboxError extends Error {
  readonly code: 'INVALID_CONFIG' | 'INVALID_CONTROL' | 'NOT_FOUND' | 'NOT_APPLICABLE' | 'LIMIT' | 'INVALID_ARGUMENT' | 'CLOSED' | 'INTERNAL' | string;
}

/** The controls' path prefix on the sandbox's server (/_sandbox). */
export const CONTROL_PREFIX: string;

/** Starts a sandbox; resolves once it listens. */
export function createSandbox(options?: SandboxOptions): Promise<Sandbox>;

// ---- the probe: grades a running POS against the contract -----------------------------------

/** Where a check stands after a run. */
export type ProbeCheckStatus = 'passed' | 'failed' | 'inconclusive' | 'skipped';

/** A check the probe can run (`probeRules()`, `poscheck rules`). */
export interface ProbeRule {
  /** `receiver/…` (its webhook receiver) or `client/…` (its REST calls), e.g. `receiver/signature-tampered-body`. */
  id: string;
  side: 'receiver' | 'client';
  severity: 'error' | 'warning';
  /** What the POS must do. */
  doc: string;
  basis: 'stated' | 'derived' | 'assumed';
  /** The contract's sentence it rests on. */
  source: string;
}

/** One exchange of a check's evidence: what was sent, what came back (the signature and the API key shortened). */
export interface ProbeExchange {
  method: string;
  /** The webhook's URL, or the REST call's path with its query. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** null when no answer came. */
  status: number | null;
  answer: string | null;
  ms?: number;
  /** Why no answer came. */
  error?: string;
  /** Unix seconds. */
  at?: number;
  /** What the exchange is, e.g. "copy 2 of 3, fresh-order, X-Service-Delivery-Id …". */
  note?: string;
}

export interface ProbeCheck {
  id: string;
  severity: 'error' | 'warning';
  status: ProbeCheckStatus;
  message: string;
  basis: { basis: 'stated' | 'derived' | 'assumed'; source: string };
  evidence: ProbeExchange[];
}

export interface ProbeReport {
  /** No check failed (passed and inconclusive ones are fine). */
  ok: boolean;
  summary: { passed: number; failed: number; inconclusive: number; skipped: number };
  /** The POS's base URL. */
  pos: string;
  durationMs: number;
  /** Every check, in the order of probeRules(). */
  checks: ProbeCheck[];
}

/** What the POS needs to talk to the probe's sandbox (given to onReady before any scenario). */
export interface ProbeConnection {
  /** The sandbox's REST base (paths are /api/v1/…). */
  url: string;
  apiKey: string;
  /** The HMAC secret the webhooks are signed with. */
  secret: string;
  stores: string[];
  pos: string;
}

export interface ProbeOptions {
  /** The POS's base URL: webhooks go to {pos}/v1/order/{remoteId}, … and nowhere else. */
  pos: string;
  /** Store remoteIds the POS serves (default ['STORE-1']); the scenarios use the first. */
  stores?: string[];
  /** The HMAC secret the POS verifies with (default: a new one, given to onReady). */
  secret?: string;
  /** The API key the POS calls the sandbox with (default: a new one, given to onReady). */
  apiKey?: string;
  /** The sandbox's port (default 0: a free one). */
  port?: number;
  /** Reproducible ids; by default every run uses fresh delivery ids and orderKeys. */
  seed?: number;
  /** Only the receiver checks (the client checks are skipped). */
  receiverOnly?: boolean;
  /** Only these checks: ids, or 'receiver' / 'client'. */
  only?: string[];
  /** How long the client checks wait for the POS's REST calls, seconds (default 20). */
  wait?: number;
  /** The budget of receiver/answer-latency, ms (default 30000, the contract's). */
  budgetMs?: number;
  /** Shares of the POS's REST calls answered 429, 502 or 503 (502 and 503 on menu calls only, as the contract says). */
  faults?: { 429?: number; 502?: number; 503?: number };
  /** The Retry-After of an injected 429, seconds (default 1). */
  retryAfterSeconds?: number;
  /** Called (and awaited) once the sandbox listens, before any scenario: configure the POS here. */
  onReady?: (connection: ProbeConnection) => void | Promise<void>;
  /** A line for each check as it is decided. */
  onProgress?: (line: string) => void;
}

/**
 * Grades the POS at `options.pos`: runs a sandbox whose webhooks go to it, plays scripted
 * scenarios, and resolves with the report. Rejects with a SandboxError (code INVALID_ARGUMENT) on
 * bad options.
 */
export function probe(options: ProbeOptions): Promise<ProbeReport>;
/** Every check the probe can run. */
export function probeRules(): ProbeRule[];
/** The report in another form: 'text' (a terminal), 'json', 'junit' (JUnit XML), 'markdown' (a pull request). */
export function formatProbeReport(report: ProbeReport, format?: 'text' | 'json' | 'junit' | 'markdown'): string;
