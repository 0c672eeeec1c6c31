// Scenario: over real HTTP and Digest auth, with a small maxResponseBytes, Ops Manager applies a POST, PUT, PATCH,
// DELETE or singleton PUT and answers it 2xx with a body over the limit: each write is applied (not failed), state
// records what was stored, the run warns that the answer was too large, and the next plan is empty. An oversized 4xx
// answer (the write refused) stays a failure.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunReport } from '../../../lambdas/core/model.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { runReconcile } from '../../../lambdas/core/run.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import type { AlertConfigRequest, ServerType } from '../../../lambdas/opsman/types.ts';
import { type ScriptedReply, type ScriptedRequest, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

const P1 = '5e2211c17a3e5a48f5497de3';
const LIMIT = 8 * 1024;
const ALERTS = /^\/api\/public\/v1\.0\/groups\/([0-9a-f]{24})\/alertConfigs(?:\/([0-9a-f]{24}))?$/;
const SERVER_TYPE = /^\/api\/public\/v1\.0\/usage\/groups\/([0-9a-f]{24})\/defaultServerType$/;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * How the server answers writes: `normal` echoes the stored object; `applied` applies the write and answers `status`
 * with the echo padded past the limit; `refused` applies nothing and answers `status` with an error body past it.
 */
type WriteAnswer = { kind: 'normal' } | { kind: 'applied' | 'refused'; status: number };

/** A Digest server acting as Ops Manager for one project (a FakeWorld behind it), and a real client with LIMIT. */
async function world() {
  const fake = new FakeWorld();
  fake.addProject(P1, '5e2211c17a3e5a48f5497de0');
  const api = fake.as('pubkey');
  const h = new ReconcileHarness(fake);
  let answer: WriteAnswer = { kind: 'normal' };
  const padded = (status: number, value: unknown): ScriptedReply => ({
    status,
    text: JSON.stringify({ ...(value ?? {}), padding: 'x'.repeat(LIMIT) }),
  });
  const handler = async (req: ScriptedRequest): Promise<ScriptedReply> => {
    const body = req.body === '' ? undefined : (JSON.parse(req.body) as unknown);
    const write = req.method !== 'GET';
    if (write && answer.kind === 'refused') {
      return padded(answer.status, { error: answer.status, errorCode: 'INVALID_ATTRIBUTE', detail: 'refused' });
    }
    let value: unknown;
    const alerts = ALERTS.exec(req.pathname);
    const serverType = SERVER_TYPE.exec(req.pathname);
    if (alerts !== null) {
      const [, groupId = '', id] = alerts;
      if (req.method === 'GET' && id === undefined) {
        const results = await api.listAlertConfigs(groupId);
        return { json: { results, totalCount: results.length, links: [] } };
      }
      if (req.method === 'GET' && id !== undefined) value = await api.getAlertConfig(groupId, id);
      else if (req.method === 'POST') value = await api.createAlertConfig(groupId, body as AlertConfigRequest);
      else if (req.method === 'PUT' && id !== undefined)
        value = await api.updateAlertConfig(groupId, id, body as AlertConfigRequest);
      else if (req.method === 'PATCH' && id !== undefined)
        value = await api.setAlertConfigEnabled(groupId, id, (body as { enabled: boolean }).enabled);
      else if (req.method === 'DELETE' && id !== undefined) await api.deleteAlertConfig(groupId, id);
    } else if (serverType !== null) {
      const [, groupId = ''] = serverType;
      if (req.method === 'GET') value = (await api.getProjectDefaultServerType(groupId)) ?? undefined;
      else if (req.method === 'PUT') {
        const wanted = (body as { serverType: ServerType }).serverType;
        await api.setProjectDefaultServerType(groupId, wanted);
        value = { serverType: wanted };
      }
    } else {
      return { status: 404, json: { error: 404, errorCode: 'RESOURCE_NOT_FOUND', detail: req.pathname } };
    }
    const status = req.method === 'POST' ? 201 : 200;
    if (write && answer.kind === 'applied') return padded(answer.status, value);
    return value === undefined ? { status, text: '' } : { status, json: value };
  };
  const server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler, ncCheck: 'unique' });
  cleanups.push(() => server.close());
  const client = createOpsManagerClient({
    baseUrl: server.baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    maxResponseBytes: LIMIT,
  });
  cleanups.push(() => client.close());
  let runs = 0;
  const run = (command: 'apply' | 'plan'): Promise<RunReport> =>
    runReconcile({ command, runId: `run-${++runs}`, owner: 'test' }, { ...h.deps(), api: client });
  return {
    fake,
    h,
    run,
    answer: (next: WriteAnswer) => {
      answer = next;
    },
    state: () => JSON.parse(h.state.text ?? '{}') as ReconcileState,
  };
}

