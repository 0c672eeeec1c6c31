// Scenario: awkward but server-valid alert configs (YAML look-alikes, unicode, long text, edge numbers) are posted to
// the emulator with the real client over Digest; `export` writes them, and `plan` with an empty state adopts every one
// (<=) and has nothing to create, update or delete.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { createOpsManagerClient, type OpsManagerClient } from '../../../lambdas/opsman/index.ts';
import type { AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';
import { awkwardAlertBody } from '../../helpers/export-awkward.ts';

const ORG = '5e2211c17a3e5a48f5497de0';
const P = '5e2211c17a3e5a48f5497de3';
/** The one secret every secret field holds (fake): plan checks it against the mask Ops Manager shows. */
const TOKEN = 'xoxb-fake-awkward-token-9876';

const SEED = {
  organizations: [{ id: ORG, name: 'acme' }],
  projects: [{ id: P, name: 'awkward', orgId: ORG }],
  apiKeys: [{ id: '6b1f000000000000000000a1', ...KEYS.tool, desc: 'tool', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
  alertConfigs: [],
};

let emulator: { url: string; close(): Promise<void> };
let client: OpsManagerClient;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-property-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: SEED });
  client = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.tool });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

let run = 0;

describe('export round trip against the emulator (property)', { timeout: 300_000 }, () => {
  it('plan adopts every exported config, whatever awkward values they hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(awkwardAlertBody(TOKEN), { minLength: 1, maxLength: 4 }), async (bodies) => {
        run += 1;
        for (const old of await client.listAlertConfigs(P)) await client.deleteAlertConfig(P, old.id);
        for (const body of bodies) await client.createAlertConfig(P, body as unknown as AlertConfigRequest);

        const desired = join(dir, `desired-${run}`);
        const exported = await cli(['export', '--project', P, '--out', desired]);
        expect(exported.code).toBe(0);
        expect(exported.err).toContain(`Exported project ${P}: ${bodies.length} alert config(s) -> `);
        expect(exported.err).not.toContain(TOKEN);

        const refs = exported.err
          .split('\n')
          .filter((line) => line.startsWith('  opsman/'))
          .map((line) => line.trim().split('#') as [string, string]);
        const secrets: Record<string, Record<string, string>> = {};
        for (const [id, key] of refs) secrets[id] = { ...secrets[id], [key]: TOKEN };
        const secretsFile = join(dir, `secrets-${run}.json`);
        await writeFile(secretsFile, JSON.stringify(secrets));

        const plan = await cli([
          'plan',
          '--json',
          '--desired',
          desired,
          '--state-dir',
          join(dir, `state-${run}`),
          '--secrets-file',
          secretsFile,
        ]);
        expect(plan.code).toBe(0);
        expect(plan.out).not.toContain(TOKEN);
        const parsed = JSON.parse(plan.out) as Plan;
        expect(parsed.failures).toEqual([]);
        const actions = parsed.changes.filter((c) => c.kind === 'alertConfig').map((c) => c.action);
        expect(actions).toEqual(bodies.map(() => 'adopt'));
        expect(parsed.unmanaged ?? []).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
