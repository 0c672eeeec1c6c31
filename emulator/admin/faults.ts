/**
 * Fault injection (admin API): for requests matching a method and a path glob (`*` one segment, `**` any), answer an
 * error, add latency, or reset the connection, before the operation or after it (an ambiguous write).
 */
import { randomBytes } from 'node:crypto';
import { isRecord } from '../../shared/is-record.ts';
import { API_BASE_PATH } from '../base-path.ts';
import { ApiError, apiErrors } from '../errors.ts';

/** One registered fault. */
export interface Fault {
  id: string;
  method: string;
  path: string;
  pattern: GlobPattern;
  status?: number;
  errorCode?: string;
  retryAfter?: number;
  latencyMs?: number;
  reset?: boolean;
  phase: 'before' | 'after';
  remaining: number;
  probability: number;
}

const DEFAULT_CODES: Record<number, string> = {
  400: 'INVALID_JSON',
  401: 'USER_UNAUTHORIZED',
  404: 'RESOURCE_NOT_FOUND',
  429: 'RATE_LIMITED',
  500: 'UNEXPECTED_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** A compiled path glob. */
export interface GlobPattern {
  /** True when the whole of `path` matches. */
  test(path: string): boolean;
}

type GlobStep = { kind: 'char'; ch: string } | { kind: 'segmentChar' } | { kind: 'segmentRest' } | { kind: 'anything' };

/**
 * Compiles a path glob (`*` one or more characters of one segment, `**` anything). Matched by simulating all
 * positions at once, in time linear in the path: a regular expression of several `.*` backtracks exponentially on a
 * long path that does not match (`/**a**a**a...` took seconds for 60 characters, blocking every request).
 */
export function compileGlob(glob: string): GlobPattern {
  const steps: GlobStep[] = [];
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] ?? '';
    if (ch === '*' && glob[i + 1] === '*') {
      steps.push({ kind: 'anything' });
      i++;
    } else if (ch === '*') steps.push({ kind: 'segmentChar' }, { kind: 'segmentRest' });
    else steps.push({ kind: 'char', ch });
  }
  // Adds `i` and every position reachable from it by wildcards that match nothing.
  const close = (set: boolean[], i: number) => {
    for (let j = i; j <= steps.length && !set[j]; j++) {
      set[j] = true;
      const kind = steps[j]?.kind;
      if (kind !== 'anything' && kind !== 'segmentRest') break;
    }
  };
  return {
    test(path: string): boolean {
      let current: boolean[] = [];
      close(current, 0);
      for (let k = 0; k < path.length; k++) {
        const c = path[k];
        const next: boolean[] = [];
        for (let i = 0; i < steps.length; i++) {
          const step = steps[i];
          if (!current[i] || !step) continue;
          if (step.kind === 'anything' || (step.kind === 'segmentRest' && c !== '/')) close(next, i);
          else if ((step.kind === 'char' && step.ch === c) || (step.kind === 'segmentChar' && c !== '/'))
            close(next, i + 1);
        }
        current = next;
      }
      return current[steps.length] === true;
    },
  };
}

/** The error a fault answers (the reference's body; RATE_LIMITED carries the limit wording). */
export function faultError(f: Fault): ApiError {
  const status = f.status ?? 500;
  const code = f.errorCode ?? DEFAULT_CODES[status] ?? 'UNEXPECTED_ERROR';
  const headers: Record<string, string> = f.retryAfter !== undefined ? { 'Retry-After': String(f.retryAfter) } : {};
  const detail =
    code === 'RATE_LIMITED'
      ? `Resource ${f.path} is limited to 100 requests every 1 minutes.`
      : `Injected fault ${f.id} (${code}).`;
  return new ApiError(status, code, detail, code === 'RATE_LIMITED' ? [f.path, 100, 1] : [], headers);
}

function num(body: Record<string, unknown>, key: string, min: number, max: number, integer = true): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    throw apiErrors.invalidJsonAttribute(key);
  }
  return v;
}

const FIELDS = [
  'method',
  'path',
  'status',
  'errorCode',
  'retryAfter',
  'latencyMs',
  'reset',
  'phase',
  'times',
  'probability',
];

