// Scenario: singleton writes on their own. The rotation PUT carries the live fields this version models (a field
// the desired state leaves out is not reset to its default), the desired ones over them, and nothing that is not a
// number; the state records the digest of the value written, never of the one it replaced.
import { describe, expect, it } from 'vitest';
import {
  applySingletonChange,
  recordSingleton,
  rotationBody,
  verifySingleton,
} from '../../../lambdas/core/apply-singletons.ts';
import type { Change, TargetRef } from '../../../lambdas/core/model.ts';
import { singletonDigest } from '../../../lambdas/core/plan-singletons.ts';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import { OpsManagerResponseTooLargeError } from '../../../lambdas/opsman/errors.ts';

const TARGET: TargetRef = { type: 'project', id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
const ORG: TargetRef = { type: 'organization', id: '5e2211c17a3e5a48f5497de0', name: 'payments' };
const GLOBAL: TargetRef = { type: 'global', id: 'global', name: 'Ops Manager' };
const PIN = { path: 'manifests/7.0.json', sha256: 'ab'.repeat(32) };

/** An API that logs each call (method and arguments) and answers the reads from `live`. */
function loggingApi(live: { serverType?: string; rotation?: object; manifest?: unknown } = {}) {
  const calls: unknown[][] = [];
  const log =
    (name: string, answer?: () => unknown) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args]);
      return answer?.();
    };
  const serverType = () => (live.serverType === undefined ? null : { name: live.serverType, label: '' });
  const api = {
    setProjectDefaultServerType: log('setProjectDefaultServerType'),
    setOrgDefaultServerType: log('setOrgDefaultServerType'),
    setAuditLogRotateConfig: log('setAuditLogRotateConfig'),
    putVersionManifest: log('putVersionManifest', () => ({ text: '{}', value: {} })),
    getProjectDefaultServerType: log('getProjectDefaultServerType', serverType),
    getOrgDefaultServerType: log('getOrgDefaultServerType', serverType),
    getAuditLogRotateConfig: log('getAuditLogRotateConfig', () => live.rotation ?? {}),
    getVersionManifest: log('getVersionManifest', () => ({ text: '', value: live.manifest })),
  };
  return { api: api as unknown as OpsManagerApi, calls };
}

function singleton(target: TargetRef, kind: Change['kind'], after: unknown): Change {
  return { target, kind, key: kind, action: 'update', after, fields: [], reason: '' };
}

const readPin = async (path: string, sha256: string) => {
  expect([path, sha256]).toEqual([PIN.path, PIN.sha256]);
  return '{"versions":[{"name":"7.0.1"}],"updated":1}';
};

function rotation(before: unknown, after: Record<string, number>): Change {
  return {
    target: TARGET,
    kind: 'auditLogRotation',
    key: 'auditLogRotation',
    action: 'update',
    before,
    after,
    fields: [],
    reason: '',
  };
}

describe('rotationBody', () => {
  it('keeps the live fields the desired state leaves out, and sends the desired ones over the live ones', () => {
    const change = rotation({ sizeThresholdMB: 1000, numTotal: 15, timeThresholdHrs: 24 }, { sizeThresholdMB: 2000 });
    expect(rotationBody(change)).toEqual({ sizeThresholdMB: 2000, numTotal: 15, timeThresholdHrs: 24 });
  });

  it('reads numeric texts as numbers and carries nothing else: no blank text, no NaN, no member it does not model', () => {
    const live = {
      numTotal: '15',
      numUncompressed: '  ',
      percentOfDiskspace: 'lots',
      timeThresholdHrs: true,
      sizeThresholdMB: null,
      futureField: 3,
    };
    expect(rotationBody(rotation(live, { sizeThresholdMB: 2000 }))).toEqual({ numTotal: 15, sizeThresholdMB: 2000 });
  });

  it('sends the desired fields alone when the plan had no live config to carry', () => {
    expect(rotationBody(rotation(undefined, { numTotal: 3 }))).toEqual({ numTotal: 3 });
  });
});

describe('recordSingleton', () => {
  it('records the digest of the server type written, not of the one it replaced', () => {
    const state = emptyState('2026-03-01T10:00:00.000Z');
    const change: Change = {
      target: TARGET,
      kind: 'defaultServerType',
      key: 'defaultServerType',
      action: 'update',
      before: 'DEV_SERVER',
      after: 'PRODUCTION_SERVER',
      fields: [],
      reason: '',
    };
    recordSingleton(state, change);
    expect(state.projects[TARGET.id]?.singletons).toEqual({ defaultServerType: singletonDigest('PRODUCTION_SERVER') });
  });
});

