// Scenario: alert bodies are checked without being built, built once per write with the same digests as before, recorded as compact state records, and a write's echo is verified against the body it sent.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { secretUses } from '../../../lambdas/core/alert-body.ts';
import type { ApplyContext } from '../../../lambdas/core/apply.ts';
import {
  type AlertApplyContext,
  applyAlertChange,
  checkBody,
  prepareBody,
} from '../../../lambdas/core/apply-alerts.ts';
import { canonicalJson } from '../../../lambdas/core/canonical.ts';
import type { Change, ChangeResult } from '../../../lambdas/core/model.ts';
import { normalDigest, normaliseDesired } from '../../../lambdas/core/normalise.ts';
import type { OpsManagerApi, ReconcileState, SecretResolver } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import { confirmEcho, verifyTarget, type WriteCheck } from '../../../lambdas/core/verify.ts';
import type { AlertConfig, AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { applyContext } from '../../helpers/apply-context.ts';

const KEY = new Uint8Array(32).fill(7);
const GROUP = '5e2211c17a3e5a48f5497de3';
const NOW = '2026-03-01T10:00:00.000Z';

const SECRET_VALUES: Record<string, string> = {
  'hook#url': 'https://hooks.example.invalid/path-1234',
  'hook#secret': 'whsec-value-9876',
  'hook#masked': 'abc********',
  'hook#empty': '',
  'hook#ftp': 'ftp://hooks.example.invalid/path-1234',
};

const resolver: SecretResolver = {
  async resolve(ref) {
    const value = SECRET_VALUES[ref];
    if (value === undefined) throw new Error(`no secret ${ref}`);
    return value;
  },
};

const plain: DesiredAlertBody = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  matchers: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'db1' }],
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true }],
};

const withThreshold: DesiredAlertBody = {
  eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
  enabled: false,
  matchers: [],
  metricThreshold: {
    metricName: 'ASSERT_REGULAR',
    operator: 'GREATER_THAN',
    threshold: 99,
    units: 'RAW',
    mode: 'AVERAGE',
  },
  notifications: [{ typeName: 'EMAIL', emailAddress: 'dba@acme.example', intervalMin: 60, delayMin: 0 }],
};

function webhook(url: string, secret: string): DesiredAlertBody {
  return {
    eventTypeName: 'NO_PRIMARY',
    enabled: true,
    matchers: [],
    notifications: [
      { typeName: 'WEBHOOK', webhookUrl: { secretRef: url }, webhookSecret: { secretRef: secret } },
    ] as unknown as DesiredAlertBody['notifications'],
  };
}

function change(after: DesiredAlertBody | undefined, action: Change['action'] = 'create', id?: string): Change {
  const c: Change = {
    target: { type: 'project', id: GROUP, name: 'payments-prod' },
    kind: 'alertConfig',
    key: 'k1',
    action,
    fields: [],
    reason: 'test',
  };
  if (after !== undefined) c.after = after;
  if (id !== undefined) c.id = id;
  return c;
}

/** A hand-written API: answers writes with the body as stored (secrets redacted), counts list reads. */
class EchoApi {
  lists = 0;
  /** Changes the echo of the next write (an odd server). */
  tamper: ((config: AlertConfig) => void) | undefined;
  stored = new Map<string, AlertConfig>();

  private echo(id: string, body: AlertConfigRequest): AlertConfig {
    const notifications = body.notifications.map((n) => {
      const out: Record<string, unknown> = { ...n };
      for (const field of ['webhookSecret', 'webhookUrl']) if (field in out) out[field] = '****';
      return out;
    });
    const config = { ...body, id, groupId: GROUP, created: NOW, updated: NOW, notifications } as unknown as AlertConfig;
    this.tamper?.(config);
    this.stored.set(id, config);
    return structuredClone(config);
  }

  async createAlertConfig(_groupId: string, body: AlertConfigRequest): Promise<AlertConfig> {
    return this.echo(`6b00000000000000000000${String(this.stored.size).padStart(2, '0')}`, body);
  }

