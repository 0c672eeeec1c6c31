// Scenario: positions stay exact when the loader keeps values instead of syntax trees: model sources on the happy path, and issues in later documents of a file (located by re-parsing it).
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../../lambdas/core/desired/index.ts';
import { MemorySource } from './memory-source.ts';

const GROUP = '[{typeName: GROUP, roles: [GROUP_OWNER], intervalMin: 5}]';

const PROJECT = `# payments, owned by the DBA team

apiVersion: opsman-gitops/v1
kind: Project
metadata: {name: p1, projectId: 5e2211c17a3e5a48f5497de3}
spec:
  alertTemplates: [baseline]
  alertConfigs:
    - key: one
      eventTypeName: HOST_DOWN
      notifications: ${GROUP}
    -   {key: two, eventTypeName: NO_PRIMARY, notifications: ${GROUP}}
    - &three
      key: three
      eventTypeName: TOO_MANY_ELECTIONS
      notifications: ${GROUP}
`;

const TEMPLATES = `apiVersion: opsman-gitops/v1
kind: Settings
spec: {mode: plan}
---
# the shared template
apiVersion: opsman-gitops/v1
kind: AlertTemplate
metadata: {name: baseline}
spec:
  alertConfigs:
      - {key: host-down, eventTypeName: HOST_DOWN, notifications: ${GROUP}}
`;

describe('source positions without syntax trees', () => {
  it('gives every project and alert config the position of its value', async () => {
    const result = await loadDesiredState(new MemorySource({ 'p.yaml': PROJECT, 't.yaml': TEMPLATES }));
    if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
    const [project] = result.state.projects;
    expect(project?.source).toEqual({ file: 'p.yaml', line: 3, column: 1 });
    expect(project?.alertConfigs.map((c) => [c.key, c.source])).toEqual([
      ['one', { file: 'p.yaml', line: 9, column: 7 }],
      ['two', { file: 'p.yaml', line: 12, column: 9 }],
      ['three', { file: 'p.yaml', line: 14, column: 7 }],
      ['host-down', { file: 't.yaml', line: 11, column: 9 }],
    ]);
  });

  it.each<{ name: string; files: Record<string, string>; expected: (string | number)[][] }>([
    {
      name: 'a schema issue in the third document of a file',
      files: {
        'p.yaml': `apiVersion: opsman-gitops/v1
kind: Organization
metadata: {name: acme, orgId: 5e2211c17a3e5a48f5497de0}
spec: {mode: plan}
---
apiVersion: opsman-gitops/v1
kind: Organization
metadata: {name: globex, orgId: 5e2211c17a3e5a48f5497de1}
spec: {}
---
apiVersion: opsman-gitops/v1
kind: Project
metadata: {name: p1, projectId: 5e2211c17a3e5a48f5497de3}
spec:
  alertConfigs:
    - key: one
      eventTypeName: HOST_DOWN
      enabled: "yes"
      notifications: ${GROUP}
`,
      },
      expected: [['p.yaml', 18, 16, 'spec.alertConfigs[0].enabled']],
    },
    {
      name: 'a duplicate alert key pointing back into another document of the same file',
      files: {
        'p.yaml': PROJECT.replace('key: three', 'key: one'),
        't.yaml': TEMPLATES,
      },
      expected: [['p.yaml', 14, 12, 'spec.alertConfigs[2].key', 'p.yaml:9']],
    },
    {
      name: 'a duplicate project id across files',
      files: {
        'a.yaml': PROJECT,
        'b.yaml': `\n\n${PROJECT.replace('name: p1', 'name: p2')}`,
        't.yaml': TEMPLATES,
      },
      expected: [['b.yaml', 7, 33, 'metadata.projectId', 'a.yaml:5']],
    },
  ])('locates $name exactly', async ({ files, expected }) => {
    const result = await loadDesiredState(new MemorySource(files));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.file, i.line, i.column, i.path])).toEqual(expected.map((e) => e.slice(0, 4)));
    expected.forEach((e, i) => {
      if (e[4] !== undefined) expect(result.issues[i]?.message).toContain(`at ${e[4]}`);
    });
  });

  it('still finds explicit tags, in any form, wherever a "!" appears', async () => {
    const org = (name: string, id: string) => `apiVersion: opsman-gitops/v1
kind: Organization
metadata: {name: ${name}, orgId: ${id}}
spec: {}
`;
    const files = {
      'plain.yaml': `# no tag here!\n${org('acme', '5e2211c17a3e5a48f5497de0')}`,
      'verbatim.yaml': `${org('globex', '5e2211c17a3e5a48f5497de1')}---\n${org('initech', '!<tag:yaml.org,2002:str> 5e2211c17a3e5a48f5497de2')}`,
    };
    const result = await loadDesiredState(new MemorySource(files));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => `${i.file}:${i.line}:${i.column}: ${i.message}`)).toEqual([
      'verbatim.yaml:8:59: YAML tags are not allowed (found "!!str"); write plain values',
    ]);
  });
});
