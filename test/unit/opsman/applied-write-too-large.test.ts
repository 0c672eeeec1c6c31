// Scenario: which errors mean "the write was applied, only its answer was too large to read": a 2xx answer over
// maxResponseBytes to a POST (wrapped as ambiguous), PUT, PATCH or DELETE; never a GET, a non-2xx answer or another error.
import { describe, expect, it } from 'vitest';
import {
  AmbiguousWriteError,
  appliedWriteTooLarge,
  OpsManagerApiError,
  OpsManagerResponseTooLargeError,
  OpsManagerTransportError,
} from '../../../lambdas/opsman/index.ts';

const ONE = '/groups/{groupId}/alertConfigs/{alertConfigId}';
const LIST = '/groups/{groupId}/alertConfigs';

function tooLarge(method: string, status: number, pathTemplate = ONE): OpsManagerResponseTooLargeError {
  const detail = { status, limitBytes: 1024, receivedBytes: 2048, announcedBytes: undefined };
  return new OpsManagerResponseTooLargeError({ method, pathTemplate }, detail);
}

const ambiguous = (cause: unknown) => new AmbiguousWriteError({ method: 'POST', pathTemplate: LIST }, { cause });

describe('appliedWriteTooLarge', () => {
  it.each([
    ['PUT 200', tooLarge('PUT', 200)],
    ['PATCH 200', tooLarge('PATCH', 200)],
    ['DELETE 202', tooLarge('DELETE', 202)],
    ['PUT 204 (a body where none belongs)', tooLarge('PUT', 204)],
  ])('%s: the error itself', (_, error) => {
    expect(appliedWriteTooLarge(error)).toBe(error);
  });

  it('a POST answered 201: the cause of the AmbiguousWriteError the client throws', () => {
    const cause = tooLarge('POST', 201, LIST);
    expect(appliedWriteTooLarge(ambiguous(cause))).toBe(cause);
  });

  it.each([
    ['an oversized GET 200', tooLarge('GET', 200)],
    ['an oversized PUT 400', tooLarge('PUT', 400)],
    ['an oversized PATCH 503', tooLarge('PATCH', 503)],
    ['an oversized DELETE 404', tooLarge('DELETE', 404)],
    ['an oversized POST 502 (ambiguous, not applied)', ambiguous(tooLarge('POST', 502, LIST))],
    [
      'a POST whose connection failed',
      ambiguous(new OpsManagerTransportError('no answer', { method: 'POST', pathTemplate: LIST }, 1)),
    ],
    ['an API error', new OpsManagerApiError(400, 'INVALID_ATTRIBUTE', 'bad', { method: 'PUT', pathTemplate: ONE })],
    ['a plain error', new Error('boom')],
    ['not an error', 'text'],
  ])('%s: undefined (stays an error)', (_, error) => {
    expect(appliedWriteTooLarge(error)).toBeUndefined();
  });
});
