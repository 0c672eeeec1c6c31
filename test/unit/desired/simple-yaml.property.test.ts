// Scenario: whenever the plain-YAML fast path accepts a text, yaml parses it without error to the same values and known positions.

import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { knownPositions, parseTrees } from '../../../lambdas/core/desired/lazy-document.ts';
import { findExcessiveNesting } from '../../../lambdas/core/desired/nesting.ts';
import { parseYamlFile } from '../../../lambdas/core/desired/parse.ts';
import { parseSimpleYaml } from '../../../lambdas/core/desired/simple-yaml.ts';

/** yaml's answer: every document's value and known positions, or the first error code. */
function reference(text: string): { value: unknown; positions: unknown[] }[] | string {
  const { docs, lineCounter } = parseTrees(text);
  if (docs.length === 0) return 'no documents';
  const out: { value: unknown; positions: unknown[] }[] = [];
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error) return error.code;
    const value = doc.toJS({ maxAliasCount: 100 });
    out.push({ value, positions: [...knownPositions({ file: 'f.yaml', doc, lineCounter }, value)] });
  }
  return out;
}

/** 'fast', 'slow' (left to yaml), or how the fast path differs from yaml. */
function compare(text: string): string {
  const fast = parseSimpleYaml(text);
  if (fast === undefined) return 'slow';
  // The fast path runs before the nesting guard: it must only accept what the guard lets through.
  const deep = findExcessiveNesting(text);
  if (deep) return `accepted, nesting guard says ${deep.reason}`;
  const ref = reference(text);
  if (typeof ref === 'string') return `accepted, yaml says ${ref}`;
  const mine = fast.map((d) => ({ value: d.value, positions: [...d.positions] }));
  return isDeepStrictEqual(mine, ref) ? 'fast' : `differs: ${JSON.stringify(mine)} vs ${JSON.stringify(ref)}`;
}

const KEYS = ['a', 'key', 'b-c', '_x', 'spec', 'alertConfigs', 'toString', 'y', 'No'];
const TRICKY_KEYS = ['true', 'null', '__proto__', 'a b', '"q"', '1', 'k'.repeat(300), 'k'.repeat(1100)];
const key = fc.oneof(
  { arbitrary: fc.constantFrom(...KEYS), weight: 20 },
  { arbitrary: fc.constantFrom(...TRICKY_KEYS), weight: 1 },
);
const STRINGS = [
  '',
  'x',
  'a b',
  'a  b',
  'x#y',
  'x #y',
  '#x',
  '-x',
  '- x',
  '-',
  '1',
  '-0',
  '+5',
  '007',
  '0o17',
  '0x1F',
  '1e3',
  '1.5',
  '.5',
  '1.',
  '.inf',
  '-.inf',
  '.nan',
  'null',
  'Null',
  '~',
  'True',
  'FALSE',
  'yes',
  'a:b',
  'a: b',
  '@x',
  'é',
  'q"q',
  "it's",
  'a/b.c@d+e',
  '5e2211c17a3e5a48f5497de3',
  '2026-01-01',
  '12345678901234567890',
];

type Tree = string | number | boolean | null | Tree[] | { [key: string]: Tree };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(
      { arbitrary: fc.constantFrom<Tree>('x', 'a b', 'PRIMARY', 'a/b#c', 0, 7, -3, 1.25, true, false), weight: 4 },
      { arbitrary: fc.constantFrom<Tree>(...STRINGS, null), weight: 1 },
    ),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
    fc.dictionary(key, tie('node'), { minKeys: 1, maxKeys: 4 }),
  ),
})).node;

/** A document: a mapping at the top, as desired-state documents are (mostly). */
const documentTree: fc.Arbitrary<Tree> = fc.oneof(
  { arbitrary: fc.dictionary(key, tree, { minKeys: 1, maxKeys: 5 }), weight: 5 },
  { arbitrary: tree, weight: 1 },
);

interface Style {
  indent: number;
  seqIndented: boolean;
  quote: number;
  comments: number;
  trailing: boolean;
}

const style: fc.Arbitrary<Style> = fc.record({
  indent: fc.integer({ min: 1, max: 4 }),
  seqIndented: fc.boolean(),
  quote: fc.integer({ min: 0, max: 2 }),
  comments: fc.integer({ min: 0, max: 3 }),
  trailing: fc.boolean(),
});

function scalarText(value: Tree, s: Style): string {
  if (typeof value !== 'string') return String(value);
  if (s.quote === 1) return `"${value}"`;
  if (s.quote === 2) return `'${value}'`;
  return value;
}

/** Renders a tree as block YAML in a given style (not always valid YAML: that is the point). */
function render(value: Tree, s: Style, indent: number, out: string[], prefix: string): void {
  const pad = ' '.repeat(indent);
  const trailing = s.trailing ? ' # note' : '';
  if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
    const entries: [string | null, Tree][] = Array.isArray(value) ? value.map((v) => [null, v]) : Object.entries(value);
    entries.forEach(([key, child], i) => {
      const lead = i === 0 ? prefix : pad;
      if (s.comments > 1 && i === 1) out.push(`${pad}# between`);
      const head = key === null ? `${lead}- ` : `${lead}${key}:`;
      if (child !== null && typeof child === 'object') {
        if (key === null) {
          render(child, s, indent + 2, out, head);
        } else {
          out.push(head + (s.comments > 2 ? ' # opens' : ''));
          const inner = Array.isArray(child) && !s.seqIndented ? indent : indent + s.indent;
          render(child, s, inner, out, ' '.repeat(inner));
        }
      } else {
        out.push(`${head}${key === null ? '' : ' '}${scalarText(child, s)}${trailing}`);
      }
    });
  } else {
    out.push(`${prefix}${scalarText(value, s)}`);
  }
}

