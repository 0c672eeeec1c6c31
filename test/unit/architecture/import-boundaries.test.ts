// Scenario: the architecture's import rules hold in every source file: the core stays pure, the emulator and the
// product never import each other (so the client and the emulator cannot share a bug), and shared/ (small helpers
// with no Ops Manager knowledge, which both may import) imports neither.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

/** Every .ts file under a directory, as repository-relative paths. */
async function sourcesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort();
}

/** The module specifiers a file imports or re-exports (static and dynamic). */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /(?:^|\n)\s*(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]/g,
    /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1] as string);
  return found;
}

/** A specifier resolved against the importing file, when relative; bare specifiers as they are. */
function resolved(file: string, specifier: string): string {
  return specifier.startsWith('.') ? relative(ROOT, join(ROOT, file, '..', specifier)) : specifier;
}

/** `atLeast`: how many files the directory must hold (a rule over a mistyped or emptied directory proves nothing). */
const RULES: { name: string; dir: string; atLeast?: number; forbidden: (target: string) => boolean }[] = [
  {
    name: 'lambdas/ never imports emulator/',
    dir: 'lambdas',
    forbidden: (t) => t === 'emulator' || t.startsWith('emulator/'),
  },
  {
    name: 'emulator/ never imports lambdas/',
    dir: 'emulator',
    forbidden: (t) => t === 'lambdas' || t.startsWith('lambdas/'),
  },
  {
    name: 'shared/ imports neither lambdas/ nor emulator/',
    dir: 'shared',
    atLeast: 1,
    forbidden: (t) => t === 'lambdas' || t.startsWith('lambdas/') || t === 'emulator' || t.startsWith('emulator/'),
  },
  {
    name: 'lambdas/core/ imports no filesystem, network client or AWS SDK',
    dir: 'lambdas/core',
    forbidden: (t) =>
      /^(node:)?(fs|fs\/promises|http|https|net|tls|child_process)$/.test(t) ||
      t === 'undici' ||
      t.startsWith('@aws-sdk/') ||
      t.startsWith('@aws-lambda-powertools/') ||
      t.startsWith('lambdas/adapters/') ||
      t.startsWith('lambdas/handlers/') ||
      t.startsWith('lambdas/cli/'),
  },
];

/** The undici specifiers a file loads at run time: every import or re-export of undici that is not `import type`. */
function undiciLoadsOf(source: string): string[] {
  const found: string[] = [];
  const statement = /(?:^|\n)\s*(?:import|export)(\s+type\b)?[^'"`;]*?(?:from\s*)?['"](undici(?:\/[^'"]*)?)['"]/g;
  for (const match of source.matchAll(statement)) if (match[1] === undefined) found.push(match[2] as string);
  for (const match of source.matchAll(/\bimport\(\s*['"](undici(?:\/[^'"]*)?)['"]\s*\)/g))
    found.push(match[1] as string);
  return found;
}

describe('import boundaries', () => {
  it("lambdas/ loads undici only through opsman/undici-parts.ts (undici's root module would add fetch, WebSocket and the mocks, about 215 KB, to each Lambda bundle)", async () => {
    expect(
      undiciLoadsOf(
        [
          "import type { Dispatcher } from 'undici';",
          "import { Agent } from 'undici';",
          "export { Pool } from 'undici';",
          "import x from 'undici/lib/api/index.js';",
          "const u = await import('undici');",
        ].join('\n'),
      ),
    ).toEqual(['undici', 'undici', 'undici/lib/api/index.js', 'undici']);
    const files = await sourcesUnder('lambdas');
    const loads: string[] = [];
    for (const file of files) {
      if (file === join('lambdas', 'opsman', 'undici-parts.ts')) continue;
      for (const specifier of undiciLoadsOf(await readFile(join(ROOT, file), 'utf8')))
        loads.push(`${file} loads ${specifier}`);
    }
    expect(loads).toEqual([]);
    const parts = await readFile(join(ROOT, 'lambdas/opsman/undici-parts.ts'), 'utf8');
    expect(undiciLoadsOf(parts).filter((s) => s === 'undici')).toEqual([]);
  });

  it('finds static, re-exported and dynamic imports', () => {
    const source = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "export { c } from 'undici';",
      "import 'node:fs';",
      "const m = await import('../../emulator/index.ts');",
    ].join('\n');
    expect(specifiersOf(source).sort()).toEqual(['../../emulator/index.ts', '../b.ts', './a.ts', 'node:fs', 'undici']);
  });

  it.each(RULES)('$name', async ({ dir, atLeast = 6, forbidden }) => {
    const files = await sourcesUnder(dir);
    expect(files.length).toBeGreaterThanOrEqual(atLeast);
    const violations: string[] = [];
    for (const file of files) {
      const source = await readFile(join(ROOT, file), 'utf8');
      for (const specifier of specifiersOf(source)) {
        if (forbidden(resolved(file, specifier))) violations.push(`${file} imports ${specifier}`);
      }
    }
    expect(violations).toEqual([]);
  });
});
