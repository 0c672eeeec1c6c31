/**
 * Real AWS SDK v3 clients pointed at the loopback servers, with fake credentials (SigV4 is computed and ignored).
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** Fake credentials: never valid anywhere. */
export const FAKE_AWS_CREDENTIALS = {
  accessKeyId: 'AKIALOOPBACKTEST0000',
  secretAccessKey: 'loopback-secret-not-real',
};

/** Region used by every loopback test. */
export const LOOPBACK_REGION = 'eu-west-1';

/** The configuration of an S3 client for the loopback S3 server (path-style, one attempt: tests see every fault). */
export function loopbackS3ClientConfig(endpoint: string): S3ClientConfig {
  return { endpoint, forcePathStyle: true, region: LOOPBACK_REGION, credentials: FAKE_AWS_CREDENTIALS, maxAttempts: 1 };
}

/** An S3 client for the loopback S3 server (path-style). */
export function loopbackS3Client(endpoint: string): S3Client {
  return new S3Client(loopbackS3ClientConfig(endpoint));
}

/** A Secrets Manager client for the loopback endpoint. */
export function loopbackSecretsClient(endpoint: string): SecretsManagerClient {
  return new SecretsManagerClient({
    endpoint,
    region: LOOPBACK_REGION,
    credentials: FAKE_AWS_CREDENTIALS,
    maxAttempts: 1,
  });
}
