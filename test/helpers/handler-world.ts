/**
 * The set-up every handler test on loopback AWS shares: the world started once per file (S3, Secrets Manager, the
 * emulator), the process environment pointed at it before the handler modules are imported (their module scope reads
 * it), restored afterwards, and optionally the emulator and the data bucket reset before each test.
 */
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type AwsWorld, emulatorAdmin, fakeLambdaContext, startAwsWorld, WORLD } from './aws-world.ts';

/** A handler as the tests call it. */
export type Handler = (event: unknown, context: Context) => Promise<Record<string, unknown> & { status: string }>;

/** What a test file gets: read its fields inside tests (they are set by beforeAll). */
export interface HandlerWorld {
  readonly world: AwsWorld;
  readonly reconcile: Handler;
  readonly archive: Handler;
  /** A fresh Lambda context (request ids req-1, req-2, ...). */
  ctx(functionName?: string): Context;
}

/**
 * Registers the hooks of a handler test file. `prepare` runs on the started world before the handlers are imported
 * (to change the desired state, for instance); `resetEach` puts the emulator back at its seed and empties the data
 * bucket (state, lease, cache, archive) before each test.
 */
export function useHandlerWorld(
  options: { mode?: string; resetEach?: boolean; prepare?: (world: AwsWorld) => Promise<void> | void } = {},
): HandlerWorld {
  const saved = { ...process.env };
  let n = 0;
  const state: { world?: AwsWorld; reconcile?: Handler; archive?: Handler } = {};
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is used before useHandlerWorld's beforeAll ran`);
    return value;
  };
  beforeAll(async () => {
    const world = await startAwsWorld({ mode: options.mode ?? 'apply' });
    state.world = world;
    await options.prepare?.(world);
    Object.assign(process.env, world.env);
    state.reconcile = (await import('../../lambdas/handlers/reconcile.ts')).handler as unknown as Handler;
    state.archive = (await import('../../lambdas/handlers/archive.ts')).handler as unknown as Handler;
  });
  afterAll(async () => {
    process.env = saved;
    await state.world?.close();
  });
  if (options.resetEach) {
    beforeEach(async () => {
      const world = required(state.world, 'the world');
      await emulatorAdmin(world.emulator.origin, 'POST', 'reset');
      world.s3.buckets.get(WORLD.dataBucket)?.clear();
    });
  }
  return {
    get world() {
      return required(state.world, 'the world');
    },
    get reconcile() {
      return required(state.reconcile, 'the reconcile handler');
    },
    get archive() {
      return required(state.archive, 'the archive handler');
    },
    ctx: (functionName) => fakeLambdaContext(`req-${++n}`, functionName) as unknown as Context,
  };
}

/** The lease document another Lambda run holds in these tests (ten minutes left). */
export interface HeldLease {
  owner: string;
  runId: string;
  acquiredAt: string;
  expiresAt: string;
}

/** Writes the data bucket's lease as held by another run, ten minutes from now; answers the lease written. */
export function holdLeaseAsAnotherRun(world: AwsWorld): HeldLease {
  const holder: HeldLease = {
    owner: 'lambda:other/req-0',
    runId: '20261121T000000Z-00000000',
    acquiredAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
  };
  world.s3.putDirect(WORLD.dataBucket, 'state/lease.json', JSON.stringify(holder));
  return holder;
}
