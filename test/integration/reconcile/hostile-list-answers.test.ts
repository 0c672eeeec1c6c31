// Scenario: over real HTTP and Digest auth, Ops Manager answers one project's reads in a way the client must refuse (alert-config pages that drop a config while totalCount still counts it, pages that overlap, an audit-log rotation config nested thousands of levels deep); the run fails that project alone with a message naming the route and what was wrong, writes nothing to it, and applies the other project.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lambdas/core/model.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { runReconcile } from '../../../lambdas/core/run.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import type { AlertConfigRequest, AuditLogRotateConfig } from '../../../lambdas/opsman/types.ts';
import { type ScriptedReply, type ScriptedRequest, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const P1 = '5e2211c17a3e5a48f5497de3';
const P2 = '5e2211c17a3e5a48f5497de4';
const ALERTS = /^\/api\/public\/v1\.0\/groups\/([0-9a-f]{24})\/alertConfigs(?:\/([0-9a-f]{24}))?$/;
const ROTATION = /^\/api\/public\/v1\.0\/groups\/([0-9a-f]{24})\/automationConfig\/auditLogRotateConfig$/;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** How the server lies about P1 (P2 is always answered soundly). */
type Hostility = 'none' | 'last-page-dropped' | 'pages-overlap' | 'deep-rotation';

/** A Digest server acting as Ops Manager (a FakeWorld behind it) and a real client reading one config per page. */
async function world() {
  const fake = new FakeWorld();
  fake.addProject(P1, '5e2211c17a3e5a48f5497de0');
  fake.addProject(P2, '5e2211c17a3e5a48f5497de0');
  const api = fake.as('pubkey');
  const h = new ReconcileHarness(fake);
  let hostility: Hostility = 'none';
  const writes: string[] = [];
  const handler = async (req: ScriptedRequest): Promise<ScriptedReply> => {
    const body = req.body === '' ? undefined : (JSON.parse(req.body) as unknown);
    if (req.method !== 'GET') writes.push(`${req.method} ${req.pathname}`);
    const alerts = ALERTS.exec(req.pathname);
    const rotation = ROTATION.exec(req.pathname);
    if (alerts !== null) {
      const [, groupId = '', id] = alerts;
      const hostile = groupId === P1 ? hostility : 'none';
      if (req.method === 'GET' && id === undefined) {
        const all = await api.listAlertConfigs(groupId);
        const pageNum = Number(req.query.get('pageNum'));
        let results = all.slice(pageNum - 1, pageNum);
        const links = [{ rel: 'self', href: `${req.pathname}?pageNum=${pageNum}&itemsPerPage=1` }];
        if (pageNum < all.length)
          links.push({ rel: 'next', href: `${req.pathname}?pageNum=${pageNum + 1}&itemsPerPage=1` });
        // The last config vanishes from its page, and the count still says it exists.
        if (hostile === 'last-page-dropped' && pageNum === all.length) results = [];
        // Page 2 serves page 1's config again (offset paging over a list that grew at its head).
        if (hostile === 'pages-overlap' && pageNum === 2) results = all.slice(0, 1);
        return { json: { results, links, totalCount: all.length } };
      }
      let value: unknown;
      if (req.method === 'POST') value = await api.createAlertConfig(groupId, body as AlertConfigRequest);
      else if (req.method === 'PUT' && id !== undefined)
        value = await api.updateAlertConfig(groupId, id, body as AlertConfigRequest);
      else if (req.method === 'PATCH' && id !== undefined)
        value = await api.setAlertConfigEnabled(groupId, id, (body as { enabled: boolean }).enabled);
      else if (req.method === 'DELETE' && id !== undefined) await api.deleteAlertConfig(groupId, id);
      else if (req.method === 'GET' && id !== undefined) value = await api.getAlertConfig(groupId, id);
      return value === undefined ? { status: 204, text: '' } : { status: 200, json: value };
    }
    if (rotation !== null) {
      const [, groupId = ''] = rotation;
      if (req.method === 'PUT') {
        await api.setAuditLogRotateConfig(groupId, body as AuditLogRotateConfig);
        return { json: {} };
      }
      const config = await api.getAuditLogRotateConfig(groupId);
      if (groupId === P1 && hostility === 'deep-rotation') {
        const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
        return {
          text: `${JSON.stringify(config).slice(0, -1)}${Object.keys(config).length > 0 ? ',' : ''}"x":${deep}}`,
        };
      }
      return { json: config };
    }
    return { status: 404, json: { error: 404, errorCode: 'RESOURCE_NOT_FOUND', detail: req.pathname } };
  };
  const server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler, ncCheck: 'unique' });
  cleanups.push(() => server.close());
  const client = createOpsManagerClient({
    baseUrl: server.baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    pageSize: 1,
  });
  cleanups.push(() => client.close());
  let runs = 0;
  const run = (command: 'apply' | 'plan'): Promise<RunReport> =>
    runReconcile({ command, runId: `run-${++runs}`, owner: 'test' }, { ...h.deps(), api: client });
  return {
    fake,
    h,
    run,
    writes,
    hostile: (next: Hostility) => {
      hostility = next;
    },
    state: () => JSON.parse(h.state.text ?? '{}') as ReconcileState,
  };
}

