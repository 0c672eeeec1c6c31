/**
 * Desired state: the YAML format, its JSON Schema, loading and validation. The public surface of the module.
 */

export { digestOf } from './build.ts';
export { CACHE_FORMAT_VERSION, desiredCacheKey, isCacheKey, LOADER_VERSION, loaderFingerprint } from './cache.ts';
export { API_VERSION, EVENT_TYPE_NAMES, KINDS, NOTIFICATION_FIELDS, NOTIFICATION_TYPES } from './enums.ts';
export { formatIssues, sortIssues } from './format.ts';
export { type CachedLoad, type DesiredCacheStatus, loadDesiredState, loadDesiredStateCached } from './load.ts';
export { renderDesiredState } from './render.ts';
export { DESIRED_STATE_SCHEMA } from './schema.ts';
export { formatSecretRef, parseSecretRef, SECRET_REF_PATTERN } from './secret-ref.ts';
export { checkSnapshot, DEFAULT_SNAPSHOT_POLICY, type SnapshotOutcome, type SnapshotPolicy } from './snapshot-check.ts';
export { DEFAULT_LOAD_OPTIONS, type LoadOptions, type LoadResult, type ValidationIssue } from './types.ts';
