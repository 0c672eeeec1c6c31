// Scenario: a redaction mask is judged only by the characters it kept: those of the real value agree (whatever the mask's length or letter case), others prove the secret in Ops Manager is another one; a value that is not a mask is never judged.
import { describe, expect, it } from 'vitest';
import { maskUrl } from '../../../emulator/alerts/redact.ts';
import { type DesiredAlertBody, secretUses } from '../../../lambdas/core/alert-body.ts';
import { maskAgrees, secretsChangedOnLive } from '../../../lambdas/core/mask-check.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';

const cases: { name: string; shown: unknown; real: string; agrees: boolean }[] = [
  {
    name: 'emulator URL mask of the value',
    shown: 'https://hooks.example.invalid/*****',
    real: 'https://hooks.example.invalid/a/b',
    agrees: true,
  },
  {
    name: 'URL mask of another host',
    shown: 'https://evil.example.invalid/*****',
    real: 'https://hooks.example.invalid/a/b',
    agrees: false,
  },
  {
    name: 'host in upper case',
    shown: 'https://HOOKS.example.invalid/****',
    real: 'https://hooks.example.invalid/a/b',
    agrees: true,
  },
  {
    name: 'port dropped by the redaction',
    shown: 'https://hooks.example.invalid/*****',
    real: 'https://hooks.example.invalid:8443/a/b',
    agrees: true,
  },
  {
    name: 'user-info dropped by the redaction',
    shown: 'https://hooks.example.invalid/*****',
    real: 'https://bot:pw@hooks.example.invalid/a/b',
    agrees: true,
  },
  {
    name: 'default port written out by the redaction',
    shown: 'https://hooks.example.invalid:443/****',
    real: 'https://hooks.example.invalid/a/b',
    agrees: true,
  },
  {
    name: 'slash of an empty path added by the redaction',
    shown: 'https://hooks.example.invalid/****',
    real: 'https://hooks.example.invalid',
    agrees: true,
  },
  {
    name: 'IDN host shown in punycode',
    shown: 'https://xn--bcher-kva.example/****',
    real: 'https://bücher.example/hook',
    agrees: true,
  },
  {
    name: 'punycode host shown in Unicode',
    shown: 'https://BÜCHER.example/****',
    real: 'https://xn--bcher-kva.example/hook',
    agrees: true,
  },
  {
    name: 'another host, ports aside',
    shown: 'https://evil.example.invalid:8443/****',
    real: 'https://hooks.example.invalid:8443/a/b',
    agrees: false,
  },
  {
    name: 'another IDN host',
    shown: 'https://xn--bcher-kva.example/****',
    real: 'https://bucher.example/hook',
    agrees: false,
  },
  {
    name: 'another scheme',
    shown: 'http://hooks.example.invalid/****',
    real: 'https://hooks.example.invalid/a',
    agrees: false,
  },
  {
    name: 'host cut short by the mask',
    shown: 'https://hooks.exa*******',
    real: 'https://bot@hooks.example.invalid/a',
    agrees: true,
  },
  {
    name: 'host cut short, of another host',
    shown: 'https://evil.exa*******',
    real: 'https://hooks.example.invalid/a',
    agrees: false,
  },
  {
    name: 'IDN host cut short, kept in punycode',
    shown: 'https://xn--bch*******',
    real: 'https://bücher.example/a',
    agrees: true,
  },
  { name: 'last four kept', shown: '**************7890', real: 'abcdefghijklmn7890', agrees: true },
  { name: 'other last four', shown: '**************zzzz', real: 'abcdefghijklmn7890', agrees: false },
  { name: 'mask shorter than the value', shown: '****7890', real: 'abcdefghijklmn7890', agrees: true },
  {
    name: 'kept dashes in order',
    shown: '********-****-****-db2c132ca78d',
    real: '12345678-abcd-ef01-db2c132ca78d',
    agrees: true,
  },
  {
    name: 'kept dashes out of place',
    shown: '********-****-****-db2c132ca78d',
    real: '12345678abcdef01-db2c132ca78d',
    agrees: false,
  },
  { name: 'fully masked', shown: '********************', real: 'anything at all', agrees: true },
  { name: 'head and tail overlapping the value', shown: 'abc****bcd', real: 'abcd', agrees: false },
  // A run of `*` may stand for no text at all.
  { name: 'stars standing for no text', shown: 'abc****def', real: 'abcdef', agrees: true },
  { name: 'kept middle text absent from the value', shown: 'ab****zz****cd', real: 'abXXcd', agrees: false },
  {
    name: 'trailing dot of the host written by the redaction',
    shown: 'https://hooks.example.invalid./****',
    real: 'https://hooks.example.invalid/a',
    agrees: true,
  },
  {
    name: 'IDN host cut short, kept in Unicode, user-info dropped',
    shown: 'https://bü*******',
    real: 'https://bot@bücher.example/a',
    agrees: true,
  },
  // A kept host that is no host at all proves nothing about the secret.
  {
    name: 'unreadable kept host is not judged',
    shown: 'https://ho st/****',
    real: 'https://hooks.example/a',
    agrees: true,
  },
  // A redaction keeps the length: a one-character path is one `*`, a 6-character key keeps two.
  {
    name: 'URL of another host with a one-character path (one `*`)',
    shown: 'https://evil.example.invalid/*',
    real: 'https://hooks.example.invalid/a/b',
    agrees: false,
  },
  { name: 'other last four of a short key (two `*`)', shown: '**zz-1', real: 'xoxb-1', agrees: false },
  { name: 'own last four of a short key (two `*`)', shown: '**xb-1', real: 'xoxb-1', agrees: true },
  { name: "a clear value's own `*` is not taken for another secret", shown: 'ab*cd', real: 'ab*cd', agrees: true },
  { name: 'fully masked in three asterisks', shown: '***', real: 'abc', agrees: true },
  // A path-less URL has nothing to mask: shown whole, it is judged as a kept origin.
  {
    name: 'path-less URL of another host, shown whole',
    shown: 'https://evil.example.invalid',
    real: 'https://hooks.example.invalid/a/b',
    agrees: false,
  },
  {
    name: 'path-less URL of another host with the / of its empty path',
    shown: 'https://evil.example.invalid/',
    real: 'https://hooks.example.invalid/a/b',
    agrees: false,
  },
  {
    name: 'path-less URL, the value itself',
    shown: 'https://hooks.example.invalid',
    real: 'https://hooks.example.invalid',
    agrees: true,
  },
  {
    name: 'path-less URL of the same host, port dropped',
    shown: 'https://HOOKS.example.invalid/',
    real: 'https://hooks.example.invalid:8443',
    agrees: true,
  },
  {
    name: 'a URL with a path shown in clear is not judged',
    shown: 'https://evil.example.invalid/x',
    real: 'https://hooks.example.invalid/a',
    agrees: true,
  },
  { name: 'clear text is not judged', shown: 'something else', real: 'abc', agrees: true },
  {
    name: 'clear text ending in a URL is not taken for a path-less URL',
    shown: 'redacted, was https://evil.example.invalid',
    real: 'https://hooks.example.invalid/a',
    agrees: true,
  },
  { name: 'absent', shown: undefined, real: 'abc', agrees: true },
  { name: 'not a string', shown: { a: 1 }, real: 'abc', agrees: true },
];

