// Scenario: the spec's request table names a notification's role `role` (one string) and says it is returned as
// `roles`; the real product takes `roles` (a list). Each refuses the field it does not know with INVALID_ATTRIBUTE. The
// client sends a one-role notification as `role` first, and after a server refuses that field, as `roles` from then on.
// Two independent Digest servers stand for the two readings: one written from the spec's table, one like the product.
import { afterEach, describe, expect, it } from 'vitest';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { refusesSpecRole, withSpecRole } from '../../../lambdas/opsman/role-wire.ts';
import type { AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { type ScriptedReply, type ScriptedRequest, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Notification = Record<string, unknown>;

/** 400 INVALID_ATTRIBUTE as Ops Manager words it, for the first notification field `known` does not list. */
function refuseUnknown(known: ReadonlySet<string>, body: { notifications?: Notification[] }): ScriptedReply | null {
  for (const [index, n] of (body.notifications ?? []).entries()) {
    for (const field of Object.keys(n)) {
      if (known.has(field)) continue;
      const attr = `notifications[${index}].${field}`;
      const detail = `Invalid attribute ${attr} specified.`;
      return {
        status: 400,
        json: { detail, error: 400, errorCode: 'INVALID_ATTRIBUTE', parameters: [attr], reason: 'Bad Request' },
      };
    }
  }
  return null;
}

/**
 * A server that keeps the bodies it was sent and stores a config the way its reading of the contract says: `spec`
 * takes `role` (a string) and refuses `roles`; `product` takes `roles` and refuses `role`. Both answer with `roles`.
 */
async function serverReading(reading: 'spec' | 'product') {
  const known = new Set([
    'typeName',
    'delayMin',
    'intervalMin',
    'emailEnabled',
    'smsEnabled',
    reading === 'spec' ? 'role' : 'roles',
  ]);
  const sent: { method: string; body: { notifications?: Notification[] } }[] = [];
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (request: ScriptedRequest) => {
      const body = JSON.parse(request.body) as { notifications?: Notification[] };
      sent.push({ method: request.method, body });
      const refusal = refuseUnknown(known, body);
      if (refusal) return refusal;
      const notifications = (body.notifications ?? []).map(({ role, ...n }) =>
        role === undefined ? n : { ...n, roles: [role] },
      );
      return { status: request.method === 'POST' ? 201 : 200, json: { id: 'a1', ...body, notifications } };
    },
  });
  cleanups.push(() => server.close());
  const client = createOpsManagerClient({ baseUrl: server.baseUrl, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY });
  cleanups.push(() => client.close());
  return { client, sent };
}

function alertBody(...roleLists: string[][]): AlertConfigRequest {
  return {
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    notifications: roleLists.map((roles) => ({ typeName: 'GROUP', roles, intervalMin: 5, delayMin: 0 })),
  };
}

describe("a server written from the spec's request table (role: string)", () => {
  it('gets one role as role and stores it: the config reads back with that role', async () => {
    const { client, sent } = await serverReading('spec');
    const body = alertBody(['GROUP_OWNER']);
    const created = await client.createAlertConfig('g1', body);
    expect(created?.notifications).toEqual([
      { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0 },
    ]);
    expect(sent.map((s) => s.body.notifications)).toEqual([
      [{ typeName: 'GROUP', role: 'GROUP_OWNER', intervalMin: 5, delayMin: 0 }],
    ]);
    await client.updateAlertConfig('g1', 'a1', body);
    expect(sent[1]?.body.notifications?.[0]).toMatchObject({ role: 'GROUP_OWNER' });
    expect(sent[1]?.body.notifications?.[0]).not.toHaveProperty('roles');
    // The caller's body is not rewritten: fingerprints and plans keep the roles list.
    expect(body.notifications?.[0]).toEqual({ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0 });
  });

  it('several roles cannot be written in its form: they go as roles, and its refusal is the answer', async () => {
    const { client, sent } = await serverReading('spec');
    const error = await client.createAlertConfig('g1', alertBody(['GROUP_OWNER', 'GROUP_READ_ONLY'])).catch((e) => e);
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect((error as OpsManagerApiError).detail).toBe('Invalid attribute notifications[0].roles specified.');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body.notifications?.[0]).toMatchObject({ roles: ['GROUP_OWNER', 'GROUP_READ_ONLY'] });
  });
});

describe('a server that takes roles (the product) and refuses role', () => {
  it('is sent the roles form again at once, and from then on only that form', async () => {
    const { client, sent } = await serverReading('product');
    const created = await client.createAlertConfig(
      'g1',
      alertBody(['GROUP_OWNER'], ['GROUP_OWNER', 'GROUP_READ_ONLY']),
    );
    expect(created?.id).toBe('a1');
    expect(sent.map((s) => s.body.notifications?.map((n) => n.role ?? n.roles))).toEqual([
      ['GROUP_OWNER', ['GROUP_OWNER', 'GROUP_READ_ONLY']],
      [['GROUP_OWNER'], ['GROUP_OWNER', 'GROUP_READ_ONLY']],
    ]);
    await client.updateAlertConfig('g1', 'a1', alertBody(['GROUP_OWNER']));
    expect(sent).toHaveLength(3);
    expect(sent[2]?.body.notifications).toEqual([
      { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0 },
    ]);
  });

  it('a body without a one-role notification is sent as it is, and another refusal is not retried', async () => {
    const { client, sent } = await serverReading('product');
    const body = {
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      notifications: [{ typeName: 'EMAIL', emailAddress: 'a@b.c' }],
    };
    await expect(client.createAlertConfig('g1', body)).rejects.toThrow(/notifications\[0\]\.emailAddress/);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual(body);
  });
});

describe('withSpecRole and refusesSpecRole', () => {
  it('rewrites only one-role lists and returns the same object when nothing changes', () => {
    const none = alertBody(['A', 'B']);
    expect(withSpecRole(none)).toBe(none);
    const noNotifications = { eventTypeName: 'HOST_DOWN', notifications: [] };
    expect(withSpecRole(noNotifications)).toBe(noNotifications);
    const already = { eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP', role: 'A', roles: ['A'] }] };
    expect(withSpecRole(already)).toBe(already);
    expect(withSpecRole(alertBody(['A'], [])).notifications).toEqual([
      { typeName: 'GROUP', role: 'A', intervalMin: 5, delayMin: 0 },
      { typeName: 'GROUP', roles: [], intervalMin: 5, delayMin: 0 },
    ]);
  });

  it.each([
    ['Invalid attribute notifications[0].role specified.', 'INVALID_ATTRIBUTE', 400, true],
    ['Invalid attribute role specified.', 'INVALID_ATTRIBUTE', 400, true],
    ['Invalid attribute notifications[0].roles specified.', 'INVALID_ATTRIBUTE', 400, false],
    ['Invalid attribute notifications[0].userRole specified.', 'INVALID_ATTRIBUTE', 400, false],
    ['Invalid attribute notifications[0].role specified.', 'INVALID_JSON_ATTRIBUTE', 400, false],
    ['Invalid attribute notifications[0].role specified.', 'INVALID_ATTRIBUTE', 409, false],
  ])('%s (%s, %i): %s', (detail, code, status, expected) => {
    const context = { method: 'POST', pathTemplate: '/groups/{groupId}/alertConfigs' };
    expect(refusesSpecRole(new OpsManagerApiError(status, code, detail, context))).toBe(expected);
  });
});