/** Two projects, each with two alert configs and audit-log rotation; `threshold` changes P2's too-few. */
function files(threshold = 2): Record<string, string> {
  const alertConfigs = (t: number) => [
    {
      key: 'too-few',
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      enabled: true,
      threshold: { operator: 'LESS_THAN', threshold: t },
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
    },
    {
      key: 'host-down',
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
    },
  ];
  const auditLogRotation = { sizeThresholdMB: 100, timeThresholdHrs: 24 };
  return {
    'settings.yaml': settingsYaml({ mode: 'apply' }),
    'p1.yaml': projectYaml({
      name: 'payments-prod',
      projectId: P1,
      prune: true,
      alertConfigs: alertConfigs(2),
      auditLogRotation,
    }),
    'p2.yaml': projectYaml({
      name: 'ledger-prod',
      projectId: P2,
      prune: true,
      alertConfigs: alertConfigs(threshold),
      auditLogRotation,
    }),
  };
}

describe('one project answered with reads the client refuses', () => {
  it.each([
    [
      'last-page-dropped',
      'GET /groups/{groupId}/alertConfigs: the last page (2) ends the list after 1 item(s), but totalCount is 2; the list is not read partially',
    ],
    [
      'pages-overlap',
      'GET /groups/{groupId}/alertConfigs: the id "ID" is served twice (page 1 and page 2): the pages overlap; the list is not read partially',
    ],
    [
      'deep-rotation',
      'GET /groups/{groupId}/automationConfig/auditLogRotateConfig: the response nests objects and arrays more than 64 levels deep (no Ops Manager answer does)',
    ],
  ] as const)(
    "%s: that project fails with the client's message and gets no write; the other is applied",
    async (hostility, message) => {
      const w = await world();
      w.h.setFiles(files());
      const first = await w.run('apply');
      expect(first.failures).toEqual([]);
      const p1Before = [...(w.fake.groups.get(P1)?.alerts.keys() ?? [])].sort();
      expect(p1Before).toHaveLength(2);
      const p1State = JSON.stringify(w.state().projects[P1]);

      w.hostile(hostility);
      w.writes.length = 0;
      w.h.setFiles(files(3));
      const report = await w.run('apply');
      const firstId = [...(w.fake.groups.get(P1)?.alerts.values() ?? [])][0]?.id ?? '';
      expect(report.failures).toHaveLength(1);
      expect(report.failures[0]?.target.id).toBe(P1);
      expect(report.failures[0]?.message).toContain(message.replace('ID', firstId));
      expect(report.failures[0]?.message).not.toContain(TEST_PRIVATE_KEY);
      expect(report.failures[0]?.message).not.toMatch(/TypeError|RangeError/);
      // Nothing written to P1 (no duplicate create of the config the list dropped), its state untouched.
      expect(w.writes.filter((line) => line.includes(P1))).toEqual([]);
      expect([...(w.fake.groups.get(P1)?.alerts.keys() ?? [])].sort()).toEqual(p1Before);
      expect(JSON.stringify(w.state().projects[P1])).toBe(p1State);
      // P2 was applied.
      expect(w.writes.filter((line) => line.includes(P2))).toHaveLength(1);
      expect(
        report.results
          .filter((r) => r.change.target.id === P2)
          .map((r) => `${r.change.key}:${r.change.action}:${r.status}`),
      ).toEqual(['too-few:update:applied']);
    },
  );
});
