// Scenario: two WEBHOOKs of one alert config, numbered one way by the field diff (sorted normal forms) and the other by the secret paths (canonical JSON with references): a secret changed in the secrets file and another removed on live or newly added each get their own plan line, naming the right webhook by its YAML position, in either YAML order; with one WEBHOOK removed from the YAML, the other keeps its secret paths and only its own changed secret is listed.
import { describe, expect, it } from 'vitest';
import { buildAlertRequest, type DesiredAlertBody, secretUses } from '../../../lambdas/core/alert-body.ts';
import {
  bodyFingerprint,
  changedSecretPaths,
  type FingerprintCache,
  secretFingerprint,
  secretFingerprints,
} from '../../../lambdas/core/fingerprint.ts';
import type { DesiredProject, FieldChange } from '../../../lambdas/core/model.ts';
import { planAlertConfigs } from '../../../lambdas/core/plan-alerts.ts';
import { readablePath, secretNote } from '../../../lambdas/core/render/values.ts';
import { renumberedSecretPaths } from '../../../lambdas/core/renumbered-secrets.ts';
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
  'c#url': 'https://hooks.example.invalid/c',
  'd#url': 'https://hooks.example.invalid/d',
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
  return secretLinesOf(desired, live, applied, values).secrets;
}

/** secretLines, with the change's action, for a desired config `enabled` or not (live is enabled). */
function secretLinesOf(
  desired: Record<string, unknown>[],
  live: Record<string, unknown>[],
  applied: Record<string, unknown>[],
  values: Record<string, string>,
  enabled = true,
): { action: string | undefined; secrets: string[] } {
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
      release: [],
      alertConfigs: [{ key: 'hooks', ...body(desired), enabled }],
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
  const secrets = fields
    .filter((f) => f.secret === true)
    .map((f) => `${readablePath(f)}: ${secretNote(f.note)}`)
    .sort();
  return { action: change?.action, secrets };
}

const withoutSecret = (n: Record<string, unknown>) => {
  const copy = { ...n };
  delete copy.webhookSecret;
  return copy;
};

/** VALUES with A's and B's secret values swapped: A's references now resolve to B's values and B's to A's. */
const SWAPPED: Record<string, string> = {
  ...VALUES,
  'a#url': VALUES['b#url'] as string,
  'b#url': VALUES['a#url'] as string,
  'a#sec': VALUES['b#sec'] as string,
  'b#sec': VALUES['a#sec'] as string,
};

/** Both secrets of both webhooks read as changed (they are sent). */
const EVERY_SECRET_CHANGED = [
  `notifications[WEBHOOK, item 1].webhookSecret: ${secretNote('changed')}`,
  `notifications[WEBHOOK, item 1].webhookUrl: ${secretNote('changed')}`,
  `notifications[WEBHOOK, item 2].webhookSecret: ${secretNote('changed')}`,
  `notifications[WEBHOOK, item 2].webhookUrl: ${secretNote('changed')}`,
];

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

