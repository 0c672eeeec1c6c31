// Scenario: a redaction mask is judged only by the characters it kept: those of the real value agree (whatever the mask's length or letter case), others prove the secret in Ops Manager is another one; a value that is not a mask is never judged.
import { describe, expect, it } from 'vitest';
import { maskAgrees } from '../../../lambdas/core/mask-check.ts';

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
  { name: 'not a mask (three asterisks)', shown: '***', real: 'abc', agrees: true },
  { name: 'clear text is not judged', shown: 'something else', real: 'abc', agrees: true },
  { name: 'absent', shown: undefined, real: 'abc', agrees: true },
  { name: 'not a string', shown: { a: 1 }, real: 'abc', agrees: true },
];

describe('maskAgrees', () => {
  it.each(cases)('$name', ({ shown, real, agrees }) => {
    expect(maskAgrees(shown, real)).toBe(agrees);
  });
});
