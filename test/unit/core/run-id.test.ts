// One run-id format for the CLI and the Lambdas: UTC seconds then 8 random hex digits, sortable as text by start
// time, with no character that needs escaping in an S3 key or a file name.
import { describe, expect, it } from 'vitest';
import { newRunId } from '../../../lambdas/core/run-id.ts';

describe('newRunId', () => {
  it('is the UTC time to the second and 8 hex digits, whatever the milliseconds', () => {
    expect(newRunId(new Date('2026-11-21T10:01:02.987Z'))).toMatch(/^20261121T100102Z-[0-9a-f]{8}$/);
    expect(newRunId(new Date('2026-01-02T03:04:05.000Z'))).toMatch(/^20260102T030405Z-[0-9a-f]{8}$/);
  });

  it('sorts by start time as text and differs between runs started in the same second', () => {
    const at = new Date('2026-11-21T23:59:59.500Z');
    const ids = [newRunId(new Date('2026-11-22T00:00:00.000Z')), newRunId(at), newRunId(at)];
    expect([...ids].sort()[2]).toBe(ids[0]);
    expect(ids[1]).not.toBe(ids[2]);
  });
});
