// Scenario: an AlertTemplate edited in git changes every project that lists it; the plan (text, Markdown, JSON and a
// saved plan applied later) names the template and where its entry is written on each of those changes, so that a
// reviewer sees why three projects change at once.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-template-plan-'));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

async function cli(argv: string[], expected = 0): Promise<string> {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const code = await runCli([...argv, ...common], { startEmulator: noEmulator, io });
  expect(code, io.err()).toBe(expected);
  return io.out();
}

describe('a template edit in the plan', { timeout: 120_000 }, () => {
  it('names the template and its entry on the change of every project listing it', async () => {
    await cli(['apply', '--auto-approve', '--no-color']);
    const path = join(dir, 'desired/templates/baseline.yaml');
    const text = await readFile(path, 'utf8');
    const edited = text.replace('intervalMin: 15, delayMin: 0', 'intervalMin: 30, delayMin: 0');
    expect(edited).not.toBe(text);
    await writeFile(path, edited);

    const plain = await cli(['plan', '--no-color'], 0);
    const headers = plain.split('\n').filter((l) => l.includes('alertConfig "host-down"'));
    expect(headers).toHaveLength(3); // payments-prod, payments-staging, search-prod list baseline
    for (const h of headers)
      expect(h).toMatch(
        /^ {2}~ alertConfig "host-down" \(id [0-9a-f]{24}\) from template baseline \(templates\/baseline\.yaml:10\)$/,
      );

    const markdown = await cli(['plan', '--markdown']);
    expect(markdown.match(/from template baseline \(templates\/baseline\.yaml:10\)/g)).toHaveLength(3);

    const json = JSON.parse(await cli(['plan', '--json'])) as Plan;
    const changed = json.changes.filter((c) => c.kind === 'alertConfig' && c.action !== 'noop');
    expect(changed.map((c) => [c.target.name, c.key, c.action, c.template])).toEqual(
      ['payments-prod', 'payments-staging', 'search-prod'].map((name) => [
        name,
        'host-down',
        'update',
        { name: 'baseline', file: 'templates/baseline.yaml', line: 10 },
      ]),
    );
    // A project's own config says nothing of templates.
    expect(json.changes.find((c) => c.key === 'no-primary')?.template).toBeUndefined();

    // A saved plan carries it, and applies.
    const out = join(dir, 'plan.json');
    await cli(['plan', '--out', out]);
    const applied = await cli(['apply', '--plan', out, '--no-color']);
    expect(applied).toContain('from template baseline (templates/baseline.yaml:10)');
  });
});
