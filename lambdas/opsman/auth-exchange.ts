/**
 * One attempt of a request, Digest authentication included: sign with the cached nonce when there is one (nc+1),
 * otherwise send without credentials; answer a 401 challenge once; on `stale=true` or a refused cached nonce
 * re-authenticate transparently; refuse to loop on wrong credentials (OpsManagerAuthError after one answered challenge).
 * While one request fetches an origin's first challenge, the others wait for its nonce instead of fetching their own. A
 * `nextnonce` in `Authentication-Info` (RFC 7616 section 3.5) becomes the nonce of the next requests.
 */
import type { Dispatcher } from 'undici';
import { readBodyWithin } from './body-limit.ts';
import type { CredentialVerdict } from './credential-verdict.ts';
import {
  buildDigestAuthorization,
  DigestError,
  type NonceCache,
  parseAuthenticationInfo,
  selectDigestChallenge,
} from './digest/index.ts';
import { parseErrorBody } from './error-body.ts';
import { OpsManagerAuthError, OpsManagerResponseTooLargeError } from './errors.ts';
import { classifyTransportError } from './retry-policy.ts';
import { sanitizeCause, scrub } from './sanitize.ts';

/**
 * How many `stale=true` challenges in a row one attempt answers. Each one says the credentials were right and only the
 * nonce aged (a server rotating nonces fast, or one restarted); a bound keeps a broken server from looping us.
 */
export const MAX_STALE_CHALLENGES = 3;

/** HTTP methods the client sends. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One logical request. */
export interface HttpRequest {
  method: HttpMethod;
  /** For errors and the observer: `/groups/{groupId}/alertConfigs`. */
  pathTemplate: string;
  url: URL;
  /** JSON text: a string, so every replay (challenge, retry) sends the same bytes. */
  body?: string;
  /** False for the unauthenticated endpoints: no credentials unless the server challenges anyway. */
  auth: boolean;
  /** Secret values of this request (private key, secret body fields) to scrub from anything the server says. */
  secrets: readonly string[];
  /** The caller's stop: once aborted, the request ends at once wherever it is (OpsManagerAbortedError). */
  signal?: AbortSignal;
  /**
   * A softer stop: once aborted, the request ends (OpsManagerAbortedError) only where it waits, for a slot, for another
   * request's first challenge or out a backoff before a retry; an attempt already on the wire still gets its answer.
   * What an apply's writes use: a write sent is never cut (a POST cut in flight is an ambiguous create), a write not
   * sent yet is never sent.
   */
  stopWaiting?: AbortSignal;
  /**
   * When the request must have ended, whatever it is doing (a Lambda run that must still save its state): no attempt
   * or retry starts at or past `at`, an attempt in flight is cut then, and the request ends with OpsManagerAbortedError
   * (`reason` in its message), or AmbiguousWriteError for a POST cut on the wire.
   */
  endBy?: RequestEndBy;
}

/** A time a request must have ended by, in the client clock's epoch milliseconds, and why (for messages). */
export interface RequestEndBy {
  at: number;
  reason: string;
}

/** A response with its body read. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A transport failure of one attempt; `credentialsSent` tells whether the server could have acted on it. */
export class SendFailure extends Error {
  override name = 'SendFailure';
  constructor(
    readonly error: unknown,
    readonly credentialsSent: boolean,
  ) {
    super('send failed');
  }
}

/**
 * The attempt was stopped by its request's `stopWaiting` while it waited for another request's challenge: nothing of
 * it was sent, and nothing will be.
 */
export class StoppedBeforeSend extends Error {
  override name = 'StoppedBeforeSend';
  constructor() {
    super('stopped before anything was sent');
  }
}