function text(docs: Tree[], s: Style, leadingMarker: boolean): string {
  const out: string[] = [];
  if (s.comments > 0) out.push('# a file comment');
  docs.forEach((doc, i) => {
    if (i > 0 || leadingMarker) out.push('---');
    render(doc, s, 0, out, '');
  });
  return `${out.join('\n')}\n`;
}

const MUTATIONS = [
  ' ',
  '\n',
  '#',
  ':',
  '-',
  '"',
  "'",
  '[',
  '\t',
  'x',
  ' #',
  ': ',
  '- ',
  '  ',
  '\v',
  '\f',
  '\u00a0',
  '\ufeff',
  '\u2028',
  '\u0085',
];

describe('parseSimpleYaml', () => {
  it('gives what yaml gives whenever it accepts a rendered document', () => {
    let fast = 0;
    fc.assert(
      fc.property(fc.array(documentTree, { minLength: 1, maxLength: 2 }), style, fc.boolean(), (docs, s, marker) => {
        const result = compare(text(docs, s, marker));
        if (result === 'fast') fast++;
        expect(result).toMatch(/^(fast|slow)$/);
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the fast path often enough for the comparison to mean something.
    expect(fast).toBeGreaterThan(300);
  });

  it('gives what yaml gives whenever it accepts a damaged document', () => {
    fc.assert(
      fc.property(
        documentTree,
        style,
        fc.nat(),
        fc.constantFrom(...MUTATIONS),
        fc.integer({ min: 0, max: 2 }),
        (doc, s, at, insert, kind) => {
          const base = text([doc], s, false);
          const i = at % (base.length + 1);
          const damaged =
            kind === 0
              ? base.slice(0, i) + insert + base.slice(i)
              : kind === 1
                ? base.slice(0, i) + base.slice(i + 1)
                : base.slice(0, i) + insert + base.slice(i + 1);
          expect(`${compare(damaged)} for ${JSON.stringify(damaged)}`).toMatch(/^(fast|slow) for /);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('leaves deep indentation to the nesting guard, which still refuses it', () => {
    const deep = `${Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`;
    const wide = `a: 1\n${' '.repeat(300)}\nb: 2\n`;
    for (const text of [deep, wide]) {
      expect(parseSimpleYaml(text)).toBeUndefined();
      const { documents, issues } = parseYamlFile('deep.yaml', text, { maxAliasCount: 100 });
      expect(documents).toEqual([]);
      expect(issues.map((issue) => issue.message)).toEqual([
        'nesting too deep (indented deeper than 256 columns): refusing a document built to exhaust the parser',
      ]);
    }
    const fine = `${Array.from({ length: 100 }, (_, i) => `${' '.repeat(2 * i)}k:`).join('\n')} 1\n`;
    expect(compare(fine)).toBe('slow');
    expect(parseYamlFile('fine.yaml', fine, { maxAliasCount: 100 }).issues).toEqual([]);
  });

  it.each([
    ['a flat mapping', 'apiVersion: v1\nkind: Project\n', 'fast'],
    ['comments and a leading marker', '# c\n---\na: 1 # one\nb: "#x" # two\n', 'fast'],
    ['a sequence of mappings', 'spec:\n  alertConfigs:\n    - key: a\n      n: 1\n    - "b"\n', 'fast'],
    ['a same-indent sequence', 'a:\n- x\n- y\nb: 2\n', 'fast'],
    ['two documents', 'a: 1\n---\nb: 2\n', 'fast'],
    ['a flow sequence', 'a: [x]\n', 'slow'],
    ['a bracket in quotes', 'a: "[x"\n', 'slow'],
    ['an anchor', 'a: &x 1\nb: *x\n', 'slow'],
    ['a tag', 'a: !!str 1\n', 'slow'],
    ['a block scalar', 'a: |\n  text\n', 'slow'],
    ['a continued plain scalar', 'a: one\n  two\n', 'slow'],
    ['a duplicate key', 'a: 1\na: 2\n', 'slow'],
    ['an empty value', 'a:\nb: 1\n', 'slow'],
    ['an empty document', 'a: 1\n---\n', 'slow'],
    ['comments only', '# nothing\n', 'slow'],
    ['a tab', 'a:\t1\n', 'slow'],
    ['CRLF', 'a: 1\r\n', 'slow'],
    ['an escape', 'a: "x\\ty"\n', 'slow'],
    ['a hex number', 'a: 0x1F\n', 'slow'],
    ['a key that is not a string', 'true: 1\n', 'slow'],
    ['a __proto__ key', '__proto__: 1\n', 'slow'],
    ['a value ending in a form feed', 'a: x\f\n', 'slow'],
    ['a value ending in a no-break space', 'a: 1\u00a0\n', 'slow'],
    ['odd whitespace in a comment', 'a: 1 # x\v\f\u00a0\n', 'fast'],
    ['a line separator in a comment', 'a: 1 # x\u2028\n', 'slow'],
    ['a key past 1,024 characters (yaml refuses it)', `${'k'.repeat(1100)}: 1\n`, 'slow'],
    ['a key of 256 characters', `${'k'.repeat(256)}: 1\n`, 'fast'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n', 'slow'],
  ])('%s: %s', (_name, input, expected) => {
    expect(compare(input)).toBe(expected);
  });
});