/** Validates an admin fault body. */
export function parseFault(body: unknown): Fault {
  if (!isRecord(body)) throw apiErrors.invalidJson();
  for (const key of Object.keys(body)) if (!FIELDS.includes(key)) throw apiErrors.invalidAttribute(key);
  const method = body.method ?? '*';
  if (typeof method !== 'string' || !/^(\*|[A-Za-z]+)$/.test(method)) throw apiErrors.invalidJsonAttribute('method');
  if (body.path === undefined) throw apiErrors.missingAttribute('path');
  if (typeof body.path !== 'string' || !body.path.startsWith('/')) throw apiErrors.invalidJsonAttribute('path');
  // Matched after the base: a glob written with it never matches anything, and the test it was meant for would pass
  // or fail without its fault, for a reason nobody sees.
  if (body.path === API_BASE_PATH || body.path.startsWith(`${API_BASE_PATH}/`)) {
    const rest = body.path.slice(API_BASE_PATH.length) || '/';
    throw new ApiError(
      400,
      'INVALID_JSON_ATTRIBUTE',
      `A fault's path is matched after the base ${API_BASE_PATH}, so this one would never match: write ${rest}.`,
      ['path'],
    );
  }
  const phase = body.phase ?? 'before';
  // Only a string can be an enumeration value: `[object Object]` in a message says nothing.
  if (typeof phase !== 'string') throw apiErrors.invalidJsonAttribute('phase');
  if (phase !== 'before' && phase !== 'after') throw apiErrors.invalidEnum(phase, 'phase');
  // null is a member left out, as for the numbers and method and phase.
  const given = (key: string) => body[key] !== undefined && body[key] !== null;
  if (given('reset') && typeof body.reset !== 'boolean') throw apiErrors.invalidJsonAttribute('reset');
  if (given('errorCode') && (typeof body.errorCode !== 'string' || !/^[A-Z_]+$/.test(body.errorCode))) {
    throw apiErrors.invalidJsonAttribute('errorCode');
  }
  const fault: Fault = {
    id: randomBytes(6).toString('hex'),
    method: method.toUpperCase(),
    path: body.path,
    pattern: compileGlob(body.path),
    phase,
    remaining: num(body, 'times', 1, 1_000_000_000) ?? 1,
    probability: num(body, 'probability', 0, 1, false) ?? 1,
  };
  const status = num(body, 'status', 400, 599);
  const retryAfter = num(body, 'retryAfter', 0, 86_400);
  const latencyMs = num(body, 'latencyMs', 0, 600_000);
  if (status !== undefined) fault.status = status;
  if (typeof body.errorCode === 'string') fault.errorCode = body.errorCode;
  if (retryAfter !== undefined) fault.retryAfter = retryAfter;
  if (latencyMs !== undefined) fault.latencyMs = latencyMs;
  if (body.reset === true) fault.reset = true;
  // A fault that does nothing (no status, no reset, no latency or 0 ms) would only use up matches meant for others.
  if (fault.status === undefined && !fault.reset && !fault.latencyMs) {
    throw new ApiError(
      400,
      'MISSING_ATTRIBUTE',
      'A fault needs at least one of status, reset: true or latencyMs above 0.',
      ['status'],
    );
  }
  return fault;
}

/** The registered faults of one emulator. */
export class FaultRegistry {
  private faults: Fault[] = [];

  /** Registers a fault; returns its id. */
  add(fault: Fault): string {
    this.faults.push(fault);
    return fault.id;
  }

  /** Removes every fault. */
  clear(): void {
    this.faults = [];
  }

  /** The first fault matching this request that fires (consuming one of its `times`), or null. */
  take(method: string, path: string, random: () => number = Math.random): Fault | null {
    for (const f of this.faults) {
      if (f.remaining <= 0) continue;
      if (f.method !== '*' && f.method !== method) continue;
      if (!f.pattern.test(path)) continue;
      if (f.probability < 1 && random() >= f.probability) continue;
      f.remaining--;
      this.faults = this.faults.filter((x) => x.remaining > 0);
      return f;
    }
    return null;
  }
}
