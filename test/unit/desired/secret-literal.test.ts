// Scenario: secret-bearing notification fields given as literals are refused, and the literal never reaches the output.
import { describe, expect, it } from 'vitest';
import { formatIssues, loadDesiredState } from '../../../lambdas/core/desired/index.ts';
import { SECRET_NOTIFICATION_FIELDS } from '../../../lambdas/opsman/types.ts';
import { MemorySource } from './memory-source.ts';

const SECRET = 'S3cr3t-Value-That-Must-Not-Leak-7f3c2a9e';

function doc(field: string, value: string): string {
  return `apiVersion: opsman-gitops/v1
kind: Project
metadata: {name: p1, projectId: 5e2211c17a3e5a48f5497de3}
spec:
  alertConfigs:
    - key: k
      eventTypeName: HOST_DOWN
      notifications:
        - typeName: WEBHOOK
          webhookUrl: {secretRef: "hooks#url"}
          ${field}: ${value}
`;
}

describe('secret literals', () => {
  it.each(SECRET_NOTIFICATION_FIELDS.filter((f) => f !== 'webhookUrl'))(
    'refuses a literal %s without echoing it',
    async (field) => {
      const result = await loadDesiredState(new MemorySource({ 'p.yaml': doc(field, SECRET) }));
      expect(result.ok).toBe(false);
      const issues = result.ok ? [] : result.issues;
      const secretIssue = issues.find((i) => i.found === 'a literal string');
      expect(secretIssue).toMatchObject({
        file: 'p.yaml',
        path: `spec.alertConfigs[0].notifications[0].${field}`,
        line: 11,
        column: 11 + field.length + 2,
        expected: '{secretRef: "<secret id>#<json key>"}',
        found: 'a literal string',
      });
      expect(secretIssue?.message).toContain('secrets do not belong in git');
      expect(secretIssue?.message).toContain(`write ${field}: {secretRef: "<secret id>#<json key>"}`);
      const everything = JSON.stringify(issues) + formatIssues(issues);
      expect(everything).not.toContain(SECRET);
      expect(everything).not.toContain('7f3c2a9e');
    },
  );

  it.each([
    ['a number', '12345678901234'],
    ['a malformed secretRef', `{secretRef: "${SECRET}"}`],
    ['a misspelled secretRef key', `{secretref: "${SECRET}"}`],
    ['a list', `[${SECRET}]`],
  ])('never echoes %s in a secret field', async (_what, value) => {
    const result = await loadDesiredState(new MemorySource({ 'p.yaml': doc('webhookSecret', value) }));
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues;
    const everything = JSON.stringify(issues) + formatIssues(issues);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('12345678901234');
  });

  it('accepts a secretRef and keeps it as a reference in the state', async () => {
    const result = await loadDesiredState(
      new MemorySource({ 'p.yaml': doc('webhookSecret', '{secretRef: "hooks#secret"}') }),
    );
    expect(result.ok && result.state.projects[0]?.alertConfigs[0]?.notifications[0]).toEqual({
      typeName: 'WEBHOOK',
      webhookUrl: { secretRef: 'hooks#url' },
      webhookSecret: { secretRef: 'hooks#secret' },
    });
  });
});
