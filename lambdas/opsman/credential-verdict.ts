/**
 * Whether Ops Manager has accepted this client's API key. A key it refuses (a wrong or revoked private key, a key of
 * another instance) is refused on every request, and a run over a thousand projects would send thousands of doomed
 * requests and fail every target the same way. After REFUSALS_BEFORE_STOP refusals with no acceptance, authenticated
 * requests fail at once without being sent. A key accepted once is never condemned: a later refusal stays the refusal
 * of its own request (a nonce lost between load-balanced nodes, a key rotated mid-run).
 */
import { OpsManagerAuthError } from './errors.ts';

/** Refusals, with no request ever accepted, after which authenticated requests are no longer sent. */
export const REFUSALS_BEFORE_STOP = 2;

/** The verdict on one client's credentials, shared by all its requests. */
export class CredentialVerdict {
  #accepted = false;
  #refusals = 0;
  #first: OpsManagerAuthError | undefined;

  /** Ops Manager answered a signed request with anything but 401: the key is good. */
  accept(): void {
    this.#accepted = true;
  }

  /** Ops Manager refused the answer to a fresh challenge. */
  refuse(error: OpsManagerAuthError): void {
    if (this.#accepted) return;
    this.#refusals += 1;
    this.#first ??= error;
  }

  /** Throws, for a request that would be signed, when the key stands condemned; `what` is `METHOD /template`. */
  check(what: { method: string; pathTemplate: string }): void {
    const first = this.#first;
    if (this.#accepted || first === undefined || this.#refusals < REFUSALS_BEFORE_STOP) return;
    throw new OpsManagerAuthError(
      first.status,
      first.errorCode,
      `${what.method} ${what.pathTemplate}: not sent: Ops Manager refused this API key ${this.#refusals} times and has not accepted it (first refusal: ${first.message})`,
      what,
    );
  }
}
