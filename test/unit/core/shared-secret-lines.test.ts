// Scenario: two WEBHOOKs of one alert config, numbered one way by the field diff (sorted normal forms) and the other by the secret paths (canonical JSON with references): a secret changed in the secrets file and another removed on live or newly added each get their own plan line, naming the right webhook by its YAML position, in either YAML order; with one WEBHOOK removed from the YAML, the other keeps its secret paths and only its own changed secret is listed.
import { describe, expect, it } from 'vitest';
import { type DesiredAlertBody, secretUses } from '../../../lambdas/core/alert-body.ts';
import { secretFingerprints } from '../../../lambdas/core/fingerprint.ts';
import type { DesiredProject, FieldChange } from '../../../lambdas/core/model.ts';
import { planAlertConfigs } from '../../../lambdas/core/plan-alerts.ts';
import { readablePath, secretNote } from '../../../lambdas/core/render/values.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const key = new Uint8Array(32).fill(3);

/**
 * Webhook A sorts first by its secret path (its canonical JSON starts `{"delayMin":5`, B's `{"intervalMin":1`) and
 * last in the field diff (normalised, A's delayMin 5 follows B's default 0): `WEBHOOK#2` names a different webhook in
 * each numbering.
 */
const A = {
  typeName: 'WEBHOOK',
  delayMin: 5,
  webhookUrl: { secretRef: 'a#url' },
  webhookSecret: { secretRef: 'a#sec' },
};
const B = {
  typeName: 'WEBHOOK',
  intervalMin: 1,
  webhookUrl: { secretRef: 'b#url' },
  webhookSecret: { secretRef: 'b#sec' },
};
const LIVE_A = { typeName: 'WEBHOOK', delayMin: 5, intervalMin: 60, webhookUrl: '****', webhookSecret: '****' };
const LIVE_B = { typeName: 'WEBHOOK', delayMin: 0, intervalMin: 1, webhookUrl: '****', webhookSecret: '****' };
const VALUES: Record<string, string> = {
  'a#url': 'https://hooks.example.invalid/a',
  'a#sec': 'secret-a-1',
  'b#url': 'https://hooks.example.invalid/b',
  'b#sec': 'secret-b-1',
};

function body(notifications: Record<string, unknown>[]): DesiredAlertBody {
  return { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications } as unknown as DesiredAlertBody;
}

/** Resolved secret values of `notifications` by secret path, references looked up in `values`. */
function resolve(notifications: Record<string, unknown>[], values: Record<string, string>): Map<string, string> {
  return new Map(secretUses(body(notifications)).map((u) => [u.path, values[u.ref] as string]));
}

/**
 * The plan's secret lines (as a reader reads them) for `desired` against `live`, when state holds the fingerprints
 * of `applied` (with VALUES) and the secrets file now holds `values`.
 */
function secretLines(
  desired: Record<string, unknown>[],
  live: Record<string, unknown>[],
  applied: Record<string, unknown>[],
  values: Record<string, string>,
): string[] {
  const config = {
    id: 'c1',
    groupId: 'g',
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    matchers: [],
    notifications: live,
  };
  const out = planAlertConfigs({
    target: { type: 'project', id: 'g', name: 'p' },
    project: {
      name: 'p',
      projectId: 'g',
      alertConfigs: [{ key: 'hooks', ...body(desired) }],
    } as unknown as DesiredProject,
    live: [config as unknown as AlertConfig],
    state: {
      alertConfigs: { hooks: { id: 'c1', secretFingerprints: secretFingerprints(key, resolve(applied, VALUES)) } },
    },
    secrets: new Map([['hooks', { ok: true, values: resolve(desired, values) }]]),
    teamProblems: new Map(),
    fingerprintKey: key,
  });
  const change = out.changes[0];
  const fields: FieldChange[] = change?.fields ?? [];
  return fields
    .filter((f) => f.secret === true)
    .map((f) => `${readablePath(f)}: ${secretNote(f.note)}`)
    .sort();
}

const withoutSecret = (n: Record<string, unknown>) => {
  const copy = { ...n };
  delete copy.webhookSecret;
  return copy;
};

describe('secret lines of two WEBHOOKs (field-diff and secret-path numberings differ)', () => {
  it('the two numberings do differ for these webhooks (the premise of the cases below)', () => {
    expect(secretUses(body([A, B])).map((u) => `${u.path} ${u.ref}`)).toEqual([
      'notifications[WEBHOOK#2].webhookSecret b#sec',
      'notifications[WEBHOOK#2].webhookUrl b#url',
      'notifications[WEBHOOK].webhookSecret a#sec',
      'notifications[WEBHOOK].webhookUrl a#url',
    ]);
  });

  for (const [order, desired, a, b] of [
    ['A then B', [A, B], 1, 2],
    ['B then A', [B, A], 2, 1],
  ] as const) {
    it(`${order}: A's secret changed in the secrets file, B's removed on live: one line each, on its own webhook`, () => {
      const lines = secretLines([...desired], [LIVE_A, withoutSecret(LIVE_B)], [A, B], { ...VALUES, 'a#sec': 'x' });
      expect(lines).toEqual(
        [
          `notifications[WEBHOOK, item ${a}].webhookSecret: ${secretNote('changed')}`,
          `notifications[WEBHOOK, item ${b}].webhookSecret: ${secretNote('removed on live')}`,
        ].sort(),
      );
    });

    it(`${order}: A's secret changed, B's secret newly added in the YAML (never sent): changed on A, added on B`, () => {
      const plainB = withoutSecret(B);
      const now = order === 'A then B' ? [A, B] : [B, A];
      const lines = secretLines(now, [LIVE_A, withoutSecret(LIVE_B)], [A, plainB], { ...VALUES, 'a#sec': 'x' });
      expect(lines).toEqual(
        [
          `notifications[WEBHOOK, item ${a}].webhookSecret: ${secretNote('changed')}`,
          `notifications[WEBHOOK, item ${b}].webhookSecret: ${secretNote('added')}`,
        ].sort(),
      );
    });

    it(`${order}: B's secret changed, B's removed on live too: one line, on B`, () => {
      const lines = secretLines([...desired], [LIVE_A, withoutSecret(LIVE_B)], [A, B], { ...VALUES, 'b#sec': 'x' });
      expect(lines).toEqual([`notifications[WEBHOOK, item ${b}].webhookSecret: ${secretNote('removed on live')}`]);
    });
  }

  it("A's secret changed and B's interval changed: the secret line names A", () => {
    const bNow = { ...B, intervalMin: 2 };
    const lines = secretLines([A, bNow], [LIVE_A, LIVE_B], [A, B], { ...VALUES, 'a#sec': 'x' });
    expect(lines).toEqual([`notifications[WEBHOOK, item 1].webhookSecret: ${secretNote('changed')}`]);
  });
});

describe('a WEBHOOK removed from the YAML', () => {
  it('B removed, A unchanged: no secret line (A keeps its secret paths)', () => {
    expect(secretLines([A], [LIVE_A, LIVE_B], [A, B], VALUES)).toEqual([]);
  });

  it("B removed, A's secret changed: the secret line names A", () => {
    expect(secretLines([A], [LIVE_A, LIVE_B], [A, B], { ...VALUES, 'a#sec': 'x' })).toEqual([
      `notifications[WEBHOOK].webhookSecret: ${secretNote('changed')}`,
    ]);
  });
});
