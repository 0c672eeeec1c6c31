// Scenario: AlertTemplates merge into projects by alert key; the project's own entry wins and template origin is kept.
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../../lambdas/core/desired/index.ts';
import type { DesiredState } from '../../../lambdas/core/model.ts';
import { MemorySource } from './memory-source.ts';

const GROUP = '[{typeName: GROUP, roles: [GROUP_OWNER], intervalMin: 5}]';
const TEMPLATES = `apiVersion: opsman-gitops/v1
kind: AlertTemplate
metadata: {name: baseline}
spec:
  alertConfigs:
    - {key: host-down, eventTypeName: HOST_DOWN, notifications: ${GROUP}}
    - {key: no-primary, eventTypeName: NO_PRIMARY, notifications: ${GROUP}}
---
apiVersion: opsman-gitops/v1
kind: AlertTemplate
metadata: {name: replica}
spec:
  alertConfigs:
    - {key: elections, eventTypeName: TOO_MANY_ELECTIONS, enabled: false, notifications: ${GROUP}}
`;

function project(templates: string, own: string): string {
  return `apiVersion: opsman-gitops/v1
kind: Project
metadata: {name: p1, projectId: 5e2211c17a3e5a48f5497de3}
spec:
  alertTemplates: ${templates}
  alertConfigs: ${own}
`;
}

async function load(files: Record<string, string>): Promise<DesiredState> {
  const result = await loadDesiredState(new MemorySource(files));
  if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
  return result.state;
}

