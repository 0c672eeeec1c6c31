// Scenario: the example desired-state/ loads with zero issues, matches the example world, and its secrets and schema line up.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsDesiredStateSource } from '../../../lambdas/adapters/local/desired-source-fs.ts';
import { FileSecretResolver } from '../../../lambdas/adapters/local/secrets-file.ts';
import { DESIRED_STATE_SCHEMA, loadDesiredState, renderDesiredState } from '../../../lambdas/core/desired/index.ts';
import type { DesiredState } from '../../../lambdas/core/model.ts';
import { MemorySource } from './memory-source.ts';

const ROOT = path.join(import.meta.dirname, '../../../desired-state');

async function loadExample(): Promise<{ state: DesiredState; summary: string }> {
  const result = await loadDesiredState(new FsDesiredStateSource(ROOT));
  if (!result.ok) throw new Error(JSON.stringify(result.issues, null, 2));
  return result;
}

function secretRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) secretRefs(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'secretRef' && typeof inner === 'string') out.push(inner);
      else secretRefs(inner, out);
    }
  }
  return out;
}

describe('the example desired state', () => {
  it('loads with zero issues and says what it loaded', async () => {
    const { summary, state } = await loadExample();
    expect(summary).toBe('loaded 4 projects, 2 organizations, 2 templates, 27 alert configs from 7 files');
    expect(state.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(state.files.map((f) => f.path)).toEqual([
      'manifests/approved.json',
      'organizations.yaml',
      'projects/analytics.yaml',
      'projects/payments.yaml',
      'projects/search.yaml',
      'settings.yaml',
      'templates/baseline.yaml',
      'templates/replica-health.yaml',
    ]);
  });

  it('manages the example world’s projects and organizations, not ledger-prod', async () => {
    const { state } = await loadExample();
    const projects = Object.fromEntries(
      state.projects.map((p) => [p.name, [p.projectId, p.orgId, p.defaultServerType]]),
    );
    expect(projects).toEqual({
      'payments-prod': ['5e2211c17a3e5a48f5497de3', '5e2211c17a3e5a48f5497de0', 'PRODUCTION_SERVER'],
      'payments-staging': ['5e2211c17a3e5a48f5497de4', '5e2211c17a3e5a48f5497de0', 'TEST_SERVER'],
      'search-prod': ['5e2211c17a3e5a48f5497de5', '5e2211c17a3e5a48f5497de0', 'PRODUCTION_SERVER'],
      'analytics-dev': ['5e2211c17a3e5a48f5497de6', '5e2211c17a3e5a48f5497de1', 'DEV_SERVER'],
    });
    expect(state.organizations.map((o) => [o.name, o.orgId, o.defaultServerType])).toEqual([
      ['acme', '5e2211c17a3e5a48f5497de0', 'PRODUCTION_SERVER'],
      ['globex', '5e2211c17a3e5a48f5497de1', 'TEST_SERVER'],
    ]);
    expect(JSON.stringify(state)).not.toContain('5e2211c17a3e5a48f5497de7');
  });

  it('gives payments-prod every feature the demo shows', async () => {
    const { state } = await loadExample();
    const prod = state.projects.find((p) => p.name === 'payments-prod');
    expect(prod?.mode).toBe('apply');
    expect(prod?.prune).toBe(true);
    expect(prod?.protect).toEqual(['no-primary', 'primary-connections-high']);
    expect(prod?.auditLogRotation).toMatchObject({ enforce: true, numTotal: 20 });
    const types = prod?.alertConfigs.flatMap((c) => c.notifications.map((n) => n.typeName));
    expect(new Set(types)).toEqual(new Set(['GROUP', 'WEBHOOK', 'SLACK', 'TEAM', 'EMAIL', 'SMS']));
    const noPrimary = prod?.alertConfigs.find((c) => c.key === 'no-primary');
    expect(noPrimary?.template).toBeUndefined();
    expect(
      prod?.alertConfigs.some((c) => c.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD' && c.template === undefined),
    ).toBe(true);
    const search = state.projects.find((p) => p.name === 'search-prod');
    expect(search?.auditLogRotation?.enforce).toBe(false);
    expect(state.settings).toMatchObject({
      mode: 'apply',
      prune: { maxDeletes: 5, allowEmpty: false },
      archive: { versionManifest: true, usage: true },
    });
    const pin = state.settings.versionManifest?.pin;
    expect(pin?.path).toBe('manifests/approved.json');
    expect(pin?.text).toBe(readFileSync(path.join(ROOT, 'manifests/approved.json'), 'utf8'));
    expect(JSON.parse(pin?.text ?? '{}')).toMatchObject({ updated: expect.any(Number), versions: expect.any(Array) });
  });

  it('has a fake value in local-secrets.json for every secretRef, and no unused entry', async () => {
    const { state } = await loadExample();
    const refs = [...new Set(secretRefs(state.projects))].sort();
    expect(refs.length).toBeGreaterThanOrEqual(7);
    const resolver = new FileSecretResolver(path.join(ROOT, 'local-secrets.json'));
    for (const ref of refs) expect(await resolver.resolve(ref)).toMatch(/fake|FAKE/);
    const file = JSON.parse(readFileSync(path.join(ROOT, 'local-secrets.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    const declared = Object.entries(file)
      .flatMap(([id, keys]) => Object.keys(keys).map((key) => `${id}#${key}`))
      .sort();
    expect(declared).toEqual(refs);
  });

  it('publishes the schema file equal to DESIRED_STATE_SCHEMA', () => {
    const file = path.join(ROOT, 'schema/opsman-gitops.schema.json');
    // UPDATE_GOLDEN=1 rewrites it (then `npx biome format --write desired-state/schema`).
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, `${JSON.stringify(DESIRED_STATE_SCHEMA, null, 2)}\n`);
    const published = JSON.parse(readFileSync(file, 'utf8'));
    expect(published).toEqual(DESIRED_STATE_SCHEMA);
  });

  it('references the schema from every YAML file with a path that resolves', () => {
    const yamlFiles = (readdirSync(ROOT, { recursive: true }) as string[]).filter((f) => /\.ya?ml$/.test(f));
    expect(yamlFiles.length).toBe(7);
    for (const file of yamlFiles) {
      const first = readFileSync(path.join(ROOT, file), 'utf8').split('\n')[0] ?? '';
      const match = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
      expect(match, file).not.toBeNull();
      const target = path.resolve(path.dirname(path.join(ROOT, file)), match?.[1] ?? '');
      expect(target).toBe(path.join(ROOT, 'schema/opsman-gitops.schema.json'));
    }
  });

  it('renders back to YAML that loads to the same projects, organizations and settings', async () => {
    const { state } = await loadExample();
    const files = {
      'all.yaml': renderDesiredState(state),
      'manifests/approved.json': readFileSync(path.join(ROOT, 'manifests/approved.json')),
    };
    const again = await loadDesiredState(new MemorySource(files));
    if (!again.ok) throw new Error(JSON.stringify(again.issues));
    const strip = (s: DesiredState) =>
      JSON.parse(
        JSON.stringify({ p: s.projects, o: s.organizations, s: s.settings }, (k, v) =>
          k === 'source' || k === 'secretSources' || k === 'template' ? undefined : v,
        ),
      );
    expect(strip(again.state)).toEqual(strip(state));
  });
});
