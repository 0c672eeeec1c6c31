/**
 * The AWS implementations of the ports: desired state, state and lease, archive on S3; credentials and secretRefs
 * through Secrets Manager.
 */
export {
  AwsAdapterError,
  InvalidKeyError,
  S3AccessError,
  S3ContentEncodingError,
  SecretsManagerAdapterError,
} from './errors.ts';
export { DEFAULT_ARCHIVE_PREFIX, S3ArchiveStore, type S3ArchiveStoreOptions } from './s3-archive-store.ts';
export { DEFAULT_LIST_PAGE_SIZE, S3DesiredStateSource, type S3DesiredStateSourceOptions } from './s3-desired-source.ts';
export { type LeaseDocument, parseLease } from './s3-lease.ts';
export { DEFAULT_STATE_STORE_OPTIONS, parseState, S3StateStore, type S3StateStoreOptions } from './s3-state-store.ts';
export { type ConflictRetryOptions, DEFAULT_CONFLICT_RETRY } from './s3-util.ts';
export {
  DEFAULT_SECRET_MAX_AGE_SECONDS,
  loadOpsManagerCredentials,
  type OpsManagerCredentials,
  SecretJsonSource,
  SecretsManagerResolver,
  type SecretsOptions,
} from './secrets-manager.ts';
