/** Public surface of the Ops Manager client. */
export type { CallOptions, QueryValue } from './api-caller.ts';
export type { HttpMethod } from './auth-exchange.ts';
export { createOpsManagerClient, OpsManagerClient } from './client.ts';
export {
  type AuthChallenge,
  buildDigestAuthorization,
  computeDigestResponse,
  type DigestAlgorithm,
  type DigestChallenge,
  DigestError,
  NonceCache,
  parseAuthenticateHeader,
  selectDigestChallenge,
} from './digest/index.ts';
export {
  AmbiguousWriteError,
  appliedWriteTooLarge,
  OpsManagerAbortedError,
  OpsManagerApiError,
  OpsManagerAuthError,
  OpsManagerError,
  OpsManagerResponseError,
  OpsManagerResponseTooLargeError,
  OpsManagerTransportError,
  OpsManagerValidationError,
  type RequestContext,
} from './errors.ts';
export { normalizeServerType, SERVER_TYPE_LABELS } from './normalize.ts';
export {
  type ClientClock,
  type ClientOptions,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RETRY_OPTIONS,
  DEFAULT_STALL_AFTER_MS,
  DEFAULT_TIMEOUT_OPTIONS,
  DEFAULT_USER_AGENT,
  type ProxyOptions,
  RETRY_WAIT_NOTICE_MIN_MS,
  type RetryOptions,
  type TimeoutOptions,
} from './options.ts';
export { MAX_PAGES, nextPageUrl } from './pagination.ts';
export { ROUTES, type RouteName } from './routes.ts';
export { INSECURE_WARNING, KEEP_ALIVE_TIMEOUT_MS } from './transport.ts';
export type * from './types.ts';
