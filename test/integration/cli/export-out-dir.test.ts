// Scenario: `export --out DIR` refuses, before any request and without writing, an --out that already declares one of
// the projects in some other file (the desired state would declare it twice, which validate refuses) or that holds a
// link to nothing at a file's name; a directory declaring only other projects is written to as usual. An interrupt
// that lands while the files are written leaves none of them, nor a temp file, and exits 130.
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';

const ORG = '5e2211c17a3e5a48f5497de0';
const P = '5e2211c17a3e5a48f5497de3';
const Q = '5e2211c17a3e5a48f5497de4';

const SEED = {
  organizations: [{ id: ORG, name: 'acme' }],
  projects: [
    { id: P, name: 'payments-prod', orgId: ORG },
    { id: Q, name: 'payments-staging', orgId: ORG },
  ],
  apiKeys: [{ id: '6b1f000000000000000000a1', ...KEYS.tool, desc: 'tool', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
  alertConfigs: [
    {
      id: '6c9900000000000000000001',
      groupId: P,
      created: '2026-09-01T08:00:00Z',
      updated: '2026-09-01T08:00:00Z',
      enabled: true,
      eventTypeName: 'HOST_DOWN',
      matchers: [],
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
    },
  ],
};

/** A hand-written Project document for `projectId`, as a desired state may already hold. */
function declared(projectId: string, name: string): string {
  return `apiVersion: opsman-gitops/v1\nkind: Project\nmetadata:\n  name: ${name}\n  projectId: ${projectId}\nspec:\n  alertConfigs: []\n`;
}

let emulator: { url: string; close(): Promise<void> };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-out-dir-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: SEED });
});

afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url, {}) });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

describe('export --out into an existing desired state', { timeout: 60_000 }, () => {
  it('refuses when another file there already declares the project, naming it, and writes nothing', async () => {
    const out = join(dir, 'declared');
    await mkdir(join(out, 'teams'), { recursive: true });
    await writeFile(join(out, 'teams', 'payments.yaml'), declared(P, 'payments'));
    const run = await cli(['export', '--project', P, '--project', Q, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `export would declare a project a second time, which validate refuses: --out already declares project ${P} in ${join(out, 'teams/payments.yaml')}; export to another directory and merge by hand, or remove that declaration first; nothing was read or written`,
    );
    expect((await readdir(out)).sort()).toEqual(['teams']);
  });

  it('writes beside files that declare other projects, and the result validates', async () => {
    const out = join(dir, 'others');
    await mkdir(out, { recursive: true });
    await writeFile(join(out, 'staging.yaml'), declared(Q, 'staging'));
    const run = await cli(['export', '--project', P, '--out', out]);
    expect(run.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([`project-${P}.yaml`, 'staging.yaml']);
    const validate = await cli(['validate', '--desired', out]);
    expect(validate.code).toBe(0);
  });

  it('refuses a link to nothing at a file name before reading, as it refuses a file', async () => {
    const out = join(dir, 'dangling');
    await mkdir(out, { recursive: true });
    await symlink(join(out, 'nowhere.yaml'), join(out, `project-${Q}.yaml`));
    const run = await cli(['export', '--project', P, '--project', Q, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `export does not overwrite: ${join(out, `project-${Q}.yaml`)} already exists; move it away or choose another --out; nothing was read or written`,
    );
    expect(await readdir(out)).toEqual([`project-${Q}.yaml`]);
  });

  it('refuses an --out that is a file before reading, naming it', async () => {
    const out = join(dir, 'a-file');
    await writeFile(out, 'not a directory\n');
    const run = await cli(['export', '--project', P, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `--out ${out} is there and is not a directory; choose a directory (it is created when missing); nothing was read or written`,
    );
  });
});

describe('an interrupt while export writes the --out files', { timeout: 60_000 }, () => {
  it('removes every file and temp file it made, says so, exit 130', async () => {
    const out = join(dir, 'interrupted');
    await mkdir(out);
    const io = recordingIo({ env: toolEnv(emulator.url, {}) });
    // The process's interrupt, raised as the first temp file appears (the run is then writing its files).
    let interrupt: ((reason: string) => void) | undefined;
    io.onInterrupt = (handler) => {
      interrupt = handler;
      return () => {
        interrupt = undefined;
      };
    };
    const watcher = watch(out, (_, name) => {
      if (String(name).endsWith('.tmp')) interrupt?.('Ctrl-C (SIGINT)');
    });
    try {
      const code = await runCli(['export', '--project', P, '--project', Q, '--out', out], {
        startEmulator: noEmulator,
        io,
      });
      // Was: the files were written in full and the run ended 0.
      expect(code, io.err()).toBe(130);
    } finally {
      watcher.close();
    }
    expect(io.err()).toContain(
      'Ctrl-C (SIGINT) received: stopping; the files written so far are removed again (all or none: none).',
    );
    expect(io.err()).toContain(
      'error: the export was stopped while writing its files (Ctrl-C (SIGINT)): nothing was written',
    );
    expect(io.out()).toBe('');
    expect(await readdir(out)).toEqual([]);
  });
});
