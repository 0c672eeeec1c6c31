// Scenario: `export --out` writes all files or none: when one write fails after others succeeded, the files it had
// already written are removed again, and the error says nothing was written.
import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportFileName, writeFiles } from '../../../lambdas/cli/commands/export.ts';
import type { ProjectExport } from '../../../lambdas/core/export/export-run.ts';

const P = '5e2211c17a3e5a48f5497de3';
const Q = '5e2211c17a3e5a48f5497de4';

function exported(projectId: string): ProjectExport {
  return { projectId, text: `# ${projectId}\n`, exported: 0, skipped: [], warnings: [], secretRefs: [] };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-write-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFiles', () => {
  it('writes one new file per project', async () => {
    const written = await writeFiles(dir, [exported(P), exported(Q)]);
    expect(written).toEqual([join(dir, exportFileName(P)), join(dir, exportFileName(Q))]);
    expect((await readdir(dir)).sort()).toEqual([exportFileName(P), exportFileName(Q)]);
  });

  it('removes the files it wrote when a later one cannot be written, and says nothing was written', async () => {
    // A link to nothing: 'wx' refuses it (EEXIST) only when the second file is written, after the first one was.
    await symlink(join(dir, 'missing-target'), join(dir, exportFileName(Q)));
    await expect(writeFiles(dir, [exported(P), exported(Q)])).rejects.toMatchObject({
      code: 'CLI_WRITE_FAILED',
      message: `cannot write ${join(dir, exportFileName(Q))}: it already exists (export does not overwrite); nothing was written`,
    });
    expect(await readdir(dir)).toEqual([exportFileName(Q)]);
  });
});
