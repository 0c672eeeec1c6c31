/**
 * Runs one logical request: concurrency slot, Digest exchange, retries with backoff within a deadline, error mapping,
 * stall notices, the caller's stop signal, and one observer event. Returns only 2xx responses; everything else becomes
 * a typed error.
 */
import type { Dispatcher } from 'undici';
import {
  type ExchangeContext,
  exchange,
  type HttpRequest,
  type HttpResponse,
  SendFailure,
  StoppedBeforeSend,
} from './auth-exchange.ts';
import { connectFailureText } from './connect-failure.ts';
import { CredentialVerdict } from './credential-verdict.ts';
import { deadlineCause, deadlineNote, formatSeconds, headersTimeoutText } from './deadline.ts';
import { NonceCache } from './digest/index.ts';
import { parseErrorBody } from './error-body.ts';
import {
  AmbiguousWriteError,
  OpsManagerAbortedError,
  OpsManagerApiError,
  OpsManagerAuthError,
  type OpsManagerError,
  OpsManagerResponseTooLargeError,
  OpsManagerTransportError,
  OpsManagerValidationError,
} from './errors.ts';
import { foreignAnswer, foreignDetail, withUnknownPathHint } from './foreign-answer.ts';
import { ConcurrencyLimiter, SlotWaitAborted } from './limiter.ts';
import type { ResolvedClientOptions, RetryOptions } from './options.ts';
import { speaksTls } from './protocol-probe.ts';
import { sleepUnlessStopped, stopReason } from './request-stop.ts';
import {
  backoffDelay,
  classifyTransportError,
  IDEMPOTENT_METHODS,
  parseRetryAfter,
  RETRYABLE_STATUSES,
} from './retry-policy.ts';
import { sanitizeCause, scrub } from './sanitize.ts';
import { type SilenceMark, SilenceVerdict } from './silence-verdict.ts';
import { StallWatch } from './stall-watch.ts';
import { diagnoseTlsFailure, httpToTlsServer, type TlsDiagnosis } from './tls-failure.ts';
import { proxyConfigured } from './transport.ts';

/** Statuses after which a POST may have been applied: surfaced as AmbiguousWriteError, never retried. */
const AMBIGUOUS_WRITE_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** Codes of a connection the server closed (a timeout is not one: a TLS port never answers plain HTTP by silence). */
const CLOSED_CODES: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

