/**
 * s3rver (an independent S3 implementation) on loopback for the S3 adapters' tests: a temp directory, the two buckets
 * the stack uses, and a real S3Client pointed at it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { LOOPBACK_REGION } from './aws-clients.ts';

/** The part of s3rver's API the tests use (the package ships no types). */
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

/** A running s3rver with `desired-bucket` and `data-bucket`, and a client for it. */
export interface S3rverHandle {
  client: S3Client;
  /** Destroys the client, stops the server and removes its directory. */
  close(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1, port 0 (`S3RVER_DEBUG=1` shows its log). */
export async function startS3rver(): Promise<S3rverHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'opsman-s3rver-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: process.env.S3RVER_DEBUG !== '1',
    directory: dir,
    configureBuckets: [{ name: 'desired-bucket' }, { name: 'data-bucket' }],
  });
  const { port } = await server.run();
  // s3rver checks SigV4 against its one built-in key pair.
  const client = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    region: LOOPBACK_REGION,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    maxAttempts: 1,
  });
  return {
    client,
    async close() {
      client.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
