/**
 * A small client of the emulator's admin API (`/__emulator/`, no auth, only with `--admin`): reset, faults, the
 * request log and nonce expiry. Shared by the benchmark and the reliability suite.
 */

/** A fault to inject (the emulator's contract). */
export interface FaultSpec {
  method?: string;
  /** Glob on the path after the base: `*` one segment, `**` any. */
  path: string;
  status?: number;
  errorCode?: string;
  retryAfter?: number;
  latencyMs?: number;
  reset?: boolean;
  phase?: 'before' | 'after';
  times?: number;
  probability?: number;
}

/** One entry of the emulator's request log. */
export interface RequestLogEntry {
  method: string;
  path: string;
  /** The route template; null when no route matched. */
  route: string | null;
  status: number;
  publicKey?: string;
  at: string;
}

/** The emulator's request log. */
export interface RequestLog {
  total: number;
  challenges: number;
  byRoute: Record<string, number>;
  entries: RequestLogEntry[];
}

/** Error of an admin call: which call and what came back. */
export class EmulatorAdminError extends Error {
  override name = 'EmulatorAdminError';
  readonly code = 'EMULATOR_ADMIN_ERROR';
  readonly status: number;

  constructor(call: string, status: number, body: string) {
    super(`${call} answered ${status}: ${body.slice(0, 300)}`);
    this.status = status;
  }
}

/** The admin API of one emulator, by its origin (`http://127.0.0.1:<port>`). */
export class EmulatorAdmin {
  constructor(readonly origin: string) {}

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.origin}/__emulator/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new EmulatorAdminError(`${method} /__emulator/${path}`, response.status, text);
    return text === '' ? {} : JSON.parse(text);
  }

  /** Back to the seed: faults and request log cleared. */
  async reset(): Promise<void> {
    await this.call('POST', 'reset');
  }

  /** Injects a fault; resolves to its id. */
  async fault(spec: FaultSpec): Promise<string> {
    const answer = (await this.call('POST', 'faults', spec)) as { id?: unknown };
    return String(answer.id ?? '');
  }

  /** Removes every fault. */
  async clearFaults(): Promise<void> {
    await this.call('DELETE', 'faults');
  }

  /** The request log since the last clear. */
  async requests(): Promise<RequestLog> {
    return (await this.call('GET', 'requests')) as RequestLog;
  }

  /** Clears the request log. */
  async clearRequests(): Promise<void> {
    await this.call('DELETE', 'requests');
  }

  /** Makes every issued nonce stale. */
  async expireNonces(): Promise<void> {
    await this.call('POST', 'nonces/expire');
  }
}

/** Request counts of a log by HTTP method, without the 401 challenges. */
export function countByMethod(log: RequestLog): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [route, n] of Object.entries(log.byRoute)) {
    const method = route.split(' ')[0] ?? '?';
    out[method] = (out[method] ?? 0) + n;
  }
  return out;
}
