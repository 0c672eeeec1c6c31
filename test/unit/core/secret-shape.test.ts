// Scenario: each shape rule of resolved secrets (empty, white space at an end, a newline from `echo`, a control
// character, a mask, a webhook URL that is not an absolute http(s) URL, an empty authority or a backslash included) is
// found, good values pass (upper-case schemes, IPv6 and IDN hosts, userinfo, ports, queries), and the reason that
// blocks an alert config names the key, the field and the reference but never the value or any part of it.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import type { DesiredNotification } from '../../../lambdas/core/model.ts';
import { resolveBodySecrets, resolveSecretsOf } from '../../../lambdas/core/resolve-secrets.ts';
import { isAbsoluteHttpUrl, secretShapeProblem } from '../../../lambdas/core/secret-shape.ts';

describe('secretShapeProblem', () => {
  it.each([
    ['serviceKey', '', 'is empty'],
    ['serviceKey', '   ', 'is only white space'],
    ['serviceKey', '\n', 'is only white space'],
    ['serviceKey', 'pd-key-1234\n', 'ends with a newline'],
    ['serviceKey', 'pd-key-1234\r\n', 'ends with a newline'],
    ['webhookSecret', 'whsec-1234 ', 'ends with white space'],
    ['webhookSecret', 'whsec-1234\t', 'ends with white space'],
    ['apiToken', '\nxoxb-1234', 'starts with a newline'],
    ['apiToken', ' xoxb-1234', 'starts with white space'],
    ['apiToken', '\uFEFFxoxb-1234', 'starts with white space'],
    ['datadogApiKey', 'dd\u0000key', 'contains a control character'],
    ['datadogApiKey', 'dd\u001bkey', 'contains a control character'],
    ['datadogApiKey', 'dd\u007fkey', 'contains a control character'],
    ['datadogApiKey', 'dd\u0085key', 'contains a control character'],
    ['opsGenieApiKey', '********-****-****-db2c132ca78d', 'looks like a redaction mask (****); refusing to send it'],
    ['webhookUrl', 'https://hooks.example.invalid/******', 'looks like a redaction mask (****); refusing to send it'],
    ['webhookUrl', 'not a url', 'is not an absolute http(s) URL'],
    ['webhookUrl', 'ftp://hooks.example.invalid/x', 'is not an absolute http(s) URL'],
    ['webhookUrl', 'hooks.example.invalid/x', 'is not an absolute http(s) URL'],
    ['webhookUrl', '/services/T000/B000', 'is not an absolute http(s) URL'],
    ['webhookUrl', 'https:hooks.example.invalid/x', 'is not an absolute http(s) URL'],
    ['webhookUrl', 'https://', 'is not an absolute http(s) URL'],
    ['webhookUrl', 'https://exa mple.invalid/x', 'is not an absolute http(s) URL'],
    // No host for an RFC 3986 parser (an empty authority), though the WHATWG parser skips the slashes and finds one.
    ['webhookUrl', 'https:///hooks.example.invalid/x', 'is not an absolute http(s) URL'],
    ['webhookUrl', 'https://\\hooks.example.invalid/x', 'is not an absolute http(s) URL'],
    // A backslash is no URL character (RFC 3986); the WHATWG parser silently reads it as a slash.
    ['microsoftTeamsWebhookUrl', 'https://hooks.example.invalid\\x', 'is not an absolute http(s) URL'],
    ['microsoftTeamsWebhookUrl', 'mailto:ops@example.invalid', 'is not an absolute http(s) URL'],
    ['webhookUrl', 'https://hooks.example.invalid/x\n', 'ends with a newline'],
  ])('%s %j: %s', (field, value, problem) => {
    expect(secretShapeProblem(field, value)).toBe(problem);
  });

  it('says so of a value that is not a string (a resolver breaking its contract)', () => {
    expect(secretShapeProblem('serviceKey', 42)).toBe('is not a string');
    expect(secretShapeProblem('serviceKey', undefined)).toBe('is not a string');
  });

  it.each([
    ['webhookUrl', 'https://hooks.example.invalid/services/T000/B000/XXXX'],
    ['webhookUrl', 'http://alerts.internal:8080/ingest?source=om'],
    ['webhookUrl', 'HTTPS://hooks.example.invalid'],
    // Schemes are case-insensitive; IPv6 and IDN hosts, userinfo, port, query and fragment are all a URL may carry.
    ['webhookUrl', 'Https://hooks.example.invalid/x'],
    ['webhookUrl', 'https://[::1]:8443/hook'],
    ['webhookUrl', 'https://[2001:db8::1]/hook?x=1'],
    ['webhookUrl', 'https://bücher.example.invalid/hook'],
    ['webhookUrl', 'https://user:p%40ss@hooks.example.invalid:8443/p/a%20b?q=1&r=2#frag'],
    ['webhookUrl', 'https://@hooks.example.invalid/x'],
    ['microsoftTeamsWebhookUrl', 'https://outlook.office.com/webhook/a1b2@c3d4/IncomingWebhook/e5/f6'],
    ['microsoftTeamsWebhookUrl', 'https://acme.webhook.office.com/webhookb2/abc-123/IncomingWebhook/def/456'],
    // A key has no documented format: anything without the universal faults passes, URL-shaped or not.
    ['serviceKey', 'fake0000pagerduty0000service0key1'],
    ['apiToken', 'xoxb-000111222333-abc def'],
    ['webhookSecret', 'not a url at all'],
    ['victorOpsRoutingKey', 'db-team-routing'],
    ['opsGenieApiKey', 'ключ-ü-🔑'],
  ])('accepts %s %j', (field, value) => {
    expect(secretShapeProblem(field, value)).toBeUndefined();
  });

  it('isAbsoluteHttpUrl wants the scheme, "//" and a host', () => {
    expect(isAbsoluteHttpUrl('https://h')).toBe(true);
    expect(isAbsoluteHttpUrl('https:\\\\h\\x')).toBe(false);
    expect(isAbsoluteHttpUrl('http//h')).toBe(false);
    expect(isAbsoluteHttpUrl('https:///h')).toBe(false);
    expect(isAbsoluteHttpUrl('http://\\h')).toBe(false);
  });
});

