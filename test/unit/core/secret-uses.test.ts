// Scenario: the "no secret field" quick exit of secretUses and resolveBodySecrets gives the same answers as the full walk, a body without secrets never asks the resolver, and resolving a project's bodies together asks each reference once with the same answers and reasons as one body at a time.
import { describe, expect, it } from 'vitest';
import { type DesiredAlertBody, hasSecretFields, secretUses } from '../../../lambdas/core/alert-body.ts';
import type { DesiredNotification } from '../../../lambdas/core/model.ts';
import type { ResolvedSecrets } from '../../../lambdas/core/plan-alerts.ts';
import type { SecretResolver } from '../../../lambdas/core/ports.ts';
import { resolveBodySecrets, resolveSecretsOf } from '../../../lambdas/core/resolve-secrets.ts';

function body(notifications: Record<string, unknown>[]): DesiredAlertBody {
  return {
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    matchers: [],
    notifications: notifications as unknown as DesiredNotification[],
  };
}

const cases: { name: string; notifications: Record<string, unknown>[]; paths: string[] }[] = [
  { name: 'no notifications', notifications: [], paths: [] },
  {
    name: 'plain notifications only',
    notifications: [
      { typeName: 'EMAIL', emailAddress: 'a@example.com' },
      { typeName: 'GROUP', roles: ['GROUP_OWNER'] },
    ],
    paths: [],
  },
  {
    name: 'a secret field left undefined',
    notifications: [{ typeName: 'SLACK', channelName: '#ops', apiToken: undefined }],
    paths: [],
  },
  {
    name: 'one secret after plain notifications',
    notifications: [
      { typeName: 'EMAIL', emailAddress: 'a@example.com' },
      { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'hook#url' }, webhookSecret: { secretRef: 'hook#secret' } },
    ],
    paths: ['notifications[WEBHOOK].webhookSecret', 'notifications[WEBHOOK].webhookUrl'],
  },
  {
    name: 'duplicate identities numbered',
    notifications: [
      { typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#a' } },
      { typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#b' } },
    ],
    paths: ['notifications[PAGER_DUTY#2].serviceKey', 'notifications[PAGER_DUTY].serviceKey'],
  },
];

describe('secret uses quick exit', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const b = body(c.notifications);
      expect(hasSecretFields(b.notifications)).toBe(c.paths.length > 0);
      expect(secretUses(b).map((u) => u.path)).toEqual(c.paths);
      const asked: string[] = [];
      const resolved = await resolveBodySecrets(
        b,
        {
          resolve: async (ref) => {
            asked.push(ref);
            // URL-shaped, so that a webhookUrl passes its shape check too.
            return `https://hooks.example.invalid/value-of-${encodeURIComponent(ref)}`;
          },
        },
        'k',
      );
      expect(resolved.ok).toBe(true);
      if (resolved.ok) expect([...resolved.values.keys()]).toEqual(c.paths);
      expect(asked.length).toBe(c.paths.length);
    });
  }
});

const VALUES: Record<string, string> = {
  'pd#key': 'pd-secret-1',
  'hook#url': 'https://hooks.example.com/a',
  'hook#secret': 'hook-secret-2',
  'blank#key': '',
  'masked#key': '****abcd',
};

/** A resolver over VALUES that counts its calls; `throws` refs throw synchronously, unknown refs reject. */
function resolver(throws: string[] = []): SecretResolver & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    resolve(ref: string): Promise<string> {
      asked.push(ref);
      if (throws.includes(ref)) throw new Error(`resolver broke on ${ref}`);
      const value = VALUES[ref];
      return value === undefined ? Promise.reject(new Error(`no secret ${ref}`)) : Promise.resolve(value);
    },
  };
}

