/**
 * Which Ops Manager a state was written against (`opsManager.baseUrl`, recorded by every apply). Nothing in Ops Manager
 * says which state owns a config, and object ids are unique per installation, so a state used against another
 * installation deletes nothing by itself: its records name projects this run does not plan. But they read as projects
 * removed from git on every run, and an installation restored from another's backup shares its ids. So a run against
 * another base URL than the one recorded says so; it does not refuse, because the same installation may move to a new
 * address (a DNS name, https in front), and the next apply records the new one.
 */
import { fingerprintKeyCheck } from './fingerprint.ts';
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

/**
 * The warning of a run whose fingerprint key is not the one the state was last applied with, or undefined (the same,
 * or none recorded: a state written before the check). Every secret fingerprint then differs, so each secret reads as
 * `(secret changed)` and is re-sent once: harmless, but a reviewer must not take it for secrets that changed, and a
 * lost key may still be put back. `resent` counts the alert configs whose secrets the plan re-sends.
 */
export function otherFingerprintKeyWarning(
  state: ReconcileState | null,
  key: Uint8Array,
  resent: number,
): string | undefined {
  const recorded = state?.fingerprintKeyCheck;
  const now = fingerprintKeyCheck(key);
  if (recorded === undefined || recorded === now) return undefined;
  return `the fingerprint key is not the one the state was last applied with (key check ${recorded}, now ${now}): OPSMAN_FINGERPRINT_KEY changed, or <state-dir>/fingerprint.key was lost or replaced (on AWS: the credentials secret's fingerprintKey, or the private key it is derived from, changed). Every secret fingerprint in the state reads as changed: ${resent === 0 ? 'no alert config of this plan re-sends a secret for it' : `${resent} alert config(s) below show "(secret changed)" for it, whether or not the values changed, and an apply re-sends their secrets once (one PUT each)`}. If the key was lost, put the previous one back before applying and this goes away; otherwise the next apply records this key`;
}

/** Records which fingerprint key the state is written with (`fingerprintKeyCheck`). */
export function recordFingerprintKey(state: ReconcileState, key: Uint8Array | undefined): void {
  if (key !== undefined) state.fingerprintKeyCheck = fingerprintKeyCheck(key);
}
