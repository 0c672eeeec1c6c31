// Scenario: the emulator answers a long list page by page without rendering (alert configs, events) or filtering and sorting (events) the whole list for every page, and still lists what was appended since.
import { describe, expect, it } from 'vitest';
import { EmulatorCore } from '../../../emulator/core.ts';
import { alertConfigRoutes } from '../../../emulator/routes/alert-configs.ts';
import type { RequestContext, Route } from '../../../emulator/routes/context.ts';
import { eventRoutes } from '../../../emulator/routes/events.ts';
import { buildState } from '../../../emulator/store/seed-build.ts';
import { readSeed } from '../../../emulator/store/seed-read.ts';
import type { EventRec, StoredAlertConfig } from '../../../emulator/store/state.ts';

const { doc, source } = await readSeed(undefined);

/** Counts every property read of `value`, into `reads.n`. */
function counted<T extends object>(value: T, reads: { n: number }): T {
  return new Proxy(value, {
    get(target, property, receiver) {
      reads.n++;
      return Reflect.get(target, property, receiver);
    },
  });
}

/** The handler of `route` called for one page of one item, as the router would call it. */
async function page(core: EmulatorCore, route: Route, groupId: string, pageNum: number, list: string) {
  const rawQuery = `pageNum=${pageNum}&itemsPerPage=1`;
  const ctx = {
    core,
    method: 'GET',
    path: `/groups/${groupId}/${list}`,
    params: { groupId },
    query: new URLSearchParams(rawQuery),
    rawQuery,
    common: { pageNum, itemsPerPage: 1, includeCount: true },
    key: null,
    remoteAddress: '127.0.0.1',
    apiBase: 'http://127.0.0.1/api/public/v1.0',
  } as unknown as RequestContext;
  const response = await route.handler(ctx);
  return response.body as { results: { id: string }[]; totalCount: number };
}

function world() {
  const state = buildState(doc, source);
  const core = new EmulatorCore(state, null);
  const [groupId, configs] = [...state.alertConfigs.entries()].find(([, m]) => m.size > 0) as [
    string,
    Map<string, StoredAlertConfig>,
  ];
  return { state, core, groupId, configs };
}

const oid = (prefix: string, i: number) => `${prefix}${String(i).padStart(24 - prefix.length, '0')}`;

describe('emulator lists read page by page', () => {
  it('renders an alert config only for the page that holds it', async () => {
    const { core, groupId, configs } = world();
    const proto = [...configs.values()][0] as StoredAlertConfig;
    for (let i = 0; i < 20; i++) configs.set(oid('6d', i), { ...structuredClone(proto), id: oid('6d', i) });
    const watched = oid('6d', 10);
    const reads = { n: 0 };
    configs.set(watched, counted(configs.get(watched) as StoredAlertConfig, reads));
    const route = alertConfigRoutes.find((r) => r.method === 'GET' && r.template.endsWith('/alertConfigs')) as Route;
    const ids: string[] = [];
    let pagesReading = 0;
    for (let n = 1; n <= configs.size; n++) {
      const before = reads.n;
      const body = await page(core, route, groupId, n, 'alertConfigs');
      ids.push(...body.results.map((c) => c.id));
      if (reads.n > before) pagesReading++;
    }
    expect(ids).toEqual([...configs.keys()]);
    expect(pagesReading).toBe(1);
  });

  it('filters and sorts the events once for all pages, and lists an event appended since', async () => {
    const { state, core, groupId } = world();
    const start = Date.UTC(2030, 0, 1);
    for (let i = 0; i < 20; i++) {
      state.events.push({
        id: oid('6e', i),
        created: new Date(start + i * 1000).toISOString(),
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        groupId,
      } as EventRec);
    }
    const reads = { n: 0 };
    const at = state.events.findIndex((e) => e.id === oid('6e', 5));
    state.events[at] = counted(state.events[at] as EventRec, reads);
    const route = eventRoutes.find((r) => r.template === '/groups/{groupId}/events') as Route;
    const total = (await page(core, route, groupId, 1, 'events')).totalCount;
    const ids: string[] = [];
    let pagesReading = 0;
    for (let n = 1; n <= total; n++) {
      const before = reads.n;
      ids.push(...(await page(core, route, groupId, n, 'events')).results.map((e) => e.id));
      if (reads.n > before) pagesReading++;
    }
    expect(ids.slice(0, 3)).toEqual([oid('6e', 19), oid('6e', 18), oid('6e', 17)]);
    expect(new Set(ids).size).toBe(total);
    // Its own page renders it; no other page reads it (the first call above filtered and sorted the list).
    expect(pagesReading).toBe(1);
    core.addEvent({
      id: oid('6f', 1),
      created: new Date(start + 60_000).toISOString(),
      eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
      groupId,
    } as EventRec);
    const first = await page(core, route, groupId, 1, 'events');
    expect(first.totalCount).toBe(total + 1);
    expect(first.results[0]?.id).toBe(oid('6f', 1));
  });
});