describe('a WEBHOOK renumbered by an edit, no secret value changed', () => {
  /** B with delayMin 1: its canonical JSON (`{"delayMin":1`) now sorts before A's (`{"delayMin":5`). */
  const B1 = { ...B, delayMin: 1 };

  it('the premise: B now holds the first secret paths and A the `#2` ones', () => {
    expect(secretUses(body([A, B1])).map((u) => `${u.path} ${u.ref}`)).toEqual([
      'notifications[WEBHOOK#2].webhookSecret a#sec',
      'notifications[WEBHOOK#2].webhookUrl a#url',
      'notifications[WEBHOOK].webhookSecret b#sec',
      'notifications[WEBHOOK].webhookUrl b#url',
    ]);
  });

  it("B's delayMin edited so that it ranks first: no secret line", () => {
    expect(secretLines([A, B1], [LIVE_A, LIVE_B], [A, B], VALUES)).toEqual([]);
  });

  it("B's delayMin edited and B's secret changed: one line, on B", () => {
    expect(secretLines([A, B1], [LIVE_A, LIVE_B], [A, B], { ...VALUES, 'b#sec': 'x' })).toEqual([
      `notifications[WEBHOOK, item 2].webhookSecret: ${secretNote('changed')}`,
    ]);
  });

  it('A removed from the YAML: B moves to the first paths, no secret line', () => {
    expect(secretLines([B], [LIVE_A, LIVE_B], [A, B], VALUES)).toEqual([]);
  });

  it("A removed and B's URL changed: one line, on B's URL", () => {
    expect(
      secretLines([B], [LIVE_A, LIVE_B], [A, B], { ...VALUES, 'b#url': 'https://hooks.example.invalid/b2' }),
    ).toEqual([`notifications[WEBHOOK].webhookUrl: ${secretNote('changed')}`]);
  });

  it('renamed references reorder two otherwise equal webhooks, nothing else differs: both re-sent once (a swap looks the same)', () => {
    const C = { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'c#url' } };
    const D = { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'd#url' } };
    const renamed = { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'e#url' } };
    // The premise: C's URL moves from the first path (where state holds C's) to `#2` (where it holds D's).
    expect(secretUses(body([C, D])).map((u) => `${u.path} ${u.ref}`)).toEqual([
      'notifications[WEBHOOK#2].webhookUrl d#url',
      'notifications[WEBHOOK].webhookUrl c#url',
    ]);
    expect(secretUses(body([renamed, D])).map((u) => `${u.path} ${u.ref}`)).toEqual([
      'notifications[WEBHOOK#2].webhookUrl e#url',
      'notifications[WEBHOOK].webhookUrl d#url',
    ]);
    const live = { typeName: 'WEBHOOK', delayMin: 0, intervalMin: 60, webhookUrl: '****' };
    const values = { ...VALUES, 'e#url': VALUES['c#url'] as string };
    expect(secretLines([renamed, D], [live, live], [C, D], values)).toEqual([
      `notifications[WEBHOOK, item 1].webhookUrl: ${secretNote('changed')}`,
      `notifications[WEBHOOK, item 2].webhookUrl: ${secretNote('changed')}`,
    ]);
  });

  it('two webhooks whose values were swapped in the secrets file, nothing else differs: every swapped secret is sent', () => {
    expect(secretLines([A, B], [LIVE_A, LIVE_B], [A, B], SWAPPED)).toEqual(EVERY_SECRET_CHANGED);
  });

  it('values swapped while the config is disabled in YAML (a PATCH of enabled alone sends no secret): still sent', () => {
    const lines = secretLinesOf([A, B], [LIVE_A, LIVE_B], [A, B], SWAPPED, false);
    expect(lines.action).toBe('update');
    expect(lines.secrets).toEqual(EVERY_SECRET_CHANGED);
  });
});

describe("a secret set to another WEBHOOK's value is still a change", () => {
  it("A's secret set to B's value (no renumbering): one line, on A", () => {
    expect(secretLines([A, B], [LIVE_A, LIVE_B], [A, B], { ...VALUES, 'a#sec': VALUES['b#sec'] as string })).toEqual([
      `notifications[WEBHOOK, item 1].webhookSecret: ${secretNote('changed')}`,
    ]);
  });

  it("A (without a secret) gets B's URL value: one line, on A's URL", () => {
    const plainA = withoutSecret(A);
    expect(
      secretLines([plainA, B], [withoutSecret(LIVE_A), LIVE_B], [plainA, B], {
        ...VALUES,
        'a#url': VALUES['b#url'] as string,
      }),
    ).toEqual([`notifications[WEBHOOK, item 1].webhookUrl: ${secretNote('changed')}`]);
  });
});

