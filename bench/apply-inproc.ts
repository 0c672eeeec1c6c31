/**
 * The reconciler's own CPU per alert create, without HTTP: `applyPlan` over a first apply of a benchmark world
 * against an in-memory API that answers like Ops Manager (the request echoed back with an id, through JSON text as a
 * client would parse it). Usage: `npx tsx bench/apply-inproc.ts [--projects N] [--alerts M] [--runs R]`; bundle it with
 * esbuild for figures comparable with the benchmark's compiled child (tsx wraps every closure).
 *
 * Prints the CPU per create of each run (the echo API's own JSON work included: about 10 µs).
 */

import type { DesiredAlertBody } from '../lambdas/core/alert-body.ts';
import { applyPlan } from '../lambdas/core/apply.ts';
import type { Change, Plan } from '../lambdas/core/model.ts';
import type { OpsManagerApi, SecretResolver } from '../lambdas/core/ports.ts';
import { CachingSecretResolver } from '../lambdas/core/resolve-secrets.ts';
import { emptyState } from '../lambdas/core/state.ts';
import type { AlertConfig, AlertConfigRequest } from '../lambdas/opsman/types.ts';
import { FIXED_FINGERPRINT_KEY, SILENT_REPORTER } from './run-deps.ts';
import { buildWorld } from './world.ts';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

/** Answers writes with the stored config, as text parsed again (what the client hands back). */
class EchoApi {
  #next = 0;
  async createAlertConfig(groupId: string, body: AlertConfigRequest): Promise<AlertConfig> {
    const id = (this.#next++).toString(16).padStart(24, '0');
    const stored = { ...body, id, groupId, created: '2026-03-01T10:00:00Z', updated: '2026-03-01T10:00:00Z' };
    return JSON.parse(JSON.stringify(stored)) as AlertConfig;
  }
}

async function main(): Promise<void> {
  const world = buildWorld({ projects: option('--projects', 1000), alerts: option('--alerts', 20) });
  const inner: SecretResolver = {
    async resolve(ref) {
      const [id = '', key = ''] = ref.split('#');
      const value = world.secrets[id]?.[key];
      if (value === undefined) throw new Error(`no secret ${ref}`);
      return value;
    },
  };
  const changes: Change[] = world.projects.flatMap((p) =>
    p.alerts.map(
      (a, i): Change => ({
        target: { type: 'project', id: p.id, name: p.name },
        kind: 'alertConfig',
        key: `alert-${i}`,
        action: 'create',
        fields: [],
        reason: 'bench',
        after: a.body as unknown as DesiredAlertBody,
      }),
    ),
  );
  const plan = { changes, failures: [], liveDigests: {}, mode: 'apply' } as unknown as Plan;
  for (let run = 0; run < option('--runs', 3); run++) {
    const state = emptyState(new Date().toISOString());
    const cpu = process.cpuUsage();
    const outcome = await applyPlan(plan, {
      api: new EchoApi() as unknown as OpsManagerApi,
      secrets: new CachingSecretResolver(inner),
      fingerprintKey: FIXED_FINGERPRINT_KEY,
      clock: { now: () => new Date(), sleep: async () => {} },
      reporter: SILENT_REPORTER,
      runId: `inproc-${run}`,
      state,
      skipReason: () => undefined,
      persist: async () => {},
      keepAlive: async () => {},
      readPin: async () => '',
    });
    const used = process.cpuUsage(cpu);
    const applied = outcome.results.filter((r) => r.status === 'applied').length;
    const us = (used.user + used.system) / changes.length;
    process.stdout.write(`run ${run}: ${applied}/${changes.length} applied, ${us.toFixed(1)} µs CPU per create\n`);
  }
}

await main();