function closedWithoutAnswer(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CLOSED_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

type Outcome =
  | { kind: 'response'; response: HttpResponse }
  | { kind: 'failure'; failure: SendFailure }
  /**
   * The caller's signal stopped the attempt (`by: 'signal'`), or the request's end time (`by: 'endBy'`:
   * HttpRequest.endBy) came; `sent`: it may have reached Ops Manager signed.
   */
  | { kind: 'stopped'; sent: boolean; by: 'signal' | 'endBy' }
  /** A retry got its slot after the deadline had passed: nothing was sent. */
  | { kind: 'expired' };

/** What one logical request keeps across its attempts. */
interface RequestState {
  attempts: number;
  status: number | null;
  /** When the first attempt got its slot: the deadline counts from here. */
  firstSentAt: number | undefined;
  /** When it last heard from Ops Manager (sent, or answered): a deadline passed in silence since condemns the origin. */
  heard: SilenceMark | undefined;
  stall: StallWatch;
  /** Attempts that reached the wire: the observer counts a request only when one did. */
  sent: number;
  /**
   * An earlier attempt of this write may have been applied (a 5xx, or a connection lost after the signed request left);
   * false after a 429, which Ops Manager refused unprocessed. Said when the request is stopped before its retry.
   */
  mayHaveApplied: boolean;
}

/** What stops a request where it waits (a slot, a backoff): either stop signal of the request. */
function waitSignal(request: HttpRequest): AbortSignal | undefined {
  const { signal, stopWaiting } = request;
  if (signal === undefined || stopWaiting === undefined) return signal ?? stopWaiting;
  return AbortSignal.any([signal, stopWaiting]);
}

/** Executes requests for one client. */
export class RequestExecutor {
  readonly #options: ResolvedClientOptions;
  #dispatcher: Dispatcher;
  readonly #limiter: ConcurrencyLimiter;
  readonly #nonces: NonceCache;
  readonly #verdict: CredentialVerdict;
  readonly #silence: SilenceVerdict;
  /** `120 s, retry.deadlineMs to change`: how messages describe the deadline. */
  readonly #deadlineNote: string;
  /** Per origin, whether it answered a TLS probe (asked at most once per client). */
  readonly #probes = new Map<string, Promise<boolean>>();
  #closed = false;

  constructor(options: ResolvedClientOptions, dispatcher: Dispatcher, nonces: NonceCache = new NonceCache()) {
    this.#options = options;
    this.#dispatcher = dispatcher;
    this.#limiter = new ConcurrencyLimiter(options.maxConcurrency);
    this.#nonces = nonces;
    const now = () => options.clock.now().getTime();
    this.#verdict = new CredentialVerdict(now);
    this.#deadlineNote = deadlineNote(options);
    this.#silence = new SilenceVerdict(now, options.retry.deadlineMs, this.#deadlineNote);
  }

  /** Requests in flight right now (for tests of the limiter). */
  get inFlight(): number {
    return this.#limiter.active;
  }

  /** Forgets the silence verdict (a new run starts on a client kept from an earlier one). */
  forgetSilence(): void {
    this.#silence.forget();
  }

  /** Sends later attempts through `dispatcher` (the client renewed its connections); attempts in flight keep theirs. */
  useDispatcher(dispatcher: Dispatcher): void {
    this.#dispatcher = dispatcher;
  }

  /** Refuses every later request (the client is closing its connections). */
  close(): void {
    this.#closed = true;
  }

  /** Runs `request` to a 2xx response, or throws an OpsManagerError subclass. */
  async execute(request: HttpRequest): Promise<HttpResponse> {
    const context = { method: request.method, pathTemplate: request.pathTemplate };
    if (this.#closed) {
      throw new OpsManagerValidationError(`${request.method} ${request.pathTemplate}: the client is closed`, context);
    }
    const { clock, stallAfterMs, retry, observer } = this.#options;
    const started = clock.now().getTime();
    const stall = new StallWatch(
      stallAfterMs,
      { ...context, path: request.url.pathname, deadlineMs: retry.deadlineMs },
      observer?.onStall === undefined ? undefined : (event) => observer.onStall?.(event),
    );
    const state: RequestState = {
      attempts: 0,
      status: null,
      firstSentAt: undefined,
      heard: undefined,
      stall,
      sent: 0,
      mayHaveApplied: false,
    };
    try {
      if (request.signal?.aborted || request.stopWaiting?.aborted) throw this.#stopped(request, false);
      return await this.#run(request, state);
    } finally {
      stall.stop();
      // A request refused unsent (Ops Manager stood silent, a key refused) or stopped in the queue made no API call.
      if (state.sent > 0) this.#report(request, state.status, state.sent, clock.now().getTime() - started);
    }
  }

  async #run(request: HttpRequest, state: RequestState): Promise<HttpResponse> {
    const { retry, clock } = this.#options;
    const context = { method: request.method, pathTemplate: request.pathTemplate };
    const secrets = [this.#options.privateKey, ...request.secrets];
    const scoped = { ...request, secrets };
    let last: OpsManagerError | undefined;
    const waits = waitSignal(request);
    for (;;) {
      state.attempts += 1;
      let outcome: Outcome;
      try {
        outcome = await this.#limiter.run(() => this.#attempt(scoped, state), waits);
      } catch (error) {
        // A retry stopped waiting for its slot: sent is whether an earlier attempt may have been applied (a 5xx to a PUT).
        if (error instanceof SlotWaitAborted)
          throw this.#stopped(request, request.method !== 'GET' && state.mayHaveApplied);
        if (error instanceof OpsManagerResponseTooLargeError) throw this.#tooLarge(request, state, error);
        // The key refused in the Digest exchange: the observer hears the answer's status (the handlers' runtime
        // counts refusals to pick up a rotated key at once: handlers/run-once.ts).
        if (error instanceof OpsManagerAuthError) state.status = error.status;
        throw error;
      }
      let error: OpsManagerError;
      /** What this attempt got, for the retry notice: a status and code, or a transport error's code. */
      let got: string;
      let retryAfterMs: number | null = null;
      let retryable: boolean;
      let hungUp = false;
      if (outcome.kind === 'stopped') {
        const sent = outcome.sent || (request.method !== 'GET' && state.mayHaveApplied);
        const stopped = outcome.by === 'endBy' ? this.#ended(request, sent) : this.#stopped(request, sent);
        if (request.method === 'POST' && outcome.sent) {
          const why = 'the run stopped after the request was sent, before Ops Manager answered';
          throw new AmbiguousWriteError(context, { cause: stopped, why });
        }
        throw stopped;
      } else if (outcome.kind === 'expired') {
        state.attempts -= 1; // nothing was sent
        throw last ?? this.#deadlineError(request, state.attempts);
      } else if (outcome.kind === 'response') {
        const { response } = outcome;
        state.status = response.status;
        if (response.status >= 200 && response.status < 300) return response;
        const body = parseErrorBody(response.text, response.status, secrets);
        got = `${response.status} ${body.errorCode}`;
        const names = this.#options.settingNames;
        const detail = body.fromOpsManager
          ? withUnknownPathHint(response.status, body.errorCode, scrub(body.detail, secrets), names)
          : foreignDetail(response.status, request.url, foreignAnswer(response, secrets), names, request.method);
        error =
          response.status === 403
            ? new OpsManagerAuthError(
                403,
                body.errorCode,
                `${request.method} ${request.pathTemplate}: Ops Manager refused the request (403 ${body.errorCode}: ${detail})`,
                context,
              )
            : new OpsManagerApiError(response.status, body.errorCode, detail, context, {
                fromOpsManager: body.fromOpsManager,
                attempts: state.attempts,
              });
        if (request.method === 'POST' && AMBIGUOUS_WRITE_STATUSES.has(response.status)) {
          const code = body.fromOpsManager ? ` ${body.errorCode}` : '';
          const why = `the answer to the request was ${response.status}${code}, a server error`;
          throw new AmbiguousWriteError(context, { cause: error, why });
        }
        retryable =
          RETRYABLE_STATUSES.has(response.status) &&
          (IDEMPOTENT_METHODS.has(request.method) || response.status === 429);
        if (retryable) retryAfterMs = parseRetryAfter(response.headers['retry-after'], clock.now());
        if (response.status !== 429) state.mayHaveApplied = true;
      } else {
        const { failure } = outcome;
        state.status = null;
        const kind = classifyTransportError(failure.error);
        const cause = sanitizeCause(failure.error, secrets);
        const code = (failure.error as { code?: unknown } | null)?.code;
        got = `no response (${typeof code === 'string' && /^[A-Z0-9_]{1,60}$/.test(code) ? code : 'connection failed'})`;
        if (request.method === 'POST' && failure.credentialsSent && kind === 'maybe-sent') {
          throw new AmbiguousWriteError(context, { cause });
        }
        retryable = kind !== 'tls';
        if (kind === 'maybe-sent' && failure.credentialsSent) state.mayHaveApplied = true;
        // A connection made and closed without an answer: on a plain-HTTP URL, possibly a port that speaks TLS.
        hungUp = kind === 'maybe-sent' && request.url.protocol === 'http:' && closedWithoutAnswer(failure.error);
        // undici says only "Headers Timeout Error": say which wait it was, and what a person can change.
        // Refused or unknown host: say what it means and which setting chose the address (not behind a proxy: then
        // the address is the proxy's).
        const why =
          code === 'UND_ERR_HEADERS_TIMEOUT'
            ? headersTimeoutText(this.#options, this.#deadlineNote)
            : proxyConfigured(this.#options)
              ? cause.message
              : connectFailureText(code, cause.message, this.#options.settingNames.baseUrl);
        error =
          kind === 'tls'
            ? this.#tlsError(context, diagnoseTlsFailure(failure.error, this.#tlsContext(request)), state.attempts, {
                cause,
                secrets,
              })
            : new OpsManagerTransportError(
                `${request.method} ${request.pathTemplate}: no response after ${state.attempts} attempt(s): ${why}`,
                context,
                state.attempts,
                { cause },
              );
      }
      last = error;
      if (!retryable || state.attempts >= retry.maxAttempts) throw await this.#explained(error, request, hungUp);
      const delay = backoffDelay(state.attempts, retryAfterMs, retry, this.#options.random);
      const elapsed = clock.now().getTime() - (state.firstSentAt ?? clock.now().getTime());
      if (elapsed + delay >= retry.deadlineMs) {
        throw await this.#explained(
          withRetryAfterRefused(error, retryAfterMs, retry, `the request deadline (${this.#deadlineNote})`),
          request,
          hungUp,
        );
      }
      // No retry after the request's end time: the backoff alone would reach it, so the last error stands.
      if (request.endBy !== undefined && clock.now().getTime() + delay >= request.endBy.at) {
        const end = `the time the request must end by (${request.endBy.reason})`;
        throw await this.#explained(withRetryAfterRefused(error, retryAfterMs, retry, end), request, hungUp);
      }
      this.#options.observer?.onRetryWait?.({
        ...context,
        path: request.url.pathname,
        got,
        attempt: state.attempts,
        maxAttempts: retry.maxAttempts,
        waitMs: delay,
        retryAfter: retryAfterMs !== null,
      });
      // Stopped in the wait, before the retry: sent is whether an earlier attempt may have been applied.
      if (!(await sleepUnlessStopped(clock, delay, waits))) {
        throw this.#stopped(request, request.method !== 'GET' && state.mayHaveApplied);
      }
    }
  }

  #tlsContext(request: HttpRequest) {
    const { settingNames, caFile } = this.#options;
    return { url: request.url, names: settingNames, caFile };
  }

  /** `GET /path: <what happened>; <remedy> (<code>)`: a TLS problem is never retried, so no attempt count. */
  #tlsError(
    context: { method: string; pathTemplate: string },
    diagnosis: TlsDiagnosis,
    attempts: number,
    detail: { cause: Error; secrets: readonly string[] },
  ): OpsManagerTransportError {
    const code = (detail.cause as { code?: unknown }).code;
    const text = scrub(`${diagnosis.what}; ${diagnosis.remedy}`, detail.secrets);
    return new OpsManagerTransportError(
      `${context.method} ${context.pathTemplate}: ${text}${typeof code === 'string' ? ` (${code})` : ''}`,
      context,
      attempts,
      { cause: detail.cause, problem: diagnosis.problem },
    );
  }

  /**
   * The error to throw: when a plain-HTTP server hung up without answering, asks once (per origin and client) whether
   * the port speaks TLS, and if so says the base URL has the wrong protocol. Skipped behind a proxy, which is then the
   * only host reached directly.
   */
  async #explained(error: OpsManagerError, request: HttpRequest, hungUp: boolean): Promise<OpsManagerError> {
    if (!hungUp || !(error instanceof OpsManagerTransportError) || proxyConfigured(this.#options)) return error;
    const { url } = request;
    let probe = this.#probes.get(url.origin);
    if (probe === undefined) {
      probe = speaksTls(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 80));
      this.#probes.set(url.origin, probe);
    }
    if (!(await probe)) return error;
    const cause = error.cause instanceof Error ? error.cause : new Error(error.message);
    const diagnosis = httpToTlsServer(url, this.#options.settingNames);
    return this.#tlsError(request, diagnosis, error.attempts, { cause, secrets: [] });
  }

  /** One attempt, holding a slot: refused unsent while Ops Manager stands silent, else bounded by the deadline. */
  async #attempt(request: HttpRequest, state: RequestState): Promise<Outcome> {
    const now = this.#options.clock.now().getTime();
    state.firstSentAt ??= now;
    state.heard ??= this.#silence.mark();
    const remaining = this.#options.retry.deadlineMs - (now - state.firstSentAt);
    if (remaining <= 0) return { kind: 'expired' };
    // The request's end time caps the attempt too: past it no attempt starts, and one in flight is cut then.
    const untilEnd = request.endBy === undefined ? Number.POSITIVE_INFINITY : request.endBy.at - now;
    if (untilEnd <= 0) return { kind: 'stopped', sent: false, by: 'endBy' };
    this.#silence.check(request, state.attempts - 1);
    // Not AbortSignal.timeout(): its timer and signal live until the timeout fires even when the request ended long
    // before, so 20,000 writes pile up 20,000 of them (measured: ~24 MB of heap and ~25 MB of RSS in a large apply).
    // exchange() reads the whole body before it resolves, so the timer can be cleared as soon as it settles.
    const controller = new AbortController();
    let stoppedBy: 'deadline' | 'endBy' | 'caller' | undefined;
    const timer = setTimeout(
      () => {
        stoppedBy ??= untilEnd < remaining ? 'endBy' : 'deadline';
        controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      },
      Math.min(remaining, untilEnd),
    );
    timer.unref();
    const caller = request.signal;
    const onStop = (): void => {
      stoppedBy ??= 'caller';
      controller.abort(caller?.reason);
    };
    caller?.addEventListener('abort', onStop, { once: true });
    // One attempt counts once as sent, however many challenge round trips it took.
    let sentNow = false;
    const ctx: ExchangeContext = {
      dispatcher: this.#dispatcher,
      nonces: this.#nonces,
      verdict: this.#verdict,
      username: this.#options.publicKey,
      password: this.#options.privateKey,
      apiKeySetting: this.#options.settingNames.apiKey,
      userAgent: this.#options.userAgent,
      maxResponseBytes: this.#options.maxResponseBytes,
      signal: controller.signal,
      ...(request.stopWaiting === undefined ? {} : { stopWaiting: request.stopWaiting }),
      onAnswer: () => {
        this.#silence.answered();
        state.heard = this.#silence.mark();
      },
      onSend: () => {
        sentNow = true;
      },
    };
    try {
      // Stopped between getting the slot and here: nothing was written, not even a signed request.
      if (caller?.aborted || request.stopWaiting?.aborted) return { kind: 'stopped', sent: false, by: 'signal' };
      state.stall.waiting();
      const response = await exchange(ctx, request);
      state.stall.answered();
      return { kind: 'response', response };
    } catch (error) {
      // Stopped waiting for another request's challenge (an apply's write, stopped): nothing of it was sent.
      if (error instanceof StoppedBeforeSend) return { kind: 'stopped', sent: false, by: 'signal' };
      if (!(error instanceof SendFailure)) throw error;
      if (stoppedBy === 'caller') return { kind: 'stopped', sent: error.credentialsSent, by: 'signal' };
      // Cut by the request's end time: no verdict on Ops Manager (it was not given its deadline).
      if (stoppedBy === 'endBy') return { kind: 'stopped', sent: error.credentialsSent, by: 'endBy' };
      const code = (error.error as { code?: unknown } | null)?.code;
      // Told while the slot is still held, so a request queued for it is already refused if Ops Manager is silent.
      const what = `${request.method} ${request.pathTemplate}`;
      if (stoppedBy === 'deadline') this.#silence.timedOut(state.heard, `${what} got no answer within its deadline`);
      else if (code === 'UND_ERR_HEADERS_TIMEOUT' && this.#endsRequest(request, state, error)) {
        this.#silence.timedOut(state.heard, `${what} got no response headers in ${state.attempts} attempt(s)`);
      }
      if (stoppedBy === undefined) return { kind: 'failure', failure: error };
      return { kind: 'failure', failure: new SendFailure(deadlineCause(this.#deadlineNote), error.credentialsSent) };
    } finally {
      if (sentNow) state.sent += 1;
      clearTimeout(timer);
      caller?.removeEventListener('abort', onStop);
    }
  }

  /**
   * Whether a failed attempt ends its request (the silence verdict counts only requests that gave up): none is left,
   * or it was a signed POST (ambiguous, never retried).
   */
  #endsRequest(request: HttpRequest, state: RequestState, failure: SendFailure): boolean {
    return state.attempts >= this.#options.retry.maxAttempts || (request.method === 'POST' && failure.credentialsSent);
  }

  /**
   * An oversized answer ends its request without a retry: it is no transient fault (a server or proxy that sent one
   * sends it again, and every attempt would cost the memory and the time again). A POST whose answer said it was
   * applied, or may have been (a 5xx), is ambiguous: the caller re-reads before writing again, as after a lost answer.
   */
  #tooLarge(request: HttpRequest, state: RequestState, error: OpsManagerResponseTooLargeError): OpsManagerError {
    state.status = error.status;
    const applied = error.status < 300 || AMBIGUOUS_WRITE_STATUSES.has(error.status);
    if (request.method === 'POST' && applied) {
      return new AmbiguousWriteError(
        { method: request.method, pathTemplate: request.pathTemplate },
        { cause: error, why: `the answer (${error.status}) was too large to read` },
      );
    }
    return error;
  }

  #deadlineError(request: HttpRequest, attempts: number): OpsManagerTransportError {
    const cause = deadlineCause(this.#deadlineNote);
    return new OpsManagerTransportError(
      `${request.method} ${request.pathTemplate}: no response after ${attempts} attempt(s): ${cause.message}`,
      { method: request.method, pathTemplate: request.pathTemplate },
      attempts,
      { cause },
    );
  }

  /** The request ended by its end time (HttpRequest.endBy). */
  #ended(request: HttpRequest, sent: boolean): OpsManagerAbortedError {
    return new OpsManagerAbortedError(request.endBy?.reason ?? 'its end time came', sent, {
      method: request.method,
      pathTemplate: request.pathTemplate,
    });
  }

  #stopped(request: HttpRequest, sent: boolean): OpsManagerAbortedError {
    const by = request.signal?.aborted === true ? request.signal : (request.stopWaiting ?? request.signal);
    return new OpsManagerAbortedError(stopReason(by), sent, {
      method: request.method,
      pathTemplate: request.pathTemplate,
    });
  }

  #report(request: HttpRequest, status: number | null, attempts: number, durationMs: number): void {
    const observer = this.#options.observer;
    if (observer === undefined) return;
    try {
      observer.onRequest({ method: request.method, pathTemplate: request.pathTemplate, status, attempts, durationMs });
    } catch {
      // An observer's bug must not fail the request it observes.
    }
  }
}

/**
 * The error of an answer whose Retry-After is not waited out because the wait would pass `limit` (the request
 * deadline, or the time the request must end by), saying so: a bare `429 RATE_LIMITED` would not tell a person why
 * no retry was made, nor what to change. Other errors, and a wait that is the client's own backoff, are left as they are.
 */
function withRetryAfterRefused(
  error: OpsManagerError,
  retryAfterMs: number | null,
  retry: Pick<RetryOptions, 'maxRetryAfterMs'>,
  limit: string,
): OpsManagerError {
  if (retryAfterMs === null || !(error instanceof OpsManagerApiError)) return error;
  const capped =
    retryAfterMs > retry.maxRetryAfterMs ? `; at most ${formatSeconds(retry.maxRetryAfterMs)} is waited` : '';
  error.message = `${error.message.replace(/\.$/, '')}; not retried: Ops Manager asked for a wait of ${formatSeconds(retryAfterMs)} (Retry-After${capped}), which would pass ${limit}`;
  return error;
}
