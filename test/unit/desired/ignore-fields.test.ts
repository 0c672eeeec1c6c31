// Scenario: an alert config's ignoreFields loads (from a project or a template entry) and renders back; an unknown
// member name, notifications, a member's own field, a duplicate or a non-list is refused at file:line:column.
import { describe, expect, it } from 'vitest';
import { loadDesiredState, renderDesiredState, type ValidationIssue } from '../../../lambdas/core/desired/index.ts';
import { MemorySource, projectYaml } from './memory-source.ts';

/** A project whose one alert config (line 8 its `- key:`) ends with `ignore` (line 11 when one line). */
function withIgnore(ignore: string): string {
  return projectYaml(
    `  alertConfigs:\n    - key: a1\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n${ignore}`,
  );
}

async function issuesOf(files: Record<string, string>): Promise<ValidationIssue[]> {
  const result = await loadDesiredState(new MemorySource(files));
  return result.ok ? [] : result.issues;
}

describe('ignoreFields in the desired state', () => {
  it('loads the list and renders it back', async () => {
    const result = await loadDesiredState(
      new MemorySource({ 'p.yaml': withIgnore('      ignoreFields: [enabled, matchers]\n') }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.state.projects[0]?.alertConfigs[0]?.ignoreFields).toEqual(['enabled', 'matchers']);
    expect(renderDesiredState(result.state)).toContain('ignoreFields:');
  });

  it('an empty list ignores nothing', async () => {
    const result = await loadDesiredState(new MemorySource({ 'p.yaml': withIgnore('      ignoreFields: []\n') }));
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.state.projects[0]?.alertConfigs[0]?.ignoreFields).toBeUndefined();
  });

  it('is accepted on an AlertTemplate entry and merged with it', async () => {
    const template = `apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: base}\nspec:\n  alertConfigs:\n    - key: t1\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n      ignoreFields: [enabled]\n`;
    const result = await loadDesiredState(
      new MemorySource({ 't.yaml': template, 'p.yaml': projectYaml('  alertTemplates: [base]\n') }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const config = result.state.projects[0]?.alertConfigs.find((c) => c.key === 't1');
    expect(config?.ignoreFields).toEqual(['enabled']);
    expect(config?.template).toBe('base');
  });

  const refused: { name: string; yaml: string; line: number; column: number; path: string; message: RegExp }[] = [
    {
      name: 'a misspelt name, with did-you-mean and the allowed list',
      yaml: '      ignoreFields: [enabled, treshold]\n',
      line: 11,
      column: 31,
      path: 'spec.alertConfigs[0].ignoreFields[1]',
      message:
        /must be one of enabled, threshold, metricThreshold, matchers; found "treshold"; did you mean "threshold"\?/,
    },
    {
      name: 'notifications, saying why',
      yaml: '      ignoreFields:\n        - notifications\n',
      line: 12,
      column: 11,
      path: 'spec.alertConfigs[0].ignoreFields[0]',
      message: /notifications cannot be ignored: .*full PUT.*redacted/,
    },
    {
      name: "a notification's own field, saying why",
      yaml: '      ignoreFields: ["notifications[0].intervalMin"]\n',
      line: 11,
      column: 22,
      path: 'spec.alertConfigs[0].ignoreFields[0]',
      message: /found "notifications\[0\]\.intervalMin" \(notifications cannot be ignored: .*full PUT.*redacted\)/,
    },
    {
      name: "a member's own field",
      yaml: '      ignoreFields: [threshold.threshold]\n',
      line: 11,
      column: 22,
      path: 'spec.alertConfigs[0].ignoreFields[0]',
      message: /ignoreFields names whole members: write threshold/,
    },
    {
      name: 'a name listed twice',
      yaml: '      ignoreFields: [enabled, matchers, enabled]\n',
      line: 11,
      column: 22,
      path: 'spec.alertConfigs[0].ignoreFields[0]',
      message: /lists "enabled" twice/,
    },
    {
      name: 'not a list',
      yaml: '      ignoreFields: enabled\n',
      line: 11,
      column: 21,
      path: 'spec.alertConfigs[0].ignoreFields',
      message: /must be a list; found "enabled"/,
    },
    {
      name: 'a list of something else than names',
      yaml: '      ignoreFields: [{enabled: true}]\n',
      line: 11,
      column: 22,
      path: 'spec.alertConfigs[0].ignoreFields[0]',
      message: /must be one of enabled, threshold, metricThreshold, matchers; found a mapping/,
    },
  ];
  // withIgnore's config is a HOST_DOWN alert: neither threshold member.
  const metric = (ignore: string) =>
    projectYaml(
      `  alertConfigs:\n    - key: a1\n      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n      metricThreshold: {metricName: CONNECTIONS, operator: GREATER_THAN, threshold: 5000, units: RAW}\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n${ignore}`,
    );
  it.each([
    [
      'threshold on a metric alert, suggesting metricThreshold',
      metric('      ignoreFields: [enabled, threshold]\n'),
      12,
      'spec.alertConfigs[0].ignoreFields[1]: event type OUTSIDE_METRIC_THRESHOLD has no threshold, so ignoring it ignores nothing; did you mean "metricThreshold"?',
    ],
    [
      'metricThreshold on an alert that has none',
      withIgnore('      ignoreFields: [metricThreshold]\n'),
      11,
      'spec.alertConfigs[0].ignoreFields[0]: event type HOST_DOWN has no metricThreshold, so ignoring it ignores nothing',
    ],
  ])('refuses a threshold member the event type never has: %s', async (_name, yaml, line, message) => {
    const issues = await issuesOf({ 'p.yaml': yaml });
    expect(issues.map((i) => [i.file, i.line, i.path, i.message])).toEqual([
      ['p.yaml', line, message.split(':')[0], message],
    ]);
  });

  it('accepts the threshold member the event type has', async () => {
    expect(await issuesOf({ 'p.yaml': metric('      ignoreFields: [metricThreshold]\n') })).toEqual([]);
  });

  for (const c of refused) {
    it(`refuses ${c.name}`, async () => {
      const issues = await issuesOf({ 'p.yaml': withIgnore(c.yaml) });
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ file: 'p.yaml', line: c.line, column: c.column, path: c.path });
      expect(issues[0]?.message).toMatch(c.message);
    });
  }
});
