/**
 * The kept-alive connections of a container's AWS SDK clients (S3, Secrets Manager), held in agents of our own so that a
 * run can drop the idle ones when it starts. A Lambda is frozen between runs, for minutes or hours, and a NAT gateway
 * or an interface VPC endpoint on the way forgets an idle connection after 350 s without a word to the client; it
 * resets the next request sent on it. The SDK retries a reset three times in all, but each retry takes another idle
 * connection of the same pool: after a run that read S3 in parallel, the next run's first S3 request met three dead
 * connections in a row and failed the run. Node's own idle timer cannot be relied on: on the thaw, the run's first
 * request can leave before that timer's turn comes.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/** Sockets per origin, as the SDK's own default agents allow. */
const MAX_SOCKETS = 50;

/** How long one attempt of an AWS SDK request may wait: to connect, and for the next byte once connected. */
export interface AwsTimeouts {
  connectMs: number;
  idleMs: number;
}

/**
 * The S3 client has no timeout of its own (Secrets Manager's is a 300 s idle timeout): a request S3 or the network
 * path leaves unanswered (a black-holed route without a VPC endpoint, a connection dropped without a reset) would hang
 * the run until Lambda kills it, past the deadline that saves its state and releases its lease. With these, each of
 * the SDK's three attempts gives up (TimeoutError, retried by the SDK; then S3_ACCESS, retried by Lambda) within
 * 3 + 10 s, so the three together stay inside the 40 s a run keeps for S3 before its timeout, once its Ops Manager
 * requests have ended (REQUESTS_END_BEFORE_TIMEOUT_MS in run-once.ts, derived from these values).
 * S3 answers a small GET or conditional PUT in well under a second, and the idle timeout restarts with every byte.
 */
export const AWS_TIMEOUTS: AwsTimeouts = { connectMs: 3_000, idleMs: 10_000 };

/** The agents of a container's AWS SDK clients. */
export class AwsConnections {
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  readonly #https = new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  readonly #timeouts: AwsTimeouts;

  constructor(timeouts: AwsTimeouts = AWS_TIMEOUTS) {
    this.#timeouts = timeouts;
  }

  /** The `requestHandler` option of an SDK client: its requests go through these agents, within the timeouts. */
  get requestHandler(): {
    httpAgent: HttpAgent;
    httpsAgent: HttpsAgent;
    connectionTimeout: number;
    socketTimeout: number;
  } {
    return {
      httpAgent: this.#http,
      httpsAgent: this.#https,
      connectionTimeout: this.#timeouts.connectMs,
      socketTimeout: this.#timeouts.idleMs,
    };
  }

  /** Closes every idle connection (requests in flight keep theirs): the next requests open new ones. */
  dropIdle(): number {
    let dropped = 0;
    for (const agent of [this.#http, this.#https]) {
      for (const sockets of Object.values(agent.freeSockets)) {
        for (const socket of sockets ?? []) {
          socket.destroy();
          dropped += 1;
        }
      }
    }
    return dropped;
  }
}
