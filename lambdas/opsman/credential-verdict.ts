/**
 * Whether Ops Manager accepts this client's API key. A key it refuses (a wrong or revoked private key, a key of another
 * instance) is refused on every request, and a run over a thousand projects would send thousands of doomed requests
 * and fail every target the same way. After REFUSALS_BEFORE_STOP refusals with no acceptance in the last
 * VERDICT_WINDOW_MS, authenticated requests fail at once without being sent, for VERDICT_WINDOW_MS; then the key is
 * tried again. Both bounds are in time because a client can outlive a run (a warm Lambda keeps its client between
 * scheduled runs): a refusal that has passed (a key re-added to an access list, an Ops Manager restarting) must not
 * outlive the run that met it, and a key accepted yesterday may have been revoked since. A refusal within the window
 * after an acceptance stays the refusal of its own request (a nonce lost between load-balanced nodes).
 */
import { OpsManagerAuthError } from './errors.ts';

/** Refusals, with no acceptance in the window, after which authenticated requests are no longer sent. */
export const REFUSALS_BEFORE_STOP = 2;

/** How long an acceptance vouches for the key, and how long a condemned key is not sent. */
export const VERDICT_WINDOW_MS = 60_000;

/** The verdict on one client's credentials, shared by all its requests. */
export class CredentialVerdict {
  #acceptedAt: number | undefined;
  #refusals = 0;
  #first: OpsManagerAuthError | undefined;
  #condemnedAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Ops Manager answered a signed request with anything but 401: the key is good, and any count starts again. */
  accept(): void {
    this.#acceptedAt = this.now();
    this.#refusals = 0;
    this.#first = undefined;
    this.#condemnedAt = undefined;
  }

  /** Ops Manager refused the answer to a fresh challenge. */
  refuse(error: OpsManagerAuthError): void {
    const now = this.now();
    if (this.#acceptedAt !== undefined && now - this.#acceptedAt < VERDICT_WINDOW_MS) return;
    this.#refusals += 1;
    this.#first ??= error;
    if (this.#refusals >= REFUSALS_BEFORE_STOP) this.#condemnedAt ??= now;
  }

  /** Throws, for a request that would be signed, while the key stands condemned; `what` is `METHOD /template`. */
  check(what: { method: string; pathTemplate: string }): void {
    const first = this.#first;
    const since = this.#condemnedAt;
    if (first === undefined || since === undefined) return;
    if (this.now() - since >= VERDICT_WINDOW_MS) {
      // Long enough: the key is tried again with a fresh count.
      this.#refusals = 0;
      this.#first = undefined;
      this.#condemnedAt = undefined;
      return;
    }
    throw new OpsManagerAuthError(
      first.status,
      first.errorCode,
      `${what.method} ${what.pathTemplate}: not sent: Ops Manager refused this API key ${this.#refusals} times and has not accepted it (first refusal: ${first.message})`,
      what,
    );
  }
}