describe('applySingletonChange', () => {
  it.each([
    [TARGET, 'setProjectDefaultServerType'],
    [ORG, 'setOrgDefaultServerType'],
  ])('writes a default server type once, with its label, to its own target (%s)', async (target, method) => {
    const { api, calls } = loggingApi();
    const change = singleton(target, 'defaultServerType', 'PRODUCTION_SERVER');
    expect(await applySingletonChange(change, api, readPin)).toBeUndefined();
    expect(calls).toEqual([[method, target.id, { name: 'PRODUCTION_SERVER', label: 'Production Server' }]]);
  });

  it('writes the rotation body once and the pinned manifest text once', async () => {
    const { api, calls } = loggingApi();
    const change = {
      ...singleton(TARGET, 'auditLogRotation', { numTotal: 3 }),
      before: { numTotal: 1, sizeThresholdMB: 9 },
    };
    await applySingletonChange(change, api, readPin);
    await applySingletonChange(singleton(GLOBAL, 'versionManifest', PIN), api, readPin);
    expect(calls).toEqual([
      ['setAuditLogRotateConfig', TARGET.id, { numTotal: 3, sizeThresholdMB: 9 }],
      ['putVersionManifest', '{"versions":[{"name":"7.0.1"}],"updated":1}'],
    ]);
  });

  it('refuses an alert config change, writing nothing', async () => {
    const { api, calls } = loggingApi();
    await expect(applySingletonChange(singleton(TARGET, 'alertConfig', {}), api, readPin)).rejects.toMatchObject({
      code: 'NOT_A_SINGLETON',
    });
    expect(calls).toEqual([]);
  });
});

describe('applySingletonChange with an answer too large to read', () => {
  it.each([
    ['defaultServerType', TARGET, 'PRODUCTION_SERVER', 'setProjectDefaultServerType'],
    ['auditLogRotation', TARGET, { numTotal: 3 }, 'setAuditLogRotateConfig'],
    ['versionManifest', GLOBAL, PIN, 'putVersionManifest'],
  ] as const)('%s: applied, and the warning says so', async (kind, target, after, method) => {
    const { api } = loggingApi();
    (api as unknown as Record<string, unknown>)[method] = async () => {
      throw new OpsManagerResponseTooLargeError(
        { method: 'PUT', pathTemplate: '/x' },
        { status: 200, limitBytes: 1024, receivedBytes: 2048, announcedBytes: undefined },
      );
    };
    const warning = await applySingletonChange(singleton(target, kind, after), api, readPin);
    expect(warning).toMatch(/^applied, but the answer was too large to read: PUT \/x: /);
  });
});

describe('verifySingleton', () => {
  it.each([
    [TARGET, 'getProjectDefaultServerType'],
    [ORG, 'getOrgDefaultServerType'],
  ])('re-reads a server type from its own target and flags one that differs (%s)', async (target, method) => {
    const change = singleton(target, 'defaultServerType', 'PRODUCTION_SERVER');
    const same = loggingApi({ serverType: 'PRODUCTION_SERVER' });
    expect(await verifySingleton(change, same.api, readPin)).toEqual([]);
    expect(same.calls).toEqual([[method, target.id]]);
    expect(await verifySingleton(change, loggingApi({ serverType: 'DEV_SERVER' }).api, readPin)).toEqual([
      'defaultServerType',
    ]);
    expect(await verifySingleton(change, loggingApi().api, readPin)).toEqual(['defaultServerType']);
  });

  it('flags each desired rotation field that differs, numeric texts read as numbers, defaults counted', async () => {
    const change = singleton(TARGET, 'auditLogRotation', { numTotal: 0, sizeThresholdMB: 100, timeThresholdHrs: 24 });
    const live = { sizeThresholdMB: '100', timeThresholdHrs: 12, numUncompressed: 99 };
    expect(await verifySingleton(change, loggingApi({ rotation: live }).api, readPin)).toEqual(['timeThresholdHrs']);
  });

  it('compares the manifest as JSON values: member order is no difference, a value is', async () => {
    const change = singleton(GLOBAL, 'versionManifest', PIN);
    const same = { updated: 1, versions: [{ name: '7.0.1' }] };
    expect(await verifySingleton(change, loggingApi({ manifest: same }).api, readPin)).toEqual([]);
    const other = { updated: 2, versions: [{ name: '7.0.1' }] };
    expect(await verifySingleton(change, loggingApi({ manifest: other }).api, readPin)).toEqual(['versionManifest']);
  });
});
