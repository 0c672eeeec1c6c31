// Scenario: a secret reference is exactly `<secret id>#<json key>`; parseSecretRef and the schema agree on that form,
// and secretPlaces finds each reference a notification holds.
import { describe, expect, it } from 'vitest';
import { DESIRED_STATE_SCHEMA } from '../../../lambdas/core/desired/schema.ts';
import { secretPlaces, secretSourceKey } from '../../../lambdas/core/desired/secret-places.ts';
import { formatSecretRef, parseSecretRef, SECRET_REF_PATTERN } from '../../../lambdas/core/desired/secret-ref.ts';

describe('secret references', () => {
  it.each([
    ['prod/opsman-alerts#webhookUrl', { id: 'prod/opsman-alerts', key: 'webhookUrl' }],
    ['a+b=c.d@e-f_g#k.1-x_y', { id: 'a+b=c.d@e-f_g', key: 'k.1-x_y' }],
  ])('%s parses to its id and key, and formats back', (ref, parsed) => {
    expect(parseSecretRef(ref)).toEqual(parsed);
    expect(formatSecretRef(parsed.id, parsed.key)).toBe(ref);
  });

  it.each([
    'prod/alerts#key trailing',
    'prod/alerts#key\n',
    ' prod/alerts#key',
    'https://hooks.example/T0#frag',
    'arn:aws:secretsmanager:eu-west-1:1:secret:x#k',
    'no-key#',
    '#no-id',
    'a#b#c',
    'plain-text',
  ])('%j is not a reference (nothing before or after the form is ignored)', (ref) => {
    expect(parseSecretRef(ref)).toBeUndefined();
  });

  it('the schema pattern is the same form', () => {
    const defs = (
      DESIRED_STATE_SCHEMA as { $defs: Record<string, { properties: Record<string, { pattern: string }> }> }
    ).$defs;
    expect(defs.SecretRef?.properties.secretRef?.pattern).toBe(SECRET_REF_PATTERN.source);
  });
});

describe('secretPlaces', () => {
  it('finds every {secretRef} mapping directly under a notification, several per notification, in document order', () => {
    const value = {
      spec: {
        alertConfigs: [
          { notifications: [{ typeName: 'EMAIL', emailAddress: 'a@example.com' }] },
          {
            notifications: [
              { typeName: 'SLACK', channelName: 'ops', apiToken: { secretRef: 's#token' } },
              {
                typeName: 'WEBHOOK',
                webhookUrl: { secretRef: 's#url' },
                webhookSecret: { secretRef: 's#secret' },
                nested: { deeper: { secretRef: 's#not-a-place' } },
              },
            ],
          },
        ],
      },
    };
    expect(secretPlaces(value).map((p) => [secretSourceKey(p.notification, p.field), p.path.join('.')])).toEqual([
      ['notifications[0].apiToken', 'spec.alertConfigs.1.notifications.0.apiToken.secretRef'],
      ['notifications[1].webhookUrl', 'spec.alertConfigs.1.notifications.1.webhookUrl.secretRef'],
      ['notifications[1].webhookSecret', 'spec.alertConfigs.1.notifications.1.webhookSecret.secretRef'],
    ]);
  });
});