  async updateAlertConfig(_groupId: string, id: string, body: AlertConfigRequest): Promise<AlertConfig> {
    return this.echo(id, body);
  }

  async listAlertConfigs(): Promise<AlertConfig[]> {
    this.lists++;
    return [...this.stored.values()].map((c) => structuredClone(c));
  }
}

function contexts(
  api: EchoApi,
  state: ReconcileState = emptyState(NOW),
): { alert: AlertApplyContext; apply: ApplyContext } {
  const alert: AlertApplyContext = {
    api: api as unknown as OpsManagerApi,
    secrets: resolver,
    fingerprintKey: KEY,
    state,
    now: () => NOW,
  };
  const apply = applyContext(NOW, {
    api: api as unknown as OpsManagerApi,
    secrets: resolver,
    fingerprintKey: KEY,
    state,
  });
  return { alert, apply };
}

describe('prepareBody', () => {
  it.each([
    ['a body without secrets', plain],
    ['a body with a metric threshold', withThreshold],
    ['a body with two secrets', webhook('hook#url', 'hook#secret')],
  ])('%s: digest and text are those of the normalised desired body', async (_name, body) => {
    const prepared = await prepareBody(change(body), contexts(new EchoApi()).alert);
    expect(prepared.appliedDigest).toBe(normalDigest(normaliseDesired(body)));
    expect(prepared.desiredText).toBe(canonicalJson(normaliseDesired(body)));
    expect(prepared.hasSecrets).toBe(secretUses(body).length > 0);
    expect(Object.keys(prepared.secretFingerprints)).toEqual(secretUses(body).map((u) => u.path));
  });
});

describe('checkBody', () => {
  it.each([
    ['no desired body', undefined, 'has no desired body'],
    ['an unknown secret', webhook('hook#nope', 'hook#secret'), 'secret reference hook#nope'],
    ['an empty secret', webhook('hook#url', 'hook#empty'), 'resolves to a value that is empty'],
    ['a mask-like secret', webhook('hook#masked', 'hook#secret'), 'looks like a redaction mask'],
    [
      'a webhook URL that went bad since the plan',
      webhook('hook#ftp', 'hook#secret'),
      'alert config "k1": secret reference hook#ftp (notifications[WEBHOOK].webhookUrl) resolves to a value that is not an absolute http(s) URL',
    ],
  ])('refuses %s exactly as prepareBody does', async (_name, body, message) => {
    const ctx = contexts(new EchoApi()).alert;
    const checked = await checkBody(change(body), ctx).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    const prepared = await prepareBody(change(body), ctx).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    expect(checked).toContain(message);
    expect(checked).toBe(prepared);
  });

  it('accepts a body prepareBody can build', async () => {
    await expect(checkBody(change(webhook('hook#url', 'hook#secret')), contexts(new EchoApi()).alert)).resolves.toBe(
      undefined,
    );
  });
});