describe('maskAgrees', () => {
  it.each(cases)('$name', ({ shown, real, agrees }) => {
    expect(maskAgrees(shown, real)).toBe(agrees);
  });
});

/** A body of WEBHOOK notifications `[url, intervalMin]`, their secrets resolved, and a live config showing `shown`. */
function webhooks(desired: [string, number][], shown: [string, number][]): Parameters<typeof secretsChangedOnLive> {
  const body = {
    eventTypeName: 'NO_PRIMARY',
    enabled: true,
    matchers: [],
    notifications: desired.map(([, intervalMin], i) => ({
      typeName: 'WEBHOOK',
      intervalMin,
      delayMin: 0,
      webhookUrl: { secretRef: `hook-${i}` },
    })),
  } as unknown as DesiredAlertBody;
  const values = new Map(
    secretUses(body).map((use) => [use.path, desired[use.index]?.[0] as string] as [string, string]),
  );
  const live = {
    id: 'a1',
    eventTypeName: 'NO_PRIMARY',
    enabled: true,
    matchers: [],
    notifications: shown.map(([webhookUrl, intervalMin]) => ({
      typeName: 'WEBHOOK',
      intervalMin,
      delayMin: 0,
      webhookUrl,
    })),
  } as unknown as AlertConfig;
  return [body, values, live];
}

