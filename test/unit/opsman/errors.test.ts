// Scenario: the client's error classes say what a person must know: whether a stopped write may have been applied
// (never for a read), whether an error body came from Ops Manager (the default for a constructed one), and sizes in
// exact bytes with MiB from 1 MiB up.
import { describe, expect, it } from 'vitest';
import {
  OpsManagerAbortedError,
  OpsManagerApiError,
  OpsManagerResponseTooLargeError,
} from '../../../lambdas/opsman/errors.ts';

const GET = { method: 'GET', pathTemplate: '/groups/{groupId}/alertConfigs' };
const PUT = { method: 'PUT', pathTemplate: '/groups/{groupId}/alertConfigs/{alertConfigId}' };

describe('OpsManagerAbortedError', () => {
  it.each([
    [GET, true, 'GET /groups/{groupId}/alertConfigs: stopped (Ctrl-C) before Ops Manager answered'],
    [PUT, false, 'PUT /groups/{groupId}/alertConfigs/{alertConfigId}: stopped (Ctrl-C) before Ops Manager answered'],
    [
      PUT,
      true,
      'PUT /groups/{groupId}/alertConfigs/{alertConfigId}: stopped (Ctrl-C) before Ops Manager answered; the write may or may not have been applied',
    ],
  ])('%j sent=%s: %s', (context, sent, message) => {
    const error = new OpsManagerAbortedError('Ctrl-C', sent, context);
    expect(error.message).toBe(message);
    expect(error.sent).toBe(sent);
  });
});

describe('OpsManagerApiError', () => {
  it("takes the body for Ops Manager's own unless told otherwise", () => {
    expect(new OpsManagerApiError(404, 'GROUP_NOT_FOUND', 'No group', GET).fromOpsManager).toBe(true);
    expect(new OpsManagerApiError(404, 'HTTP_404', '', GET, { fromOpsManager: false }).fromOpsManager).toBe(false);
  });
});

describe('OpsManagerResponseTooLargeError', () => {
  it.each([
    [1_048_575, '1,048,575 bytes'],
    [1_048_576, '1,048,576 bytes (1 MiB)'],
    [1_572_864, '1,572,864 bytes (1.5 MiB)'],
  ])('names a limit of %i as %s', (limitBytes, shown) => {
    const error = new OpsManagerResponseTooLargeError(GET, {
      status: 200,
      limitBytes,
      receivedBytes: limitBytes + 1,
      announcedBytes: undefined,
    });
    expect(error.message).toContain(`is larger than the limit of ${shown} (maxResponseBytes):`);
  });
});