describe('state records of applied writes', () => {
  it('a create replaces the pending marker with a record listing its fields in a fixed order', async () => {
    const api = new EchoApi();
    const { alert } = contexts(api);
    alert.state.projects[GROUP] = { alertConfigs: { k1: { pendingCreate: { runId: 'r1', startedAt: NOW } } } };
    const out = await applyAlertChange(change(plain), alert);
    const record = alert.state.projects[GROUP]?.alertConfigs.k1;
    expect(Object.keys(record ?? {})).toEqual([
      'id',
      'fingerprint',
      'secretFingerprints',
      'appliedDigest',
      'createdAt',
    ]);
    expect(record?.id).toBe(out.id);
    expect(record?.createdAt).toBe(NOW);
    expect(out.desiredText).toBe(canonicalJson(normaliseDesired(plain)));
  });

  it('an update keeps the other fields of the older record and clears notConverging', async () => {
    const api = new EchoApi();
    const { alert } = contexts(api);
    const id = '6b0000000000000000000042';
    alert.state.projects[GROUP] = {
      alertConfigs: {
        k1: {
          id,
          fingerprint: 'old',
          secretFingerprints: {},
          appliedDigest: 'old',
          notConverging: { desiredDigest: 'd', since: NOW, fields: ['enabled'] },
          adoptedAt: '2026-01-01T00:00:00.000Z',
        },
      },
    };
    await applyAlertChange(change(withThreshold, 'update', id), alert);
    const record = alert.state.projects[GROUP]?.alertConfigs.k1;
    expect(Object.keys(record ?? {})).toEqual([
      'id',
      'fingerprint',
      'secretFingerprints',
      'appliedDigest',
      'adoptedAt',
    ]);
    expect(record?.adoptedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(record?.appliedDigest).toBe(normalDigest(normaliseDesired(withThreshold)));
  });
});

describe('verifyTarget with write echoes', () => {
  async function writeAndVerify(api: EchoApi, body: DesiredAlertBody): Promise<ChangeResult> {
    const { alert, apply } = contexts(api);
    const c = change(body);
    const out = await applyAlertChange(c, alert);
    const r: ChangeResult = { change: c, status: 'applied', durationMs: 0 };
    if (out.id !== undefined) r.id = out.id;
    const check: WriteCheck = {
      echoConfirmed: confirmEcho(r, { response: out.response, desiredText: out.desiredText }),
    };
    const written = new Map<ChangeResult, WriteCheck>([[r, check]]);
    expect(await verifyTarget(written, apply)).toEqual({});
    return r;
  }

  it.each([
    ['no echo', () => undefined, false],
    ['an echo of another id', (c: AlertConfig) => ({ ...c, id: '6b00000000000000000000ff' }), false],
    ['an echo equal to what was sent', (c: AlertConfig) => c, true],
    [
      'an echo with a different interval',
      (c: AlertConfig) => ({ ...c, notifications: [{ ...c.notifications[0], intervalMin: 7 }] }),
      false,
    ],
  ])('confirmEcho: %s', async (_name, shape, confirmed) => {
    const api = new EchoApi();
    const c = change(plain);
    const out = await applyAlertChange(c, contexts(api).alert);
    const r: ChangeResult = { change: c, status: 'applied', durationMs: 0, id: out.id as string };
    const response = out.response === undefined ? undefined : (shape(out.response) as AlertConfig | undefined);
    expect(confirmEcho(r, { response, desiredText: out.desiredText })).toBe(confirmed);
  });

  it.each([
    ['plain', plain],
    ['threshold', withThreshold],
    ['secrets redacted in the echo', webhook('hook#url', 'hook#secret')],
  ])('an echo equal to what was sent (%s) needs no re-read', async (_name, body) => {
    const api = new EchoApi();
    const r = await writeAndVerify(api, body);
    expect(r.status).toBe('applied');
    expect(api.lists).toBe(0);
  });

  it('an echo that differs is re-read and flagged not-converging with the differing field', async () => {
    const api = new EchoApi();
    api.tamper = (config) => {
      config.enabled = false;
    };
    const r = await writeAndVerify(api, plain);
    expect(api.lists).toBe(1);
    expect(r.status).toBe('not-converging');
    expect(r.message).toContain('enabled');
  });

  it('an echo with extra server fields in another key order still counts as equal', async () => {
    const api = new EchoApi();
    api.tamper = (config) => {
      const c = config as unknown as Record<string, unknown>;
      c.links = [{ href: 'http://x', rel: 'self' }];
      const notifications = (c.notifications as Record<string, unknown>[]).map((n) =>
        Object.fromEntries(Object.entries(n).reverse()),
      );
      c.notifications = notifications;
    };
    const r = await writeAndVerify(api, plain);
    expect(r.status).toBe('applied');
    expect(api.lists).toBe(0);
  });
});
