/** Reads Ops Manager's five-field error body, tolerating anything else a proxy or load balancer may send. */
import { isRecord } from '../../shared/is-record.ts';
import { scrub } from './sanitize.ts';

/** The parts of an error response the client keeps. */
export interface ParsedErrorBody {
  /** Ops Manager's code, or `HTTP_<status>` when the body has none. */
  errorCode: string;
  /** The server's detail, or a short excerpt of a non-JSON body; never longer than 500 characters. */
  detail: string;
  /**
   * Whether the body is Ops Manager's own error JSON (an `errorCode`, or a numeric `error` with a detail or reason).
   * False for a proxy's page, an empty body or any other JSON: something else may have answered.
   */
  fromOpsManager: boolean;
}

const MAX_DETAIL = 500;

/** Scrubbed before it is clipped: a secret the cut goes through would no longer match, and its start would show. */
function clip(text: string, secrets: readonly string[]): string {
  const flat = scrub(text, secrets).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL ? `${flat.slice(0, MAX_DETAIL - 3)}...` : flat;
}

/**
 * Parses `{"detail","error","errorCode","parameters","reason"}`; falls back to the status and a clipped excerpt. The
 * detail is scrubbed of `secrets` (the request's private key and secret body fields).
 */
export function parseErrorBody(text: string, status: number, secrets: readonly string[] = []): ParsedErrorBody {
  const fallback = {
    errorCode: `HTTP_${status}`,
    detail: clip(text.startsWith('<') ? '' : text, secrets),
    fromOpsManager: false,
  };
  if (text.trim() === '') return fallback;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fallback;
  }
  if (!isRecord(value)) return fallback;
  const body = value as Record<string, unknown>;
  const errorCode =
    typeof body.errorCode === 'string' && /^[A-Z0-9_]{1,100}$/.test(body.errorCode) ? body.errorCode : `HTTP_${status}`;
  const detail =
    typeof body.detail === 'string' ? body.detail : typeof body.reason === 'string' ? body.reason : fallback.detail;
  const fromOpsManager =
    errorCode !== `HTTP_${status}` ||
    (typeof body.error === 'number' && (typeof body.detail === 'string' || typeof body.reason === 'string'));
  return { errorCode, detail: clip(detail, secrets), fromOpsManager };
}
