/**
 * Whether Ops Manager answers at all. A server that accepts connections and never answers (a hung JVM, a stuck proxy)
 * costs every request its whole deadline, and a run waits one deadline per wave of requests: the example world's plan
 * waited three in a row (projects, then organizations, then the version manifest: 6 minutes at the default 120 s),
 * and a world whose requests queue behind the concurrency cap waits one per batch of requests.
 *
 * Once a request has given up after a timeout (its deadline, or the headers timeout of its last attempt) while Ops
 * Manager answered nothing at all, to any request, since that request last heard from it (since it was first sent, or
 * since its own last answer, a challenge or a 503), requests not yet sent fail at once without being sent, until Ops
 * Manager answers anything (a request already in flight) or one more deadline has passed; then requests go out again. Both bounds keep a client that outlives a run (a warm
 * Lambda) from carrying the verdict into a later run. Requests in flight keep their own deadline: one request's
 * silence never cuts another short, so a write in flight still gets its answer.
 */
import { OpsManagerTransportError, type RequestContext } from './errors.ts';

/** Where a request stands: the count of answers when it last heard from Ops Manager, and the time. */
export interface SilenceMark {
  answers: number;
  at: number;
}

/** The verdict of one client, shared by all its requests. */
export class SilenceVerdict {
  /** Answers so far: a count, not a time, so "anything since" is exact whatever the clock's resolution. */
  #answers = 0;
  #verdict: { since: number; until: number; witness: string } | undefined;

  /**
   * @param now the client's clock, in milliseconds
   * @param windowMs how long a verdict stands without an answer: the request deadline
   * @param deadlineNote how messages describe the deadline (`120 s, --request-timeout to change`)
   */
  constructor(
    private readonly now: () => number,
    private readonly windowMs: number,
    private readonly deadlineNote: string,
  ) {}

  /** Where things stand now: a request keeps this when it is sent and each time it gets an answer. */
  mark(): SilenceMark {
    return { answers: this.#answers, at: this.now() };
  }

  /** Ops Manager answered an HTTP request (any status, a challenge included): it is not hung. */
  answered(): void {
    this.#answers += 1;
    this.#verdict = undefined;
  }

  /**
   * A request gave up after a timeout without an answer since `mark`; `witness` says which and how, for messages
   * (`GET /groups/{groupId}/alertConfigs got no answer within its deadline`). A verdict only when nothing at all was
   * answered since: otherwise only this request was slow.
   */
  timedOut(mark: SilenceMark, witness: string): void {
    if (this.#answers !== mark.answers) return;
    const since = Math.min(mark.at, this.#verdict?.since ?? mark.at);
    this.#verdict = { since, until: this.now() + this.windowMs, witness };
  }

  /**
   * Drops the verdict: a new run starts (a warm Lambda's next invocation may come within the window, a retry of the
   * very run that met the silence), and a run must ask Ops Manager before it concludes it is silent.
   */
  forget(): void {
    this.#verdict = undefined;
  }

  /**
   * Throws OpsManagerTransportError, for a request about to be sent, while Ops Manager stands silent. `attempted`: the
   * attempts this request already made; a retry refused says so (`not sent again after 1 attempt(s)`, `attempts: 1`),
   * since its first attempt was sent and a write may have been applied.
   */
  check(context: RequestContext, attempted = 0): void {
    const verdict = this.#verdict;
    if (verdict === undefined) return;
    if (this.now() >= verdict.until) {
      this.#verdict = undefined; // long enough: try again
      return;
    }
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const what = attempted === 0 ? 'not sent' : `not sent again after ${attempted} attempt(s)`;
    throw new OpsManagerTransportError(
      `${context.method} ${context.pathTemplate}: ${what}: Ops Manager has answered no request since ${iso(verdict.since)} (${verdict.witness}; deadline ${this.deadlineNote}); requests fail at once until it answers again or until ${iso(verdict.until)}`,
      { method: context.method, pathTemplate: context.pathTemplate },
      attempted,
    );
  }
}