/** What an attempt needs from its client. */
export interface ExchangeContext {
  dispatcher: Dispatcher;
  nonces: NonceCache;
  /** Whether Ops Manager accepted these credentials yet; condemned ones are not sent again. */
  verdict: CredentialVerdict;
  username: string;
  password: string;
  /** The settings that give the key (`settingNames.apiKey`), named when Ops Manager refuses it. */
  apiKeySetting: string;
  userAgent: string;
  /** Largest response body read (`maxResponseBytes`); a larger one is cut off, its connection closed. */
  maxResponseBytes: number;
  signal: AbortSignal;
  /**
   * The request's softer stop (HttpRequest.stopWaiting): it ends the wait for another request's challenge, a wait
   * before anything is sent (StoppedBeforeSend), never a request on the wire.
   */
  stopWaiting?: AbortSignal;
  /** Called on every HTTP response, a challenge included, as soon as its headers arrive: Ops Manager is answering. */
  onAnswer?: () => void;
  /**
   * Called for each HTTP request of the exchange that reached the wire (a challenge round trip is one more): answered,
   * or failed after connecting. A request that never connected (refused, no route, no such host) is not one.
   */
  onSend?: () => void;
}

async function send(ctx: ExchangeContext, request: HttpRequest, authorization: string | null): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': ctx.userAgent };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (authorization !== null) headers.authorization = authorization;
  try {
    const response = await ctx.dispatcher.request({
      origin: request.url.origin,
      path: request.url.pathname + request.url.search,
      method: request.method,
      headers,
      body: request.body ?? null,
      signal: ctx.signal,
    });
    ctx.onSend?.();
    ctx.onAnswer?.();
    const context = { method: request.method, pathTemplate: request.pathTemplate };
    const text = await readBodyWithin(response, ctx.maxResponseBytes, context);
    return { status: response.statusCode, headers: response.headers, text };
  } catch (error) {
    // An answer, not a transport fault: it must reach the executor as it is, which does not retry it.
    if (error instanceof OpsManagerResponseTooLargeError) throw error;
    // Told after the fact: only the failure says whether the request left (a refused connect wrote nothing).
    if (classifyTransportError(error) !== 'not-sent') ctx.onSend?.();
    throw new SendFailure(error, authorization !== null);
  }
}

function authError(request: HttpRequest, response: HttpResponse, why: string, cause?: unknown): OpsManagerAuthError {
  const body = parseErrorBody(response.text, response.status, request.secrets);
  const detail = scrub(body.detail, request.secrets);
  const context = { method: request.method, pathTemplate: request.pathTemplate };
  const message = `${request.method} ${request.pathTemplate}: ${scrub(why, request.secrets)} (${response.status} ${body.errorCode}${detail === '' ? '' : `: ${detail}`})`;
  const options = cause === undefined ? undefined : { cause: sanitizeCause(cause, request.secrets) };
  return new OpsManagerAuthError(response.status, body.errorCode, message, context, options);
}

/** The `nextnonce` of an `Authentication-Info` header (RFC 7616 section 3.5), if it names one and parses. */
function nextNonceOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(', ') : header;
  return parseAuthenticationInfo(value)?.get('nextnonce');
}

/** Records a refusal of the credentials on the client's verdict and returns the error to throw. */
function refused(ctx: ExchangeContext, error: OpsManagerAuthError): OpsManagerAuthError {
  ctx.verdict.refuse(error);
  return error;
}

/**
 * Waits for another request's challenge, but never past this attempt's own deadline, nor past its `stopWaiting`: an
 * apply's write stopped while it waits here has sent nothing, so it is not sent at all.
 */
