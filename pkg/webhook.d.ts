// poscheck/webhook: the webhook functions, the receiver kit and the validation of the webhook
// payloads, from a smaller WebAssembly module built without the other checkers, at full speed
// (the declarations are the toolkit's, re-exported, validatePayload's narrowed to its kinds).
import type { CheckOptions, PayloadKind, Report } from './index.js';
export { default, init, verifyWebhook, diagnoseWebhook, signWebhook, webhookErrorCodes, webhookFindingCodes, parseHttpMessage, createReceiver, createMemoryStore, createRedisStore, PoscheckError, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS } from './index.js';
export type { CheckOptions, HttpMessage, RawBody, HeadersInput, WebhookErrorCode, WebhookInput, SignInput, SignedHeaders, VerifiedWebhook, WebhookDiagnosis, WebhookFinding, Report, Diagnostic, ReceiverRoute, DeliveryMeta, DeliveryInfo, WebhookContext, InvalidDelivery, ReceiverAnswer, ReceiverErrorInfo, StoredAnswer, ClaimResult, DeliveryStore, ReceiverOptions, ReceiverRequest, ReceiverResponse, Receiver } from './index.js';

/** The payloads the service sends the POS by webhook: what this entry's validatePayload checks. */
export type WebhookPayloadKind = Extract<PayloadKind, 'orderUpdateEvent' | 'menuChangeCompleted' | 'orderCreated'>;

export interface WebhookPayloadOptions extends CheckOptions {
  /** The kind to check; detected from `path`, then from the shape, when absent (another kind of payload is reported as not checked here). */
  kind?: WebhookPayloadKind;
  /** The request path the payload came with, e.g. `/v1/order/STORE-1/R-1001/events` (its remoteOrderId is authoritative). */
  path?: string;
}

/**
 * Validates a webhook payload as the toolkit's validatePayload does (the same report for these
 * kinds); `report.kind` says which kind it was checked as. Any other `kind` throws a PoscheckError
 * (INVALID_ARGUMENT): import `poscheck` to check every kind.
 */
export function validatePayload(input: string | Uint8Array, options?: WebhookPayloadOptions): Report;
/** The kinds validatePayload checks here: orderUpdateEvent, menuChangeCompleted, orderCreated. */
export function payloadKinds(): WebhookPayloadKind[];
