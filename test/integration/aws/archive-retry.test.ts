// Scenario: the daily archive's S3 puts fail through the SDK's retries. A scheduled run that ends `partial` on
// failures a retry can pass is rethrown, so Lambda retries it the same day (not the next); one whose failure a retry
// meets again (403) is answered; a manual run is always answered; the retry completes the archive without duplicates.
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { schedulerEvent } from '../../helpers/scheduler-event.ts';

const MANIFESTS = `${WORLD.dataBucket}/archive/manifests/*`;
const SCHEDULE = schedulerEvent('opsman-gitops-archive');

describe('a partial archive under the archive handler', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const ctx = () => h.ctx('opsman-gitops-archive');
  const stored = (prefix: string) =>
    [...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])].filter((k) => k.startsWith(prefix)).sort();

  it('manifest puts answered 503 throughout: manual answered partial, scheduled rethrown; the retry completes it once', async () => {
    h.world.s3.injectFault({ method: 'PUT', key: MANIFESTS, status: 503, code: 'SlowDown', count: 999 });
    const manual = await h.archive({}, ctx());
    expect(manual).toMatchObject({ status: 'partial', retryable: true });
    expect(JSON.stringify(manual.failures)).toContain('503');
    await expect(h.archive(SCHEDULE, ctx())).rejects.toThrow(
      /^ARCHIVE_PARTIAL: the archive failed in part, on errors a retry can pass: version manifest: .*503/,
    );

    h.world.s3.clearFaults();
    const retried = await h.archive(SCHEDULE, ctx());
    expect(retried).toMatchObject({ status: 'ok' });
    expect(retried.retryable).toBeUndefined();
    const manifests = stored('archive/manifests/');
    expect(manifests.filter((k) => k.startsWith('archive/manifests/sha256/'))).toHaveLength(1);
    const again = await h.archive(SCHEDULE, ctx());
    expect(again).toMatchObject({ status: 'ok' });
    expect(stored('archive/manifests/')).toEqual(manifests);
    const index = JSON.parse(h.world.s3.getText(WORLD.dataBucket, 'archive/manifests/index.json') ?? '[]');
    expect(JSON.stringify(index).match(/"sha256"/g)).toHaveLength(1);
  });

  it('the answer says what was archived: a new manifest, the same again, and one Ops Manager went back to', async () => {
    const first = await h.archive(SCHEDULE, ctx());
    const { month } = (first.archive as { usage: { month: string } }).usage;
    expect(month).toMatch(/^\d{4}-\d{2}$/);
    const usage = {
      month,
      keys: [`usage/${month}/host-assignments.json`, `usage/${month}/physical-hosts.json`], // sorted
      projects: 4,
    };
    expect(first).toMatchObject({ status: 'ok', archive: { manifest: { changed: true }, usage } });
    const seed = (first.archive as { manifest: { sha256: string } }).manifest.sha256;
    expect(first.archive).not.toHaveProperty('incomplete');
    const again = await h.archive(SCHEDULE, ctx());
    expect(again.archive).toEqual({ manifest: { sha256: seed, changed: false }, usage });
    // The reconcile uploads the pinned manifest: the next archive stores it as new.
    expect(await h.reconcile(schedulerEvent('opsman-gitops-reconcile'), h.ctx())).toMatchObject({ status: 'ok' });
    const pinned = await h.archive(SCHEDULE, ctx());
    const pin = (pinned.archive as { manifest: { sha256: string; changed: boolean } }).manifest;
    expect(pin).toEqual({ sha256: expect.not.stringMatching(seed), changed: true });
    // Ops Manager back at its seed manifest: known, but not what the last archive found.
    await emulatorAdmin(h.world.emulator.origin, 'POST', 'reset');
    const back = await h.archive(SCHEDULE, ctx());
    expect(back.archive).toEqual({ manifest: { sha256: seed, changed: false, previous: pin.sha256 }, usage });
  });

  it('a partial archive names the parts it did not store', async () => {
    h.world.s3.injectFault({ method: 'PUT', key: MANIFESTS, status: 403, code: 'AccessDenied', count: 999 });
    const summary = await h.archive({}, ctx());
    h.world.s3.clearFaults();
    expect(summary).toMatchObject({ status: 'partial', archive: { incomplete: ['version manifest'] } });
    expect(summary.archive).not.toHaveProperty('manifest');
  });

  it('a 403 on the manifest put is not retryable: the scheduled run is answered partial, not rethrown', async () => {
    h.world.s3.injectFault({ method: 'PUT', key: MANIFESTS, status: 403, code: 'AccessDenied', count: 999 });
    const scheduled = await h.archive(SCHEDULE, ctx());
    expect(scheduled).toMatchObject({ status: 'partial', retryable: false });
    h.world.s3.clearFaults();
  });
});