describe('what looking for a renumbering costs', () => {
  /** The paths whose fingerprints a plan computed (through `cache`) for `desired` against the state of `applied`. */
  function computedPaths(
    desired: Record<string, unknown>[],
    applied: Record<string, unknown>[],
    values: Record<string, string>,
  ) {
    const cache: FingerprintCache = new Map();
    const current = resolve(desired, values);
    const stored = secretFingerprints(key, resolve(applied, VALUES));
    const changed = changedSecretPaths(key, current, stored, cache);
    const moved = renumberedSecretPaths(key, body(desired), current, stored, changed, cache);
    return { computed: [...cache.keys()].sort(), moved: [...moved].sort() };
  }

  it('a lone WEBHOOK whose secret changed: no fingerprint beyond its own paths', () => {
    expect(computedPaths([A], [A], { ...VALUES, 'a#sec': 'x' })).toEqual({
      computed: ['notifications[WEBHOOK].webhookSecret', 'notifications[WEBHOOK].webhookUrl'],
      moved: [],
    });
  });

  it('a renumbered WEBHOOK: its sibling paths are fingerprinted through the cache', () => {
    const { computed, moved } = computedPaths([B], [A, B], VALUES);
    expect(moved).toEqual(['notifications[WEBHOOK].webhookSecret', 'notifications[WEBHOOK].webhookUrl']);
    expect(computed).toEqual([
      'notifications[WEBHOOK#2].webhookSecret',
      'notifications[WEBHOOK#2].webhookUrl',
      'notifications[WEBHOOK].webhookSecret',
      'notifications[WEBHOOK].webhookUrl',
    ]);
  });
});

describe('a record whose secret paths an earlier release numbered by list position (before 2026-11-26)', () => {
  /** Desired [B, A]: by list position B is `[WEBHOOK]` and A `[WEBHOOK#2]`; by content (today) the other way round. */
  const DESIRED = [B, A];
  const LEGACY: Record<string, string> = {
    'notifications[WEBHOOK].webhookUrl': 'b#url',
    'notifications[WEBHOOK].webhookSecret': 'b#sec',
    'notifications[WEBHOOK#2].webhookUrl': 'a#url',
    'notifications[WEBHOOK#2].webhookSecret': 'a#sec',
  };

  /** The plan of DESIRED (secrets file `values`) against a record as that release wrote it after sending VALUES. */
  function planWith(values: Record<string, string>): { action: string | undefined; secrets: string[] } {
    const secretFingerprints = Object.fromEntries(
      Object.entries(LEGACY).map(([path, ref]) => [path, secretFingerprint(key, path, VALUES[ref] as string)]),
    );
    const fingerprint = bodyFingerprint(key, buildAlertRequest(body(DESIRED), resolve(DESIRED, VALUES)));
    const config = { id: 'c1', groupId: 'g', eventTypeName: 'HOST_DOWN', enabled: true, matchers: [] };
    const out = planAlertConfigs({
      target: { type: 'project', id: 'g', name: 'p' },
      project: {
        name: 'p',
        projectId: 'g',
        release: [],
        alertConfigs: [{ key: 'hooks', ...body(DESIRED) }],
      } as unknown as DesiredProject,
      live: [{ ...config, notifications: [LIVE_B, LIVE_A] } as unknown as AlertConfig],
      state: { alertConfigs: { hooks: { id: 'c1', fingerprint, secretFingerprints } } },
      secrets: new Map([['hooks', { ok: true, values: resolve(DESIRED, values) }]]),
      teamProblems: new Map(),
      fingerprintKey: key,
    });
    const fields: FieldChange[] = out.changes[0]?.fields ?? [];
    const secrets = fields
      .filter((f) => f.secret === true)
      .map((f) => `${readablePath(f)}: ${secretNote(f.note)}`)
      .sort();
    return { action: out.changes[0]?.action, secrets };
  }

  it('is in sync when the request is the one it sent (no secret reads as changed, nothing is re-sent)', () => {
    // Before: an update with every secret "(secret changed)", the first plan after an upgrade.
    expect(planWith(VALUES)).toEqual({ action: 'noop', secrets: [] });
  });

  it('still sends a secret changed in the secrets file since (the request is no longer the one it sent)', () => {
    const changed = planWith({ ...VALUES, 'a#sec': 'secret-a-2' });
    expect(changed.action).toBe('update');
    expect(changed.secrets).toContain(`notifications[WEBHOOK, item 2].webhookSecret: ${secretNote('changed')}`);
  });
});

