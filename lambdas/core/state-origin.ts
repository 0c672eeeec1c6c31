/**
 * Which Ops Manager a state was written against (`opsManager.baseUrl`, recorded by every apply). Nothing in Ops Manager
 * says which state owns a config, and object ids are unique per installation, so a state used against another
 * installation deletes nothing by itself: its records name projects this run does not plan. But they read as projects
 * removed from git on every run, and an installation restored from another's backup shares its ids. So a run against
 * another base URL than the one recorded says so; it does not refuse, because the same installation may move to a new
 * address (a DNS name, https in front), and the next apply records the new one.
 */
import type { ReconcileState } from './ports.ts';

/** The warning of a run against another Ops Manager than the state's, or undefined (same, or none recorded). */
export function otherOpsManagerWarning(state: ReconcileState | null, baseUrl: string | undefined): string | undefined {
  const recorded = state?.opsManager?.baseUrl;
  if (recorded === undefined || baseUrl === undefined || recorded === baseUrl) return undefined;
  return `the state was last applied against ${recorded}, not ${baseUrl}: if that is another Ops Manager installation, give this one its own state (--state-dir; on AWS its own stack), since ownership records are per installation (any project of the other shows below as no longer in the desired state); if it is this installation under a new address, the next apply records the new one`;
}

/** Records `baseUrl` as the Ops Manager the state is written against (no-op when unknown: in-process callers). */
export function recordOpsManager(state: ReconcileState, baseUrl: string | undefined): void {
  if (baseUrl !== undefined) state.opsManager = { baseUrl };
}
