// Scenario: an apply-wide cache of secret fingerprints gives every body the same record as computing each HMAC anew, and a secret shared by two bodies is HMACed once.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { type AlertApplyContext, prepareBody } from '../../../lambdas/core/apply-alerts.ts';
import { type FingerprintCache, secretFingerprints } from '../../../lambdas/core/fingerprint.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OpsManagerApi, SecretResolver } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';

const KEY = new Uint8Array(32).fill(3);
const NOW = '2026-03-01T10:00:00.000Z';
const VALUES: Record<string, string> = {
  'hook#url': 'https://hooks.example.invalid/a-1',
  'hook#secret': 'whsec-shared-1',
  'other#url': 'https://hooks.example.invalid/b-2',
};
const resolver: SecretResolver = {
  async resolve(ref) {
    const value = VALUES[ref];
    if (value === undefined) throw new Error(`no secret ${ref}`);
    return value;
  },
};

function webhook(url: string, secret: string): Change {
  const after = {
    eventTypeName: 'NO_PRIMARY',
    enabled: true,
    matchers: [],
    notifications: [{ typeName: 'WEBHOOK', webhookUrl: { secretRef: url }, webhookSecret: { secretRef: secret } }],
  } as unknown as DesiredAlertBody;
  return {
    target: { type: 'project', id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' },
    kind: 'alertConfig',
    key: `${url}/${secret}`,
    action: 'create',
    fields: [],
    reason: 'test',
    after,
  };
}

function context(fingerprints?: FingerprintCache): AlertApplyContext {
  const ctx: AlertApplyContext = {
    api: {} as OpsManagerApi,
    secrets: resolver,
    fingerprintKey: KEY,
    state: emptyState(NOW),
    now: () => NOW,
  };
  if (fingerprints !== undefined) ctx.fingerprints = fingerprints;
  return ctx;
}

describe('secret fingerprints during apply', () => {
  it.each([
    ['first body', webhook('hook#url', 'hook#secret')],
    ['second body sharing the secret', webhook('other#url', 'hook#secret')],
  ])('%s: the cached record equals the uncached one, field for field and in order', async (_name, change) => {
    const cache: FingerprintCache = new Map();
    await prepareBody(webhook('hook#url', 'hook#secret'), context(cache));
    const cached = await prepareBody(change, context(cache));
    const fresh = await prepareBody(change, context());
    expect(JSON.stringify(cached.secretFingerprints)).toBe(JSON.stringify(fresh.secretFingerprints));
    expect(cached.fingerprint).toBe(fresh.fingerprint);
    const notification = (change.after as { notifications: Record<string, { secretRef: string }>[] }).notifications[0];
    const values = new Map([
      ['notifications[WEBHOOK].webhookSecret', VALUES[notification?.webhookSecret?.secretRef ?? ''] ?? ''],
      ['notifications[WEBHOOK].webhookUrl', VALUES[notification?.webhookUrl?.secretRef ?? ''] ?? ''],
    ]);
    expect(Object.keys(fresh.secretFingerprints).sort()).toEqual([...values.keys()]);
    expect(cached.secretFingerprints).toEqual(secretFingerprints(KEY, values));
  });

  it('keeps one entry per path and value: the shared secret is HMACed once', async () => {
    const cache: FingerprintCache = new Map();
    await prepareBody(webhook('hook#url', 'hook#secret'), context(cache));
    await prepareBody(webhook('other#url', 'hook#secret'), context(cache));
    const sizes = [...cache.entries()].map(([path, byValue]) => [path, byValue.size]).sort();
    expect(sizes).toEqual([
      ['notifications[WEBHOOK].webhookSecret', 1],
      ['notifications[WEBHOOK].webhookUrl', 2],
    ]);
  });
});