async function waitUnlessAborted(
  pending: Promise<void>,
  signal: AbortSignal,
  stopWaiting?: AbortSignal,
): Promise<void> {
  if (signal.aborted) throw new SendFailure(signal.reason, false);
  if (stopWaiting?.aborted) throw new StoppedBeforeSend();
  let onAbort = (): void => undefined;
  let onStopWaiting = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new SendFailure(signal.reason, false));
    onStopWaiting = () => reject(new StoppedBeforeSend());
    signal.addEventListener('abort', onAbort, { once: true });
    stopWaiting?.addEventListener('abort', onStopWaiting, { once: true });
  });
  try {
    await Promise.race([pending, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    stopWaiting?.removeEventListener('abort', onStopWaiting);
  }
  // The challenge came as the stop did: still nothing sent.
  if (stopWaiting?.aborted) throw new StoppedBeforeSend();
}

/**
 * Performs one attempt; throws SendFailure (transport), OpsManagerAuthError (credentials refused, bad challenge) or
 * OpsManagerResponseTooLargeError (a body over `maxResponseBytes`).
 */
export async function exchange(ctx: ExchangeContext, request: HttpRequest): Promise<HttpResponse> {
  const origin = request.url.origin;
  if (request.auth) ctx.verdict.check(request);
  let use = request.auth ? ctx.nonces.next(origin) : null;
  let priming = false;
  if (request.auth && use === null) {
    const claim = ctx.nonces.beginPriming(origin);
    if (claim === true) priming = true;
    else {
      await waitUnlessAborted(claim, ctx.signal, ctx.stopWaiting);
      use = ctx.nonces.next(origin);
    }
  }
  try {
    return await answerChallenges(ctx, request, use);
  } finally {
    if (priming) ctx.nonces.endPriming(origin);
  }
}

async function answerChallenges(
  ctx: ExchangeContext,
  request: HttpRequest,
  first: ReturnType<NonceCache['next']>,
): Promise<HttpResponse> {
  const origin = request.url.origin;
  const uri = request.url.pathname + request.url.search;
  let use = first;
  let sent: 'none' | 'cached' | 'fresh' = use === null ? 'none' : 'cached';
  let staleAnswered = 0;
  // A refused key is fixed where it is set: name that setting (wrong key, wrong private key, or a deleted key).
  const check = `; check ${ctx.apiKeySetting}`;
  for (;;) {
    const authorization =
      use === null
        ? null
        : buildDigestAuthorization({
            challenge: use.challenge,
            username: ctx.username,
            password: ctx.password,
            method: request.method,
            uri,
            nc: use.nc,
            cnonce: use.cnonce,
          });
    const response = await send(ctx, request, authorization);
    if (response.status !== 401) {
      if (use !== null) {
        ctx.verdict.accept();
        if (sent === 'fresh') ctx.nonces.store(origin, use);
        const next = nextNonceOf(response.headers['authentication-info']);
        if (next !== undefined) ctx.nonces.renew(origin, use.challenge.nonce, next);
      }
      return response;
    }
    if (use !== null && response.headers['www-authenticate'] === undefined) {
      // A signed request refused without a new challenge: Ops Manager knew the key and refused what it may do
      // (USER_UNAUTHORIZED, NOT_IN_GROUP). The key and the nonce are good; only this request fails.
      ctx.verdict.accept();
      if (sent === 'fresh') ctx.nonces.store(origin, use);
      throw authError(request, response, 'Ops Manager refused the request for this API key (its roles or access)');
    }
    if (use !== null && sent === 'cached') ctx.nonces.invalidate(origin, use.challenge.nonce);
    let challenge: ReturnType<typeof selectDigestChallenge>;
    try {
      challenge = selectDigestChallenge(response.headers['www-authenticate']);
    } catch (error) {
      if (!(error instanceof DigestError)) throw error;
      if (sent !== 'none')
        throw refused(ctx, authError(request, response, `Ops Manager refused the credentials${check}`));
      throw authError(request, response, `cannot answer the authentication challenge: ${error.message}`, error);
    }
    if (sent === 'fresh') {
      // A fresh nonce may legitimately expire between the challenge and its answer: stale=true means the digest was
      // right. Answer that a few times, never forever; anything else after a fresh answer is a refusal.
      if (!challenge.stale) {
        throw refused(
          ctx,
          authError(request, response, `Ops Manager refused the credentials after one Digest challenge${check}`),
        );
      }
      if (staleAnswered >= MAX_STALE_CHALLENGES) {
        throw authError(request, response, `the nonce went stale ${staleAnswered + 1} times in a row`);
      }
      staleAnswered += 1;
    }
    use = ctx.nonces.firstUse(challenge);
    sent = 'fresh';
  }
}
