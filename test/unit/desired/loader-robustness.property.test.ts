// Scenario: the example desired state and generated valid documents, mutated at random (characters, lines, indentation, types, anchors, merge keys, tags, markers, BOM, CRLF, control bytes, invalid UTF-8, long lines, deep nesting, odd numbers, prototype keys), load to a valid state or to issues with a file and a position: never an internal error, a hang, a process warning or a touched Object.prototype.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { stringify } from 'yaml';
import { EVENT_TYPE_NAMES } from '../../../lambdas/core/desired/enums.ts';
import { loadDesiredState, renderDesiredState } from '../../../lambdas/core/desired/index.ts';
import { EXAMPLE_ROOT, filesOf } from './cache-fakes.ts';
import { MemorySource } from './memory-source.ts';

/** Cases of the mutation property (raise it with LOADER_ROBUSTNESS_RUNS to search longer). */
const RUNS = Number(process.env.LOADER_ROBUSTNESS_RUNS ?? 150);

const EXAMPLE = filesOf(EXAMPLE_ROOT);
const encoder = new TextEncoder();

/** Text inserted or substituted by a mutation: YAML syntax, odd values, control characters, prototype names. */
const FRAGMENTS = [
  '\n',
  ' ',
  '  ',
  '\t',
  ':',
  ': ',
  '- ',
  '#',
  '"',
  "'",
  '[',
  ']',
  '{',
  '}',
  '? ',
  '|\n  ',
  '>-\n  ',
  '&a ',
  '*a',
  '<<: *a',
  '<<: {typeName: EMAIL}',
  '!foo ',
  '!!str ',
  '!!binary ',
  '---\n',
  '...\n',
  '%YAML 1.2\n---\n',
  '\ufeff',
  '\r\n',
  '\r',
  '\u0000',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u2028',
  '\ud800',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '-0',
  '.nan',
  '.inf',
  '-.inf',
  '1e309',
  '99999999999999999999999',
  '0x1F',
  '0o17',
  '2026-01-01',
  '2001-12-14t21:59:43.10-05:00',
  'null',
  '~',
  'true',
  'yes',
  '[]',
  '{}',
  'x'.repeat(5_000),
  '['.repeat(40),
  `${'- '.repeat(60)}x`,
];

interface Mutation {
  file: number;
  at: number;
  kind: number;
  fragment: string;
  n: number;
  byte: number;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  file: fc.nat(),
  at: fc.nat(),
  kind: fc.integer({ min: 0, max: 11 }),
  fragment: fc.constantFrom(...FRAGMENTS),
  n: fc.integer({ min: 1, max: 30 }),
  byte: fc.integer({ min: 0x80, max: 0xff }),
});

/** Applies one mutation to a file's bytes (decoded leniently: an earlier mutation may have broken the UTF-8). */
function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  const lines = text.split('\n');
  const li = m.at % lines.length;
  const line = lines[li] as string;
  const ci = m.at % (text.length + 1);
  const joined = () => encoder.encode(lines.join('\n'));
  switch (m.kind) {
    case 0: // insert
      return encoder.encode(text.slice(0, ci) + m.fragment + text.slice(ci));
    case 1: // delete characters
      return encoder.encode(text.slice(0, ci) + text.slice(ci + m.n));
    case 2: // replace characters
      return encoder.encode(text.slice(0, ci) + m.fragment + text.slice(ci + m.n));
    case 3: // delete a line
      lines.splice(li, 1);
      return joined();
    case 4: // duplicate a line elsewhere (a duplicate key, a second document start...)
      lines.splice((li + m.n) % lines.length, 0, line);
      return joined();
    case 5: // change indentation
      lines[li] = ' '.repeat(m.n % 9) + line.trimStart();
      return joined();
    case 6: {
      // an invalid UTF-8 byte (a lone continuation or lead byte)
      const out = new Uint8Array(bytes);
      if (out.length > 0) out[m.at % out.length] = m.byte;
      return out;
    }
    case 7: // swap a scalar value for a fragment (its type changes: number, bool, null, date, NaN...)
      lines[li] = line.replace(/: (.*)$/, `: ${m.fragment}`);
      return joined();
    case 8: // rename a key
      lines[li] = line.replace(/^(\s*(?:- )?)[A-Za-z_]+:/, `$1${m.fragment}:`);
      return joined();
    case 9: // anchor a value and alias it from another key or line
      lines[li] = line.replace(/: (.+)$/, ': &a $1');
      lines.splice(li + 1 + (m.n % 4), 0, line.replace(/^(\s*(?:- )?[A-Za-z_]+):.*$/, m.n % 2 ? '$1x: *a' : '$1: *a'));
      return joined();
    case 10: // a merge key into a mapping
      lines.splice(li, 0, `${/^\s*/.exec(line)?.[0] ?? ''}<<: {typeName: EMAIL, ${m.fragment}: 1}`);
      return joined();
    default: // wrap the file in CRLF line ends or a BOM
      return encoder.encode(m.n % 2 ? text.replaceAll('\n', '\r\n') : `\ufeff${text}`);
  }
}