/** Desired state: alert config `too-few`, and `host-down` unless left out, in project P1. */
function files(
  options: { enabled?: boolean; threshold?: number; hostDown?: boolean; serverType?: string } = {},
): Record<string, string> {
  const alertConfigs: Record<string, unknown>[] = [
    {
      key: 'too-few',
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      enabled: options.enabled ?? true,
      threshold: { operator: 'LESS_THAN', threshold: options.threshold ?? 2 },
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
    },
  ];
  if (options.hostDown ?? true) {
    alertConfigs.push({
      key: 'host-down',
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 }],
    });
  }
  const project = { name: 'payments-prod', projectId: P1, prune: true, alertConfigs };
  return {
    'settings.yaml': settingsYaml({ mode: 'apply' }),
    'p1.yaml': projectYaml(
      options.serverType === undefined ? project : { ...project, defaultServerType: options.serverType },
    ),
  };
}

const outcomes = (report: RunReport) => report.results.map((r) => `${r.change.key}:${r.change.action}:${r.status}`);
const pending = (report: RunReport) => report.plan.changes.filter((c) => c.action !== 'noop');

describe('a write applied but answered 2xx with a body over maxResponseBytes', () => {
  it('a POST create is applied, its id found by re-reading and recorded, with a warning; the next plan is empty', async () => {
    const w = await world();
    w.h.setFiles(files());
    w.answer({ kind: 'applied', status: 201 });
    const report = await w.run('apply');
    expect(report.failures).toEqual([]);
    expect(outcomes(report).sort()).toEqual(['host-down:create:applied', 'too-few:create:applied']);
    const live = [...(w.fake.groups.get(P1)?.alerts.values() ?? [])];
    expect(live).toHaveLength(2);
    const records = w.state().projects[P1]?.alertConfigs ?? {};
    expect(records['too-few']?.id).toBe(live.find((a) => a.eventTypeName === 'TOO_FEW_HEALTHY_MEMBERS')?.id);
    expect(records['host-down']?.id).toBe(live.find((a) => a.eventTypeName === 'HOST_DOWN')?.id);
    expect(records['too-few']?.pendingCreate).toBeUndefined();
    // The warning says the answer was too large, for which write, and names the limit.
    expect(report.warnings).toHaveLength(2);
    for (const warning of report.warnings ?? []) {
      expect(warning).toMatch(
        /^payments-prod alertConfig "(too-few|host-down)": create applied, but the answer was too large/,
      );
      expect(warning).toContain(
        'POST /groups/{groupId}/alertConfigs: the response (status 201) is larger than the limit',
      );
      expect(warning).toContain('8,192 bytes (maxResponseBytes)');
    }

    w.answer({ kind: 'normal' });
    expect(pending(await w.run('plan'))).toEqual([]);
  });

  it('a PUT update, a PATCH disable, a DELETE and a singleton PUT are applied and recorded; the next plan is empty', async () => {
    const w = await world();
    w.h.setFiles(files());
    expect(outcomes(await w.run('apply')).sort()).toEqual(['host-down:create:applied', 'too-few:create:applied']);
    const before = w.state().projects[P1]?.alertConfigs['too-few'];
    w.answer({ kind: 'applied', status: 200 });

    w.h.setFiles(files({ threshold: 3, serverType: 'PRODUCTION_SERVER' }));
    const updated = await w.run('apply');
    expect(updated.failures).toEqual([]);
    expect(outcomes(updated).sort()).toEqual(['defaultServerType:update:applied', 'too-few:update:applied']);
    const after = w.state().projects[P1]?.alertConfigs['too-few'];
    expect(after?.id).toBe(before?.id);
    expect(after?.appliedDigest).not.toBe(before?.appliedDigest);
    expect(w.state().projects[P1]?.singletons?.defaultServerType).toBeDefined();
    expect(w.fake.serverTypes.get(P1)?.name).toBe('PRODUCTION_SERVER');
    expect(updated.warnings).toEqual([
      expect.stringMatching(
        /^payments-prod alertConfig "too-few": update applied, but the answer was too large to read: PUT /,
      ),
      expect.stringMatching(
        /^payments-prod defaultServerType: update applied, but the answer was too large to read: PUT .*\(status 200\) is larger than the limit/,
      ),
    ]);
    expect(pending(await w.run('plan'))).toEqual([]);

    w.h.setFiles(files({ threshold: 3, serverType: 'PRODUCTION_SERVER', enabled: false, hostDown: false }));
    const toggled = await w.run('apply');
    expect(toggled.failures).toEqual([]);
    expect(outcomes(toggled).sort()).toEqual(['host-down:delete:applied', 'too-few:disable:applied']);
    expect(toggled.warnings?.map((line) => line.split(': ')[0])).toEqual([
      'payments-prod alertConfig "too-few"',
      'payments-prod alertConfig "host-down"',
    ]);
    expect(toggled.warnings?.every((line) => line.includes('is larger than the limit'))).toBe(true);
    expect(Object.keys(w.state().projects[P1]?.alertConfigs ?? {})).toEqual(['too-few']);
    expect([...(w.fake.groups.get(P1)?.alerts.values() ?? [])].map((a) => a.enabled)).toEqual([false]);
    expect(pending(await w.run('plan'))).toEqual([]);
  });

  it('a create applied to a config stored unlike the desired one is never POSTed again: no duplicate on the next runs', async () => {
    const w = await world();
    // Ops Manager stores every threshold as 5 (non-convergence): no live config equals the desired one.
    w.fake.onStore = (stored) => {
      if (stored.threshold !== undefined) stored.threshold.threshold = 5;
    };
    w.h.setFiles(files({ hostDown: false }));
    w.answer({ kind: 'applied', status: 201 });
    const first = await w.run('apply');
    const tooFew = () =>
      [...(w.fake.groups.get(P1)?.alerts.values() ?? [])].filter((a) => a.eventTypeName === 'TOO_FEW_HEALTHY_MEMBERS');
    expect(tooFew()).toHaveLength(1);
    // No live config equals the desired one, so the one that appeared since the plan is the created one: owned, and
    // not converging, as when the POST is answered with its id.
    expect(outcomes(first)).toEqual(['too-few:create:not-converging']);
    expect(first.warnings?.[0]).toMatch(/^payments-prod alertConfig "too-few": create applied, but the answer was too/);
    const record = w.state().projects[P1]?.alertConfigs['too-few'];
    expect(record?.id).toBe(tooFew()[0]?.id);
    expect(record?.pendingCreate).toBeUndefined();
    expect(record?.notConverging?.fields).toEqual(['threshold.threshold']);

    // Later runs, with answers too large or not: the config the applied POST created is never created again.
    const second = await w.run('apply');
    expect(tooFew()).toHaveLength(1);
    expect(pending(second).filter((c) => c.action === 'create')).toEqual([]);
    w.answer({ kind: 'normal' });
    await w.run('apply');
    expect(tooFew()).toHaveLength(1);
  });

  it('an oversized 4xx answer is still a failed write', async () => {
    const w = await world();
    w.h.setFiles(files({ hostDown: false }));
    await w.run('apply');
    w.answer({ kind: 'refused', status: 400 });

    w.h.setFiles(files({ hostDown: false, threshold: 3 }));
    const refused = await w.run('apply');
    expect(outcomes(refused)).toEqual(['too-few:update:failed']);
    const message = refused.results[0]?.message ?? '';
    expect(message).toContain(
      'PUT /groups/{groupId}/alertConfigs/{alertConfigId}: the response (status 400) is larger',
    );
    expect(refused.warnings ?? []).toEqual([]);
    w.answer({ kind: 'normal' });
    expect(pending(await w.run('plan')).map((c) => `${c.key}:${c.action}`)).toEqual(['too-few:update']);

    w.answer({ kind: 'refused', status: 400 });
    w.h.setFiles(files({ threshold: 3 }));
    const create = await w.run('apply');
    expect(outcomes(create).sort()).toEqual(['host-down:create:failed', 'too-few:update:failed']);
    expect(w.fake.groups.get(P1)?.alerts.size).toBe(1);
  });
});