describe('template merge', () => {
  it('merges every template entry after the project’s own, keeping the template name and source', async () => {
    const state = await load({ 't.yaml': TEMPLATES, 'p.yaml': project('[baseline, replica]', '[]') });
    const configs = state.projects[0]?.alertConfigs ?? [];
    expect(configs.map((c) => [c.key, c.template, c.source.file, c.source.line, c.enabled])).toEqual([
      ['host-down', 'baseline', 't.yaml', 6, true],
      ['no-primary', 'baseline', 't.yaml', 7, true],
      ['elections', 'replica', 't.yaml', 14, false],
    ]);
  });

  it('lets the project’s own entry with the same key win', async () => {
    const own = `\n    - key: no-primary\n      eventTypeName: NO_PRIMARY\n      notifications: [{typeName: EMAIL, emailAddress: dba@acme.example}]`;
    const state = await load({ 't.yaml': TEMPLATES, 'p.yaml': project('[baseline]', own) });
    const configs = state.projects[0]?.alertConfigs ?? [];
    expect(configs.map((c) => c.key)).toEqual(['no-primary', 'host-down']);
    const noPrimary = configs.find((c) => c.key === 'no-primary');
    expect(noPrimary?.template).toBeUndefined();
    expect(noPrimary?.source).toEqual({ file: 'p.yaml', line: 7, column: 7 });
    expect(noPrimary?.notifications).toEqual([{ typeName: 'EMAIL', emailAddress: 'dba@acme.example' }]);
  });

  it('shares one template between projects without mixing them', async () => {
    const second = project('[replica]', '[]').replace(
      'name: p1, projectId: 5e2211c17a3e5a48f5497de3',
      'name: p2, projectId: 5e2211c17a3e5a48f5497de4',
    );
    const state = await load({ 't.yaml': TEMPLATES, 'a.yaml': project('[baseline]', '[]'), 'b.yaml': second });
    expect(state.projects.map((p) => [p.name, p.alertConfigs.map((c) => c.key)])).toEqual([
      ['p1', ['host-down', 'no-primary']],
      ['p2', ['elections']],
    ]);
  });

  it('lets protect name a key that only a template gives', async () => {
    const text = project('[baseline]', '[]').concat('  protect: [host-down]\n');
    const state = await load({ 't.yaml': TEMPLATES, 'p.yaml': text });
    expect(state.projects[0]?.protect).toEqual(['host-down']);
  });

  it('refuses the same key from two templates, pointing at the second template name', async () => {
    const clash = TEMPLATES.replace('key: elections', 'key: host-down');
    const result = await loadDesiredState(
      new MemorySource({ 't.yaml': clash, 'p.yaml': project('[baseline, replica]', '[]') }),
    );
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues.map((i) => [i.file, i.line, i.path, i.message])).toEqual([
      [
        'p.yaml',
        5,
        'spec.alertTemplates[1]',
        'alert key "host-down" comes from both template baseline and template replica; give project p1 its own "host-down" entry or rename one',
      ],
    ]);
  });

  it('still reports a clash between templates listed after an unknown one (every problem in one run)', async () => {
    const clash = TEMPLATES.replace('key: elections', 'key: host-down');
    const result = await loadDesiredState(
      new MemorySource({ 't.yaml': clash, 'p.yaml': project('[missing, baseline, replica]', '[]') }),
    );
    expect(result.ok ? [] : result.issues.map((i) => i.message)).toEqual([
      'unknown template "missing" (known templates: baseline, replica)',
      'alert key "host-down" comes from both template baseline and template replica; give project p1 its own "host-down" entry or rename one',
    ]);
  });

  async function issues(files: Record<string, string>): Promise<string[]> {
    const result = await loadDesiredState(new MemorySource(files));
    return result.ok ? [] : result.issues.map((i) => `${i.file}:${i.line}:${i.column}: ${i.message}`);
  }

  it.each([
    [
      'an apiVersion of another version',
      'apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: replica}',
      'apiVersion: opsman-gitops/v2\nkind: AlertTemplate\nmetadata: {name: replica}',
      't.yaml:9:13: unknown apiVersion "opsman-gitops/v2": this version of opsman-gitops reads "opsman-gitops/v1"',
    ],
    [
      'a misspelt kind',
      'kind: AlertTemplate\nmetadata: {name: replica}',
      'kind: AlertTemplat\nmetadata: {name: replica}',
      't.yaml:10:7: unknown kind "AlertTemplat": expected one of Project, AlertTemplate, Organization, Settings; did you mean "AlertTemplate"?',
    ],
    // Refused for its YAML, the template is never read as a document: before, each project was also told it is unknown.
    [
      'a duplicate key in one of its alert configs',
      'enabled: false,',
      'enabled: false, enabled: true,',
      't.yaml:14:75: duplicate key "enabled": each key may appear once in a mapping; the first "enabled" is on line 14, column 59',
    ],
    [
      'a YAML syntax error in one of its alert configs',
      'eventTypeName: TOO_MANY_ELECTIONS,',
      'eventTypeName: TOO_MANY_ELECTIONS: x,',
      't.yaml:14:39: YAML syntax error: Block collections are not allowed within flow collections',
    ],
  ])(
    'a template refused for %s is reported there alone, not also as unknown to each project naming it',
    async (_name, from, to, issue) => {
      const broken = TEMPLATES.replace(from, to);
      expect(broken).not.toBe(TEMPLATES);
      const second = project('[baseline, replica]', '[]').replace(
        'name: p1, projectId: 5e2211c17a3e5a48f5497de3',
        'name: p2, projectId: 5e2211c17a3e5a48f5497de4',
      );
      expect(
        await issues({ 't.yaml': broken, 'a.yaml': project('[baseline, replica]', '[]'), 'b.yaml': second }),
      ).toEqual([issue]);
    },
  );

  it('still reports a template name that no document declares, beside a refused one', async () => {
    const broken = TEMPLATES.replace(
      'kind: AlertTemplate\nmetadata: {name: replica}',
      'kind: AlertTemplat\nmetadata: {name: replica}',
    );
    const found = await issues({ 't.yaml': broken, 'p.yaml': project('[baseline, replika]', '[]') });
    expect(found[0]).toBe('p.yaml:5:30: unknown template "replika" (known templates: baseline)');
    expect(found).toHaveLength(2);
  });

  it('says a template cannot list templates, and where they go instead', async () => {
    const nested = TEMPLATES.replace(
      'metadata: {name: replica}\nspec:\n',
      'metadata: {name: replica}\nspec:\n  alertTemplates: [baseline]\n',
    );
    expect(await issues({ 't.yaml': nested, 'p.yaml': project('[replica]', '[]') })).toEqual([
      't.yaml:13:3: unknown field "alertTemplates" in spec: a template cannot list templates; list both in each project\'s spec.alertTemplates (their keys must differ)',
    ]);
  });
});