describe('secretsChangedOnLive with two notifications of one identity', () => {
  const a = 'https://a.example.invalid/hook/1';
  const b = 'https://b.example.invalid/hook/2';
  const a2 = 'https://a.example.invalid/hook/3';
  it('finds nothing when both read as sent, in either order', () => {
    expect(
      secretsChangedOnLive(
        ...webhooks(
          [
            [a, 5],
            [b, 5],
          ],
          [
            ['https://b.example.invalid/****', 5],
            ['https://a.example.invalid/****', 5],
          ],
        ),
      ),
    ).toEqual([]);
  });
  it('finds the URLs a person swapped between two notifications whose intervals differ', () => {
    const found = secretsChangedOnLive(
      ...webhooks(
        [
          [a, 5],
          [b, 10],
        ],
        [
          ['https://b.example.invalid/****', 5],
          ['https://a.example.invalid/****', 10],
        ],
      ),
    );
    expect(found).toHaveLength(2);
  });
  it('does not let two of ours claim the one live notification that agrees with both', () => {
    const found = secretsChangedOnLive(
      ...webhooks(
        [
          [a, 5],
          [a2, 5],
        ],
        [
          ['https://a.example.invalid/****', 5],
          ['https://evil.example.invalid/****', 5],
        ],
      ),
    );
    expect(found).toHaveLength(1);
  });
  it('leaves a notification missing on live to the diff', () => {
    expect(
      secretsChangedOnLive(
        ...webhooks(
          [
            [a, 5],
            [b, 5],
          ],
          [['https://a.example.invalid/****', 5]],
        ),
      ),
    ).toEqual([]);
  });
  it('judges a notification whose interval changed on live by its identity alone', () => {
    expect(secretsChangedOnLive(...webhooks([[a, 5]], [['https://a.example.invalid/****', 7]]))).toEqual([]);
    expect(secretsChangedOnLive(...webhooks([[a, 5]], [['https://evil.example.invalid/****', 7]]))).toHaveLength(1);
  });
});

describe('secretsChangedOnLive pairing and order', () => {
  const a = 'https://a.example.invalid/hook/1';
  const b = 'https://b.example.invalid/hook/2';
  const paths = (body: DesiredAlertBody) => secretUses(body).map((u) => u.path);

  it('pairs through an augmenting path: a fully masked notification is left to the one no other fits', () => {
    // Ours `a` takes the fully masked notification first (the paths put it first); `b` fits only that one, so `a`
    // must move to its own.
    expect(
      secretsChangedOnLive(
        ...webhooks(
          [
            [b, 5],
            [a, 5],
          ],
          [
            ['********************', 5],
            ['https://a.example.invalid/****', 5],
          ],
        ),
      ),
    ).toEqual([]);
  });

  it('judges a notification by its partner (same other fields) before another of its identity', () => {
    const args = webhooks(
      [[a, 5]],
      [
        ['https://evil.example.invalid/****', 5],
        ['https://a.example.invalid/****', 10],
      ],
    );
    expect(secretsChangedOnLive(...args)).toEqual(paths(args[0]));
  });

  it('answers the paths sorted, whichever way each was found', () => {
    // Notification 0 has a partner (same interval) that disagrees; notification 1 has none and no candidate agrees.
    const args = webhooks(
      [
        [a, 5],
        [b, 10],
      ],
      [
        ['https://evil.example.invalid/****', 5],
        ['https://evil2.example.invalid/****', 7],
      ],
    );
    const found = secretsChangedOnLive(...args);
    expect(found).toHaveLength(2);
    expect(found).toEqual([...paths(args[0])].sort());
  });

  it('leaves a notification of an identity missing on live to the diff while another secret changed', () => {
    const body = {
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      matchers: [],
      notifications: [
        { typeName: 'WEBHOOK', intervalMin: 5, delayMin: 0, webhookUrl: { secretRef: 'hook' } },
        { typeName: 'SLACK', intervalMin: 5, delayMin: 0, channelName: '#ops', apiToken: { secretRef: 'slack' } },
      ],
    } as unknown as DesiredAlertBody;
    const uses = secretUses(body);
    const values = new Map(uses.map((u) => [u.path, u.field === 'webhookUrl' ? a : 'xoxb-0000-real-token']));
    const live = {
      id: 'a1',
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      matchers: [],
      notifications: [
        { typeName: 'WEBHOOK', intervalMin: 5, delayMin: 0, webhookUrl: 'https://evil.example.invalid/****' },
      ],
    } as unknown as AlertConfig;
    expect(secretsChangedOnLive(body, values, live)).toEqual(
      uses.filter((u) => u.field === 'webhookUrl').map((u) => u.path),
    );
  });
});

describe("maskAgrees with the emulator's own redaction", () => {
  it.each([
    'https://hooks.example.invalid?token=abc123',
    'https://hooks.example.invalid#frag-1234',
    'https://bot:pw@hooks.example.invalid:8443/a/b?c=d',
    'https://bücher.example/hook/1',
    'HTTPS://Hooks.Example.Invalid/Path/UPPER',
    'https://hooks.example.invalid/x',
    'https://hooks.example.invalid/ab',
    'https://hooks.example.invalid',
    'https://hooks.example.invalid/',
  ])('%s agrees with its own mask', (url) => {
    expect(maskAgrees(maskUrl(url), url)).toBe(true);
  });
});
