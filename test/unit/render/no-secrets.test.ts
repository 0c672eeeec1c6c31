// Scenario: a plan carrying secretRefs (and, defensively, values under secret field names) never prints a value.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FieldChange } from '../../../lambdas/core/model.ts';
import { renderPlanJson } from '../../../lambdas/core/render/json.ts';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { formatFieldChange, formatValue, maskSecrets, UNMODELLED_NOTE } from '../../../lambdas/core/render/values.ts';
import { change, plan } from '../../helpers/cli-plans.ts';

const SECRETS = JSON.parse(
  readFileSync(new URL('../../../desired-state/local-secrets.json', import.meta.url), 'utf8'),
) as Record<string, Record<string, string>>;
const VALUES = Object.values(SECRETS).flatMap((inner) => Object.values(inner));

/** A plan as the reconciler makes it (secretRefs), plus fields a buggy producer might fill with values. */
function planWithSecrets() {
  const [url, secret, token] = VALUES as [string, string, string];
  return plan([
    change({
      key: 'no-primary',
      action: 'create',
      after: {
        eventTypeName: 'NO_PRIMARY',
        notifications: [
          {
            typeName: 'WEBHOOK',
            webhookUrl: { secretRef: 'opsman/notify#payments-webhook-url' },
            webhookSecret: { secretRef: 'opsman/notify#payments-webhook-secret' },
          },
          { typeName: 'SLACK', apiToken: token, channelName: '#x' },
        ],
      },
    }),
    change({
      key: 'k2',
      action: 'update',
      id: 'i1',
      fields: [
        { path: 'notifications[WEBHOOK].webhookUrl', before: '(secret)', after: url },
        { path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'changed', before: secret, after: secret },
      ],
    }),
    change({
      key: 'k3',
      action: 'delete',
      id: 'i2',
      before: { notifications: [{ typeName: 'SLACK', apiToken: token }] },
    }),
  ]);
}

describe('no secret value reaches rendered output', () => {
  it('the secrets file has values to look for', () => {
    expect(VALUES.length).toBeGreaterThanOrEqual(5);
  });

  it.each([
    ['text', () => renderPlanText(planWithSecrets())],
    ['markdown', () => renderPlanMarkdown(planWithSecrets())],
  ])('%s output holds no secret value and no value-looking string', (_name, render) => {
    const text = render();
    for (const value of VALUES) expect(text).not.toContain(value);
    expect(text).not.toMatch(/https:\/\/hooks|xoxb-|fake-webhook|FAKE/);
    expect(text).toContain('(secret changed)');
    expect(text).toContain('"webhookUrl":"(secret)"');
  });

  it('JSON keeps the secretRefs (references, not values)', () => {
    const p = plan([change({ key: 'k', action: 'create', after: { webhookUrl: { secretRef: 'opsman/notify#u' } } })]);
    expect(renderPlanJson(p)).toContain('"secretRef": "opsman/notify#u"');
  });

  it.each([
    [
      { path: 'notifications[PAGER_DUTY].serviceKey', before: 'abcd', after: 'efgh' },
      'notifications[PAGER_DUTY].serviceKey: (secret)',
    ],
    [{ path: 'webhookSecret', secret: true, note: 'removed on live' }, 'webhookSecret: (secret removed on live)'],
    [{ path: 'x.apiToken', secret: true, note: 'set' }, 'x.apiToken: (secret)'],
  ] as [FieldChange, string][])('masks a field change on a secret path: %j', (field, line) => {
    expect(formatFieldChange(field)).toBe(line);
  });

  it.each([
    ['text', renderPlanText],
    ['markdown', renderPlanMarkdown],
  ])(
    '%s: a secret field at the top of a created or deleted object prints as (secret), never its value',
    (_n, render) => {
      const [url, secret, token] = VALUES as [string, string, string];
      const text = render(
        plan([
          change({ key: 'c', action: 'create', after: { typeName: 'SLACK', apiToken: token, webhookSecret: secret } }),
          change({ key: 'd', action: 'delete', id: 'i1', before: { typeName: 'WEBHOOK', webhookUrl: url } }),
        ]),
      );
      for (const value of [url, secret, token]) expect(text).not.toContain(value);
      expect(text).toContain('apiToken: (secret)');
      expect(text).toContain('webhookUrl: (secret)');
    },
  );

  it.each([
    ['text', renderPlanText],
    ['markdown', renderPlanMarkdown],
  ])('%s: a field flagged secret is masked whatever its path says, a list value too', (_n, render) => {
    // A saved plan from another version may flag a secret field this one does not know by name.
    const text = render(
      plan([
        change({
          key: 'k',
          action: 'update',
          id: 'i1',
          fields: [
            {
              path: 'notifications[WEBHOOK].signingKey',
              secret: true,
              note: 'changed',
              before: 'old-s3cr3t',
              after: 'new-s3cr3t',
            },
            {
              path: 'notifications[WEBHOOK].headers',
              secret: true,
              note: 'changed',
              before: ['h-s3cr3t-1'],
              after: ['h-s3cr3t-2'],
            },
          ],
        }),
      ]),
    );
    expect(text).not.toMatch(/s3cr3t/);
    expect(text).toContain('notifications[WEBHOOK].signingKey: (secret changed)');
    expect(text).toContain('notifications[WEBHOOK].headers: (secret changed)');
  });

  it('a secretRef value prints as the bare placeholder; a member this version does not model never prints its value', () => {
    expect(formatValue({ secretRef: 'opsman/notify#u' })).toBe('(secret)');
    expect(
      formatFieldChange({ path: 'notifications[SLACK].signingToken', unmodelled: true, before: 'xoxb-live-value' }),
    ).toBe(`notifications[SLACK].signingToken: ${UNMODELLED_NOTE}`);
  });

  it('maskSecrets replaces every secret field and secretRef deeply', () => {
    expect(
      maskSecrets({
        a: [{ datadogApiKey: 'v', n: 1 }],
        b: { secretRef: 'x#y' },
        c: { microsoftTeamsWebhookUrl: null },
      }),
    ).toEqual({ a: [{ datadogApiKey: '(secret)', n: 1 }], b: '(secret)', c: { microsoftTeamsWebhookUrl: null } });
  });
});
