// Which in-transit runs the reconcile handler answers instead of rethrowing: only those started by YAML keys alone,
// under a deployment that requires the snapshot manifest (whose own notification starts the run that sees the whole).
import { describe, expect, it } from 'vitest';
import { deferredToManifest } from '../../../../lambdas/handlers/reconcile.ts';

const inTransit = { error: { code: 'DESIRED_STATE_IN_TRANSIT' } };
const required = { desiredPrefix: 'desired-state/', desiredSnapshot: 'required' as const };

describe('deferredToManifest', () => {
  it('defers a YAML-key run that found the upload in transit, under required', () => {
    expect(deferredToManifest(inTransit, ['desired-state/projects/a.yaml'], required)).toBe(true);
  });

  it('retries the run started by the manifest itself (an interrupted upload keeps failing and alarms)', () => {
    const keys = ['desired-state/projects/a.yaml', 'desired-state/.opsman-gitops-snapshot.json'];
    expect(deferredToManifest(inTransit, keys, required)).toBe(false);
  });

  it('retries under optional (nothing promises a manifest notification) and for any other failure', () => {
    const keys = ['desired-state/projects/a.yaml'];
    expect(deferredToManifest(inTransit, keys, { ...required, desiredSnapshot: 'optional' })).toBe(false);
    expect(deferredToManifest({ error: { code: 'LEASE_HELD' } }, keys, required)).toBe(false);
    expect(deferredToManifest({}, keys, required)).toBe(false);
  });
});