function webhookBody(): DesiredAlertBody {
  const notifications = [
    { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'opsman/notify#hook-url' } },
  ] as unknown as DesiredNotification[];
  return { eventTypeName: 'NO_PRIMARY', enabled: true, matchers: [], notifications };
}

/** Values that fail a rule and carry a token somewhere: none of their parts may reach a reason. */
const LEAKY: [string, string, string[]][] = [
  ['ftp://hooks.example.invalid/T0KEN-9f8e7d6c', 'is not an absolute http(s) URL', ['ftp', 'hooks.example', 'T0KEN']],
  ['hooks.example.invalid/services/T0KEN-9f8e7d6c', 'is not an absolute http(s) URL', ['hooks', 'services', 'T0KEN']],
  [
    'https://hooks.example.invalid/services/T0KEN-9f8e7d6c\n',
    'ends with a newline',
    ['https', 'hooks', 'services', 'T0KEN'],
  ],
  [' https://hooks.example.invalid/T0KEN-9f8e7d6c', 'starts with white space', ['https', 'hooks', 'T0KEN']],
  ['https://hooks.example.invalid/T0KEN\u0007-9f8e7d6c', 'contains a control character', ['https', 'hooks', 'T0KEN']],
];

describe('a bad value blocks its alert config with a reason that never shows it', () => {
  it.each(LEAKY)('%j', async (value, problem, parts) => {
    const out = await resolveSecretsOf(new Map([['payments-hook', webhookBody()]]), { resolve: async () => value });
    const reason = `alert config "payments-hook": secret reference opsman/notify#hook-url (notifications[WEBHOOK].webhookUrl) resolves to a value that ${problem}`;
    expect(out.get('payments-hook')).toEqual({ ok: false, reason });
    expect(reason).not.toContain(value.trim());
    for (const part of parts) expect(reason).not.toContain(part);
    // The same check and the same words at apply time, when the secret is resolved again before the first write.
    expect(await resolveBodySecrets(webhookBody(), { resolve: async () => value }, 'payments-hook')).toEqual({
      ok: false,
      reason,
    });
  });

  it('a good value resolves', async () => {
    const url = 'https://hooks.example.invalid/services/T0KEN-9f8e7d6c';
    const out = await resolveBodySecrets(webhookBody(), { resolve: async () => url }, 'payments-hook');
    expect(out).toEqual({ ok: true, values: new Map([['notifications[WEBHOOK].webhookUrl', url]]) });
  });
});
