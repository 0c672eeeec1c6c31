// Scenario: `export --out` writes all files or none: when one write fails after others succeeded, the files it had
// already written are removed again, and the error says nothing was written; an interrupt (the run's signal) at any
// step before the files are all committed removes every file and temp file it made, and the directories it created;
// a process that exits while the files are written (a second Ctrl-C) removes them too.
import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportFileName, writeFiles } from '../../../lambdas/cli/commands/export-write.ts';
import type { ProjectExport } from '../../../lambdas/core/export/export-run.ts';
import { moduleUrl, runInChild } from '../../helpers/child-module.ts';

const P = '5e2211c17a3e5a48f5497de3';
const Q = '5e2211c17a3e5a48f5497de4';

function exported(projectId: string): ProjectExport {
  return { projectId, text: `# ${projectId}\n`, configs: [], skipped: [], warnings: [], secretRefs: [] };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-write-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFiles', () => {
  it('writes one new file per project, and no temp file stays', async () => {
    const written = await writeFiles(dir, [exported(P), exported(Q)]);
    expect(written).toEqual([join(dir, exportFileName(P)), join(dir, exportFileName(Q))]);
    expect((await readdir(dir)).sort()).toEqual([exportFileName(P), exportFileName(Q)]);
  });

  it('removes the files it wrote when a later one cannot be written, and says nothing was written', async () => {
    // A link to nothing: the commit refuses it (EEXIST) only when the second file is committed, after the first one was.
    await symlink(join(dir, 'missing-target'), join(dir, exportFileName(Q)));
    await expect(writeFiles(dir, [exported(P), exported(Q)])).rejects.toMatchObject({
      code: 'CLI_WRITE_FAILED',
      message: `cannot write ${join(dir, exportFileName(Q))}: it already exists (export does not overwrite); nothing was written`,
    });
    expect(await readdir(dir)).toEqual([exportFileName(Q)]);
  });
});

describe('writeFiles stopped by its signal', () => {
  it.each([
    ['a temp file is written', 'staged', 1],
    ['the first file is committed', 'committed', 1],
    ['the last file is committed', 'committed', 2],
  ] as const)(
    'after %s: no file, no temp file, no directory it created; INTERRUPTED, exit 130',
    async (_, stage, nth) => {
      const out = join(dir, 'a', 'b');
      const controller = new AbortController();
      let seen = 0;
      const run = writeFiles(out, [exported(P), exported(Q)], {
        signal: controller.signal,
        onStep: (step) => {
          if (step.stage === stage && ++seen === nth) controller.abort('Ctrl-C (SIGINT)');
        },
      });
      // Was: the signal was not looked at; both files were written.
      await expect(run).rejects.toMatchObject({
        code: 'INTERRUPTED',
        exitCode: 130,
        message: 'the export was stopped while writing its files (Ctrl-C (SIGINT)): nothing was written',
      });
      expect(await readdir(dir)).toEqual([]);
    },
  );

  it('keeps the files when the signal comes after the call resolved', async () => {
    const controller = new AbortController();
    const written = await writeFiles(dir, [exported(P)], { signal: controller.signal });
    controller.abort('Ctrl-C (SIGINT)');
    expect(written).toEqual([join(dir, exportFileName(P))]);
    expect(await readdir(dir)).toEqual([exportFileName(P)]);
  });
});

describe('a process that exits while writeFiles commits (a second Ctrl-C: process.exit(130))', {
  timeout: 90_000,
}, () => {
  it('leaves no file, no temp file and no directory it created', async () => {
    const out = join(dir, 'made');
    const child = runInChild(
      `import { writeFiles } from ${JSON.stringify(moduleUrl('lambdas/cli/commands/export-write.ts'))};`,
      `const e = (id) => ({ projectId: id, text: '# ' + id + '\\n', configs: [], skipped: [], warnings: [], secretRefs: [] });
       await writeFiles(args[0], [e(args[1]), e(args[2])], {
         onStep: (step) => { if (step.stage === 'committed') process.exit(130); },
       });`,
      [out, P, Q],
    );
    await expect(child).rejects.toThrow(/child exited 130/);
    // Was: the first file stayed under its name, and the second project's temp file beside it.
    expect(await readdir(dir)).toEqual([]);
  });
});
