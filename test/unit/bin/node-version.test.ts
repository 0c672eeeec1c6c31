// The command's Node.js version check (bin/node-version.mjs): older versions are refused with what to install.
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs module of the bin folder (no declaration file): it runs before tsx is loaded
import { MINIMUM_NODE, nodeVersionProblem } from '../../../bin/node-version.mjs';

describe('nodeVersionProblem', () => {
  it('accepts the minimum and every newer version', () => {
    for (const v of ['20.19.0', '20.20.2', '21.0.0', '22.11.0', '24.1.0'])
      expect(nodeVersionProblem(v)).toBeUndefined();
  });

  it('refuses an older version, naming it and the minimum', () => {
    for (const v of ['20.18.3', '18.20.4', '16.0.0', '20.9.0']) {
      const problem = nodeVersionProblem(v) as string;
      expect(problem).toContain(`this is Node.js ${v}`);
      expect(problem).toContain(`needs Node.js ${MINIMUM_NODE.join('.')} or newer`);
    }
  });

  it('lets a version string it cannot read try', () => {
    expect(nodeVersionProblem('custom-build')).toBeUndefined();
  });

  it('agrees with package.json engines', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    };
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE.join('.')}`);
  });
});
