// Scenario: at apply time a reference is located only where the desired state loaded again proves the plan's place
// (same file digest as the plan recorded, same reference at the same notification and field); otherwise it is said
// as not located, with why. The desired state is loaded once per apply, and only when a secret fails.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { CHANGED_SINCE_PLAN, secretLocator } from '../../../lambdas/core/apply-secret-places.ts';
import type { Change, DesiredAlertConfig, DesiredState, Plan, SourceLocation } from '../../../lambdas/core/model.ts';
import type { SecretResolver } from '../../../lambdas/core/ports.ts';
import { resolveBodySecrets } from '../../../lambdas/core/resolve-secrets.ts';

const PROJECT = 'p1';
const AT: SourceLocation = { file: 'projects/p1.yaml', line: 12, column: 20 };
const TEMPLATE_AT: SourceLocation = { file: 'templates/t.yaml', line: 7, column: 30 };

const notifications = (ref: string) => [
  { typeName: 'EMAIL', emailAddress: 'a@example.com' },
  { typeName: 'WEBHOOK', webhookUrl: { secretRef: ref }, webhookSecret: { secretRef: 'hook#secret' } },
];

function config(ref = 'hook#url', sources = { 'notifications[1].webhookUrl': AT }): DesiredAlertConfig {
  return {
    key: 'k',
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    matchers: [],
    notifications: notifications(ref) as DesiredAlertConfig['notifications'],
    source: { file: AT.file, line: 1, column: 1 },
    secretSources: { ...sources, 'notifications[1].webhookSecret': TEMPLATE_AT },
  };
}

function state(configs: DesiredAlertConfig[], files: Record<string, string>): DesiredState {
  return {
    projects: [
      { name: 'p', projectId: PROJECT, alertConfigs: configs, prune: false, protect: [], release: [], source: AT },
    ],
    organizations: [],
    settings: {
      mode: 'apply',
      prune: { maxDeletes: 5, allowEmpty: false },
      archive: { versionManifest: true, usage: true },
    },
    files: Object.entries(files).map(([path, sha256]) => ({ path, sha256 })),
    digest: 'd',
  };
}

const PLANNED = { 'projects/p1.yaml': 'aaa', 'templates/t.yaml': 'ttt' };
const plan = { desired: { digest: 'd', files: state([], PLANNED).files } } as Plan;

const change: Change = {
  target: { type: 'project', id: PROJECT, name: 'p' },
  kind: 'alertConfig',
  key: 'k',
  action: 'create',
  after: { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: notifications('hook#url') },
  fields: [],
  reason: '',
};

describe('secretLocator', () => {
  it.each([
    {
      name: 'every file as planned: both references located',
      now: state([config()], PLANNED),
      sources: { 'notifications[1].webhookUrl': AT, 'notifications[1].webhookSecret': TEMPLATE_AT },
    },
    {
      name: 'the file of one reference changed: only the other is located',
      now: state([config()], { ...PLANNED, 'projects/p1.yaml': 'bbb' }),
      sources: { 'notifications[1].webhookSecret': TEMPLATE_AT },
    },
    {
      name: 'the reference at that notification is another one now: not located',
      now: state([config('hook#other')], PLANNED),
      sources: { 'notifications[1].webhookSecret': TEMPLATE_AT },
    },
    {
      name: 'a file the plan did not read: not located',
      now: state([config('hook#url', { 'notifications[1].webhookUrl': { ...AT, file: 'projects/new.yaml' } })], {
        ...PLANNED,
        'projects/new.yaml': 'nnn',
      }),
      sources: { 'notifications[1].webhookSecret': TEMPLATE_AT },
    },
    { name: 'the key is gone from the project: nothing located', now: state([], PLANNED), sources: {} },
  ])('$name', async ({ now, sources }) => {
    const places = await secretLocator(plan, async () => now)(change);
    expect(places).toEqual({ sources, notLocated: CHANGED_SINCE_PLAN });
  });

  it('a desired state that cannot be loaded locates nothing and says why; it is loaded once', async () => {
    let loads = 0;
    const locate = secretLocator(plan, async () => {
      loads++;
      throw new Error('it has 2 problem(s); run validate');
    });
    const expected = {
      notLocated: 'the desired state could not be loaded to locate it: it has 2 problem(s); run validate',
    };
    expect(await locate(change)).toEqual(expected);
    expect(await locate(change)).toEqual(expected);
    expect(loads).toBe(1);
  });
});

describe('resolveBodySecrets with a locator', () => {
  const failing: SecretResolver = {
    resolve: async (ref) => {
      if (ref === 'hook#url') throw new Error(`no ${ref}`);
      return 'a-secret-value';
    },
  };
  const body = change.after as DesiredAlertBody;

  it('asks for the places only when a reference fails, and names the place then', async () => {
    let asked = 0;
    const locate = async () => {
      asked++;
      return { sources: { 'notifications[1].webhookUrl': AT } };
    };
    const working: SecretResolver = {
      resolve: async (ref) => (ref === 'hook#url' ? 'https://hooks.example.invalid/h' : 'a-secret-value'),
    };
    const fine = await resolveBodySecrets(body, working, 'k', locate);
    expect(fine.ok).toBe(true);
    expect(asked).toBe(0);
    const bad = await resolveBodySecrets(body, failing, 'k', locate);
    expect(bad).toEqual({
      ok: false,
      reason:
        'alert config "k": secret reference hook#url (notifications[WEBHOOK].webhookUrl) at projects/p1.yaml:12:20 could not be resolved: no hook#url',
    });
    expect(asked).toBe(1);
  });

  it('says why a reference is not located instead of naming a place', async () => {
    const bad = await resolveBodySecrets(body, failing, 'k', async () => ({ sources: {}, notLocated: 'because' }));
    expect(bad).toEqual({
      ok: false,
      reason:
        'alert config "k": secret reference hook#url (notifications[WEBHOOK].webhookUrl), not located (because), could not be resolved: no hook#url',
    });
  });
});
