// Scenario: the emulator's request log keeps only the last MAX_LOG_ENTRIES entries while its counters keep going.
import { describe, expect, it } from 'vitest';
import { MAX_LOG_ENTRIES, RequestLog } from '../../../emulator/admin/request-log.ts';

describe('RequestLog', () => {
  it('keeps exactly the last MAX_LOG_ENTRIES entries; total and byRoute count every one', () => {
    const log = new RequestLog();
    const entry = (i: number) => ({ method: 'GET', path: `/p/${i}`, route: '/p/{id}', status: 200, at: 'now' });
    for (let i = 0; i < MAX_LOG_ENTRIES; i++) log.record(entry(i), false);
    expect(log.toJSON().entries).toHaveLength(MAX_LOG_ENTRIES);
    expect(log.toJSON().entries[0]?.path).toBe('/p/0');
    log.record(entry(MAX_LOG_ENTRIES), false);
    const view = log.toJSON();
    expect(view.entries).toHaveLength(MAX_LOG_ENTRIES);
    expect([view.entries[0]?.path, view.entries.at(-1)?.path]).toEqual(['/p/1', `/p/${MAX_LOG_ENTRIES}`]);
    expect(view.total).toBe(MAX_LOG_ENTRIES + 1);
    expect(view.byRoute).toEqual({ 'GET /p/{id}': MAX_LOG_ENTRIES + 1 });
  });
});
