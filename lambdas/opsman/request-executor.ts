/**
 * Runs one logical request: concurrency slot, Digest exchange, retries with backoff within a deadline, error mapping,
 * and one observer event. Returns only 2xx responses; everything else becomes a typed error.
 */
import type { Dispatcher } from 'undici';
import { type ExchangeContext, exchange, type HttpRequest, type HttpResponse, SendFailure } from './auth-exchange.ts';
import { CredentialVerdict } from './credential-verdict.ts';
import { NonceCache } from './digest/index.ts';
import { parseErrorBody } from './error-body.ts';
import {
  AmbiguousWriteError,
  OpsManagerApiError,
  OpsManagerAuthError,
  type OpsManagerError,
  OpsManagerTransportError,
  OpsManagerValidationError,
} from './errors.ts';
import { foreignAnswer, foreignDetail, withUnknownPathHint } from './foreign-answer.ts';
import { ConcurrencyLimiter } from './limiter.ts';
import type { ResolvedClientOptions } from './options.ts';
import { speaksTls } from './protocol-probe.ts';
import {
  backoffDelay,
  classifyTransportError,
  IDEMPOTENT_METHODS,
  parseRetryAfter,
  RETRYABLE_STATUSES,
} from './retry-policy.ts';
import { sanitizeCause, scrub } from './sanitize.ts';
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

type Outcome = { kind: 'response'; response: HttpResponse } | { kind: 'failure'; failure: SendFailure };

/** Executes requests for one client. */
export class RequestExecutor {
  readonly #options: ResolvedClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #limiter: ConcurrencyLimiter;
  readonly #nonces: NonceCache;
  readonly #verdict: CredentialVerdict;
  /** Per origin, whether it answered a TLS probe (asked at most once per client). */
  readonly #probes = new Map<string, Promise<boolean>>();
  #closed = false;

  constructor(options: ResolvedClientOptions, dispatcher: Dispatcher, nonces: NonceCache = new NonceCache()) {
    this.#options = options;
    this.#dispatcher = dispatcher;
    this.#limiter = new ConcurrencyLimiter(options.maxConcurrency);
    this.#nonces = nonces;
    this.#verdict = new CredentialVerdict(() => options.clock.now().getTime());
  }

  /** Requests in flight right now (for tests of the limiter). */
  get inFlight(): number {
    return this.#limiter.active;
  }

  /** Refuses every later request (the client is closing its connections). */
  close(): void {
    this.#closed = true;
  }

  /** Runs `request` to a 2xx response, or throws an OpsManagerError subclass. */
  async execute(request: HttpRequest): Promise<HttpResponse> {
    if (this.#closed) {
      const context = { method: request.method, pathTemplate: request.pathTemplate };
      throw new OpsManagerValidationError(`${request.method} ${request.pathTemplate}: the client is closed`, context);
    }
    const { clock } = this.#options;
    const started = clock.now().getTime();
    const state = { attempts: 0, status: null as number | null };
    try {
      return await this.#run(request, started, state);
    } finally {
      this.#report(request, state.status, state.attempts, clock.now().getTime() - started);
    }
  }

  async #run(request: HttpRequest, started: number, state: { attempts: number; status: number | null }) {
    const { retry, clock } = this.#options;
    const context = { method: request.method, pathTemplate: request.pathTemplate };
    const secrets = [this.#options.privateKey, ...request.secrets];
    const scoped = { ...request, secrets };
    for (;;) {
      state.attempts += 1;
      const remaining = retry.deadlineMs - (clock.now().getTime() - started);
      const outcome = await this.#limiter.run(() => this.#attempt(scoped, Math.max(1, remaining)));
      let error: OpsManagerError;
      let retryAfterMs: number | null = null;
      let retryable: boolean;
      let hungUp = false;
      if (outcome.kind === 'response') {
        const { response } = outcome;
        state.status = response.status;
        if (response.status >= 200 && response.status < 300) return response;
        const body = parseErrorBody(response.text, response.status);
        const names = this.#options.settingNames;
        const detail = body.fromOpsManager
          ? withUnknownPathHint(response.status, body.errorCode, scrub(body.detail, secrets), names)
          : foreignDetail(response.status, request.url, foreignAnswer(response, secrets), names);
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
              });
        if (request.method === 'POST' && AMBIGUOUS_WRITE_STATUSES.has(response.status)) {
          throw new AmbiguousWriteError(context, { cause: error });
        }
        retryable =
          RETRYABLE_STATUSES.has(response.status) &&
          (IDEMPOTENT_METHODS.has(request.method) || response.status === 429);
        if (retryable) retryAfterMs = parseRetryAfter(response.headers['retry-after'], clock.now());
      } else {
        const { failure } = outcome;
        state.status = null;
        const kind = classifyTransportError(failure.error);
        const cause = sanitizeCause(failure.error, secrets);
        if (request.method === 'POST' && failure.credentialsSent && kind === 'maybe-sent') {
          throw new AmbiguousWriteError(context, { cause });
        }
        retryable = kind !== 'tls';
        // A connection made and closed without an answer: on a plain-HTTP URL, possibly a port that speaks TLS.
        hungUp = kind === 'maybe-sent' && request.url.protocol === 'http:' && closedWithoutAnswer(failure.error);
        error =
          kind === 'tls'
            ? this.#tlsError(context, diagnoseTlsFailure(failure.error, this.#tlsContext(request)), state.attempts, {
                cause,
                secrets,
              })
            : new OpsManagerTransportError(
                `${request.method} ${request.pathTemplate}: no response after ${state.attempts} attempt(s): ${cause.message}`,
                context,
                state.attempts,
                { cause },
              );
      }
      if (!retryable || state.attempts >= retry.maxAttempts) throw await this.#explained(error, request, hungUp);
      const delay = backoffDelay(state.attempts, retryAfterMs, retry, this.#options.random);
      if (clock.now().getTime() - started + delay >= retry.deadlineMs)
        throw await this.#explained(error, request, hungUp);
      await clock.sleep(delay);
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

  async #attempt(request: HttpRequest, timeoutMs: number): Promise<Outcome> {
    // Not AbortSignal.timeout(): its timer and signal live until the timeout fires even when the request ended long
    // before, so 20,000 writes pile up 20,000 of them (measured: ~24 MB of heap and ~25 MB of RSS in a large apply).
    // exchange() reads the whole body before it resolves, so the timer can be cleared as soon as it settles.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeoutMs,
    );
    timer.unref();
    const signal = controller.signal;
    const ctx: ExchangeContext = {
      dispatcher: this.#dispatcher,
      nonces: this.#nonces,
      verdict: this.#verdict,
      username: this.#options.publicKey,
      password: this.#options.privateKey,
      userAgent: this.#options.userAgent,
      signal,
    };
    try {
      return { kind: 'response', response: await exchange(ctx, request) };
    } catch (error) {
      if (!(error instanceof SendFailure)) throw error;
      if (!signal.aborted) return { kind: 'failure', failure: error };
      const setting = this.#options.settingNames.requestDeadline;
      const limit = `${this.#options.retry.deadlineMs} ms`;
      const deadline = new Error(`the request deadline (${setting === '' ? limit : `${setting} = ${limit}`}) passed`);
      Object.defineProperty(deadline, 'code', { value: 'OPSMAN_DEADLINE_EXCEEDED', enumerable: true });
      return { kind: 'failure', failure: new SendFailure(deadline, error.credentialsSent) };
    } finally {
      clearTimeout(timer);
    }
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
