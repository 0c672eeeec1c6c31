/**
 * Phase 3's drift: a second API key (a "human") disables ~1% of the alert configs the tool owns, through the public
 * API, so the reconciler must detect, attribute and correct it. Ids come from the tool's own state file.
 */
import { FsStateStore } from '../lambdas/adapters/local/state-fs.ts';
import { createOpsManagerClient } from '../lambdas/opsman/client.ts';
import type { DriftSelection } from './minimum.ts';
import { DRIFT_KEY, type World } from './world.ts';

/** Disables the selected alert configs as DRIFT_KEY; resolves to their ids (in selection order). */
export async function injectDrift(
  world: World,
  drift: DriftSelection,
  options: { baseUrl: string; stateDir: string; concurrency: number },
): Promise<string[]> {
  const { state } = await new FsStateStore(options.stateDir).read();
  if (!state) throw new Error(`no state in ${options.stateDir}: phase 1 did not save one`);
  const ids = drift.targets.map(([p, a]) => {
    const project = world.projects[p];
    const key = project?.alerts[a]?.key;
    const id = project && key ? state.projects[project.id]?.alertConfigs[key]?.id : undefined;
    if (!project || !key || !id) throw new Error(`no owned id for project ${p} alert ${a} in the state`);
    return id;
  });
  const client = createOpsManagerClient({
    baseUrl: options.baseUrl,
    publicKey: DRIFT_KEY.publicKey,
    privateKey: DRIFT_KEY.privateKey,
    maxConcurrency: options.concurrency,
  });
  try {
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const k = next++;
        const [p] = drift.targets[k] as [number, number];
        await client.setAlertConfigEnabled((world.projects[p] as { id: string }).id, ids[k] as string, false);
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, ids.length) }, worker));
  } finally {
    await client.close();
  }
  return ids;
}
