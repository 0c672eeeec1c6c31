/**
 * `opsman-gitops unlock RUN_ID`: removes the lock a killed apply left in the state directory (Terraform's
 * force-unlock). Only the lock of the run named is removed, so a typo cannot free someone else's.
 */
import { type CommandContext, requireDirectory } from '../context.ts';
import { EXIT } from '../errors.ts';
import { lockOf } from '../wiring.ts';

/** Removes the lock of `runId`; resolves to the exit code (a lock held by another run throws LeaseMismatchError). */
export async function runUnlock(ctx: CommandContext, runId: string): Promise<number> {
  const { io, options } = ctx;
  // A --state-dir that is not there is most likely a typo: saying "no lock" would leave the real lock in place.
  await requireDirectory(options.stateDir, '--state-dir');
  const removed = await lockOf(options.stateDir).forceReleaseLease(runId);
  if (removed === null) {
    io.stdout.write(`No lock is held in ${options.stateDir}: nothing to remove.\n`);
    return EXIT.ok;
  }
  io.stdout.write(
    `Removed the lock of run ${removed.runId} (${removed.owner}, would have expired ${removed.expiresAt}).\n`,
  );
  if (Date.parse(removed.expiresAt) > Date.now()) {
    io.stderr.write('If that run is still alive, its next write finds its lease lost and it stops (LEASE_LOST).\n');
  }
  return EXIT.ok;
}