const BODIES = new Map<string, DesiredAlertBody>([
  ['pd-a', body([{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#key' } }])],
  ['pd-b', body([{ typeName: 'PAGER_DUTY', delayMin: 5, serviceKey: { secretRef: 'pd#key' } }])],
  [
    'hook',
    body([{ typeName: 'WEBHOOK', webhookUrl: { secretRef: 'hook#url' }, webhookSecret: { secretRef: 'hook#secret' } }]),
  ],
  ['missing', body([{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'nope#key' } }])],
  ['blank', body([{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'blank#key' } }])],
  ['masked', body([{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'masked#key' } }])],
  ['broken', body([{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'broken#key' } }])],
]);

const plain = (r: ResolvedSecrets | undefined) =>
  r === undefined ? undefined : r.ok ? { ok: true, values: Object.fromEntries(r.values) } : r;

describe('resolveSecretsOf', () => {
  it('answers every body as resolveBodySecrets does, asking each distinct reference once', async () => {
    const together = resolver(['broken#key']);
    const out = await resolveSecretsOf(BODIES, together);
    expect([...out.keys()]).toEqual([...BODIES.keys()]);
    expect(together.asked.sort()).toEqual([
      'blank#key',
      'broken#key',
      'hook#secret',
      'hook#url',
      'masked#key',
      'nope#key',
      'pd#key',
    ]);
    for (const [key, b] of BODIES) {
      expect(plain(out.get(key)), key).toEqual(plain(await resolveBodySecrets(b, resolver(['broken#key']), key)));
    }
    expect(plain(out.get('pd-a'))).toEqual({
      ok: true,
      values: { 'notifications[PAGER_DUTY].serviceKey': 'pd-secret-1' },
    });
    expect(plain(out.get('hook'))).toEqual({
      ok: true,
      values: {
        'notifications[WEBHOOK].webhookSecret': 'hook-secret-2',
        'notifications[WEBHOOK].webhookUrl': 'https://hooks.example.com/a',
      },
    });
  });

  it.each([
    [
      'missing',
      'alert config "missing": secret reference nope#key (notifications[PAGER_DUTY].serviceKey) could not be resolved: no secret nope#key',
    ],
    [
      'blank',
      'alert config "blank": secret reference blank#key (notifications[PAGER_DUTY].serviceKey) resolves to a value that is empty',
    ],
    [
      'masked',
      'alert config "masked": secret reference masked#key (notifications[PAGER_DUTY].serviceKey) resolves to a value that looks like a redaction mask (****); refusing to send it',
    ],
    [
      'broken',
      'alert config "broken": secret reference broken#key (notifications[PAGER_DUTY].serviceKey) could not be resolved: resolver broke on broken#key',
    ],
  ])('blocks only %s, with a reason that names the reference and no value', async (key, reason) => {
    const out = await resolveSecretsOf(BODIES, resolver(['broken#key']));
    expect(out.get(key)).toEqual({ ok: false, reason });
    expect(out.get('pd-a')?.ok).toBe(true);
    for (const value of Object.values(VALUES).filter((v) => v !== '')) expect(reason).not.toContain(value);
  });

  it('decides by the first bad use in path order when a body has several', async () => {
    const b = body([
      { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'nope#url' }, webhookSecret: { secretRef: 'blank#key' } },
    ]);
    const out = await resolveSecretsOf(new Map([['x', b]]), resolver());
    // webhookSecret sorts before webhookUrl: its empty value is the reason.
    expect(out.get('x')).toEqual({
      ok: false,
      reason:
        'alert config "x": secret reference blank#key (notifications[WEBHOOK].webhookSecret) resolves to a value that is empty',
    });
  });

  it('asks nothing for no bodies or bodies without secrets', async () => {
    const r = resolver();
    expect((await resolveSecretsOf(new Map(), r)).size).toBe(0);
    const out = await resolveSecretsOf(new Map([['g', body([{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }])]]), r);
    expect(plain(out.get('g'))).toEqual({ ok: true, values: {} });
    expect(r.asked).toEqual([]);
  });
});
