/** Bounded concurrency for per-target work (the API client has its own limiter underneath). */

import { OpsManagerApiError, OpsManagerAuthError } from '../opsman/errors.ts';

/**
 * Runs `fn` over `items` with at most `limit` in flight; results keep the input order. Once a call throws (a plan's
 * keepAlive finding the lease lost), no further item is started, and the first error is thrown only when the calls in
 * flight have settled: nothing keeps reading or writing after the caller has moved on to report, save or release.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}

/** A message for any thrown value, without stack or cause chains (which could carry request bodies). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The stable code of an error, when it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The HTTP status of an error answer from Ops Manager (an API error, or a refused key: 401, or 403 for a key without
 * the role); undefined for anything else, which never got such an answer. Carried on failures as `httpStatus`, so the
 * next step is chosen from the code and the status, never from the message's text. An answer that is not Ops
 * Manager's own error JSON (a proxy's 404 page) has none: its 404 says nothing of a project being gone (its message
 * names the URL that answered and points at the base URL).
 */
export function errorHttpStatus(error: unknown): number | undefined {
  if (error instanceof OpsManagerApiError) return error.fromOpsManager ? error.status : undefined;
  return error instanceof OpsManagerAuthError ? error.status : undefined;
}