/** Small valid documents: a Project with a few alert configs, as yaml writes them (block or flow style). */
const generatedFiles = fc
  .record({
    keys: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { minLength: 1, maxLength: 3 }),
    event: fc.constantFrom(...EVENT_TYPE_NAMES.filter((e) => e !== 'OUTSIDE_METRIC_THRESHOLD')),
    flow: fc.boolean(),
  })
  .filter(({ event }) => !['TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'].includes(event))
  .map(({ keys, event, flow }) => ({
    'p.yaml': stringify(
      {
        apiVersion: 'opsman-gitops/v1',
        kind: 'Project',
        metadata: { name: 'p1', projectId: '5e2211c17a3e5a48f5497de3' },
        spec: {
          alertConfigs: keys.map((key) => ({
            key,
            eventTypeName: event,
            notifications: [{ typeName: 'SMS', mobileNumber: '+15555550100', delayMin: 0 }],
          })),
        },
      },
      flow ? { collectionStyle: 'flow' } : {},
    ),
  }));

const start = fc.oneof(
  fc.constant<Record<string, string>>(EXAMPLE),
  generatedFiles as fc.Arbitrary<Record<string, string>>,
);

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

/** Loads the files; checks the outcome against the contract; resolves to whether the state was valid. */
async function loadChecked(files: Record<string, string | Uint8Array>): Promise<boolean> {
  // No wall-clock budget here (a loaded CI machine made it flaky): a load that hangs fails on the test's timeout, and
  // the scans that once grew with the square of the documents are counted in hostile-input.test.ts.
  const result = await loadDesiredState(new MemorySource(files));
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  if (result.ok) {
    // A valid state is a usable one: it renders, and the rendering loads again.
    const others = Object.fromEntries(Object.entries(files).filter(([path]) => !/\.ya?ml$/.test(path)));
    const rendered = { ...others, 'rendered.yaml': renderDesiredState(result.state) };
    const again = await loadDesiredState(new MemorySource(rendered));
    expect(again.ok ? [] : again.issues.map((i) => i.message)).toEqual([]);
    return true;
  }
  expect(result.issues.length).toBeGreaterThan(0);
  for (const issue of result.issues) {
    expect(issue.message, JSON.stringify(issue)).not.toMatch(/internal error|TypeError|RangeError|call stack/);
    // Every issue names a file of the source (or the source itself, for "nothing to manage"), and a position.
    expect([...Object.keys(files), 'memory:/'], JSON.stringify(issue)).toContain(issue.file);
    expect(issue.line).toBeGreaterThanOrEqual(1);
    expect(issue.column).toBeGreaterThanOrEqual(1);
    expect(issue.message.length).toBeGreaterThan(0);
    // One line, nothing a terminal acts on: file content is quoted with escapes.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the property is that no control character is printed.
    expect(issue.message, JSON.stringify(issue)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  }
  return false;
}

describe('property: the loader survives mutated desired states', () => {
  let warn: MockInstance<typeof process.emitWarning>;
  beforeEach(() => {
    warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  });
  afterEach(() => {
    warn.mockRestore();
  });

  it(
    'loads or refuses with positioned issues, never crashing, hanging, warning or polluting',
    async () => {
      const seen = { valid: 0, refused: 0 };
      await fc.assert(
        fc.asyncProperty(start, fc.array(mutation, { minLength: 1, maxLength: 3 }), async (base, mutations) => {
          const files: Record<string, string | Uint8Array> = { ...base };
          const yamlPaths = Object.keys(files).filter((p) => p.endsWith('.yaml'));
          for (const m of mutations) {
            const path = yamlPaths[m.file % yamlPaths.length] as string;
            const before = files[path] as string | Uint8Array;
            files[path] = mutate(typeof before === 'string' ? encoder.encode(before) : before, m);
          }
          if (await loadChecked(files)) seen.valid++;
          else seen.refused++;
          expect(warn).not.toHaveBeenCalled();
        }),
        { numRuns: RUNS },
      );
      // Both outcomes are exercised: some mutations keep the state valid, most break it.
      expect(seen.valid).toBeGreaterThan(0);
      expect(seen.refused).toBeGreaterThan(seen.valid);
    },
    Math.max(60_000, RUNS * 100),
  );

  it('survives deep nesting, huge files of one line and many documents', async () => {
    const deepFlow = `apiVersion: opsman-gitops/v1\nkind: Project\nspec: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`;
    const deepBlock = `a:\n${Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')} 1\n`;
    const longLine = `apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: ${'n'.repeat(500_000)}}\nspec: {}\n`;
    const manyDocs = 'a: 1\n---\n'.repeat(5_000);
    for (const text of [deepFlow, deepBlock, longLine, manyDocs]) {
      expect(await loadChecked({ 'x.yaml': text })).toBe(false);
    }
    expect(warn).not.toHaveBeenCalled();
  }, 30_000);
});