describe('the order of the secret lines of two WEBHOOKs: the YAML order (item 1 before item 2)', () => {
  /** The change of `desired` against a live config of `live`, its secret lines as printed and in printed order. */
  function linesInOrder(
    desired: Record<string, unknown>[],
    live: Record<string, unknown>[],
    owned: boolean,
    values: Record<string, string>,
  ): { action: string | undefined; lines: string[] } {
    const config = { id: 'c1', groupId: 'g', eventTypeName: 'HOST_DOWN', enabled: true, matchers: [] };
    const out = planAlertConfigs({
      target: { type: 'project', id: 'g', name: 'p' },
      project: {
        name: 'p',
        projectId: 'g',
        release: [],
        alertConfigs: [{ key: 'hooks', ...body(desired) }],
      } as unknown as DesiredProject,
      live: [{ ...config, notifications: live } as unknown as AlertConfig],
      state: owned
        ? {
            alertConfigs: {
              hooks: { id: 'c1', secretFingerprints: secretFingerprints(key, resolve(desired, VALUES)) },
            },
          }
        : { alertConfigs: {} },
      secrets: new Map([['hooks', { ok: true, values: resolve(desired, values) }]]),
      teamProblems: new Map(),
      fingerprintKey: key,
    });
    const fields: FieldChange[] = out.changes[0]?.fields ?? [];
    return {
      action: out.changes[0]?.action,
      lines: fields.map((f) => (f.secret === true ? `${readablePath(f)}: ${secretNote(f.note)}` : readablePath(f))),
    };
  }

  const inOrder = (note: string) => [
    `notifications[WEBHOOK, item 1].webhookSecret: ${note}`,
    `notifications[WEBHOOK, item 1].webhookUrl: ${note}`,
    `notifications[WEBHOOK, item 2].webhookSecret: ${note}`,
    `notifications[WEBHOOK, item 2].webhookUrl: ${note}`,
  ];

  for (const [order, desired] of [
    ['A then B (A holds the unnumbered secret paths, which sort after `WEBHOOK#2`)', [A, B]],
    ['B then A', [B, A]],
  ] as const) {
    it(`${order}: an adoption lists item 1's secrets before item 2's`, () => {
      expect(linesInOrder([...desired], [LIVE_A, LIVE_B], false, VALUES)).toEqual({
        action: 'adopt',
        lines: inOrder(secretNote('set')),
      });
    });

    it(`${order}: an update of every secret lists them in the same order`, () => {
      expect(linesInOrder([...desired], [LIVE_A, LIVE_B], true, SWAPPED)).toEqual({
        action: 'update',
        lines: inOrder(secretNote('changed')),
      });
    });
  }

  it("an update of B's interval (item 2) and of A's secret (item 1): the field diff first, then the secret line", () => {
    const bNow = { ...B, intervalMin: 2 };
    expect(linesInOrder([A, bNow], [LIVE_A, LIVE_B], true, { ...VALUES, 'a#sec': 'x' })).toEqual({
      action: 'update',
      lines: [
        'notifications[WEBHOOK, item 2].intervalMin',
        `notifications[WEBHOOK, item 1].webhookSecret: ${secretNote('changed')}`,
      ],
    });
  });

  it("A's URL changed in the secrets file and A's secret replaced on live: one item, its fields by name", () => {
    const replaced = { ...LIVE_A, webhookSecret: 'qq********' };
    expect(
      linesInOrder([A, B], [replaced, LIVE_B], true, { ...VALUES, 'a#url': 'https://hooks.example.invalid/a2' }),
    ).toEqual({
      action: 'update',
      lines: [
        `notifications[WEBHOOK, item 1].webhookSecret: ${secretNote('changed on live')}`,
        `notifications[WEBHOOK, item 1].webhookUrl: ${secretNote('changed')}`,
      ],
    });
  });
});
