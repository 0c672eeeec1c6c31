// Scenario: the "no secret field" quick exit of secretUses and resolveBodySecrets gives the same answers as the full walk, and a body without secrets never asks the resolver.
import { describe, expect, it } from 'vitest';
import { type DesiredAlertBody, hasSecretFields, secretUses } from '../../../lambdas/core/alert-body.ts';
import type { DesiredNotification } from '../../../lambdas/core/model.ts';
import { resolveBodySecrets } from '../../../lambdas/core/resolve-secrets.ts';

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
      const resolved = await resolveBodySecrets(b, {
        resolve: async (ref) => {
          asked.push(ref);
          return `value-of-${ref}`;
        },
      });
      expect(resolved.ok).toBe(true);
      if (resolved.ok) expect([...resolved.values.keys()]).toEqual(c.paths);
      expect(asked.length).toBe(c.paths.length);
    });
  }
});
