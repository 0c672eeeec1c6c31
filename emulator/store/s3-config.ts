/** Validation and redaction of S3 blockstore configurations, shared by the routes and the seed loader. */

import { isRecord } from '../../shared/is-record.ts';
import { maskAll } from '../alerts/redact.ts';
import { apiErrors } from '../errors.ts';
import { onlyKeys } from './resources.ts';
import type { S3ConfigRec } from './state.ts';

const S3_BOOLEANS = [
  'assignmentEnabled',
  'encryptedCredentials',
  'ssl',
  'acceptedTos',
  'pathStyleAccessEnabled',
  'sseEnabled',
];
const S3_STRINGS = ['awsAccessKey', 'awsSecretKey', 's3BucketEndpoint', 's3BucketName', 'uri'];
const S3_FIELDS = [
  'id',
  'links',
  'labels',
  'loadFactor',
  'writeConcern',
  's3AuthMethod',
  ...S3_BOOLEANS,
  ...S3_STRINGS,
];

/** Body of POST/PUT of an S3 blockstore configuration. On PUT, `previous` supplies an omitted or masked secret key. */
export function validateS3Config(body: unknown, pathId: string | undefined, previous?: S3ConfigRec): S3ConfigRec {
  if (!isRecord(body)) throw apiErrors.invalidJson();
  onlyKeys(body, S3_FIELDS);
  if (pathId !== undefined && body.id !== undefined && body.id !== pathId) throw apiErrors.readOnly('id');
  const id = pathId ?? body.id;
  if (id === undefined || id === null) throw apiErrors.missingAttribute('id');
  if (typeof id !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(id)) throw apiErrors.invalidJsonAttribute('id');
  const out: S3ConfigRec = { id };
  for (const f of S3_BOOLEANS) {
    if (body[f] === undefined || body[f] === null) continue;
    if (typeof body[f] !== 'boolean') throw apiErrors.invalidJsonAttribute(f);
    out[f] = body[f];
  }
  for (const f of S3_STRINGS) {
    if (body[f] === undefined || body[f] === null) continue;
    if (typeof body[f] !== 'string') throw apiErrors.invalidJsonAttribute(f);
    out[f] = body[f];
  }
  if (body.labels !== undefined && body.labels !== null) {
    if (!Array.isArray(body.labels) || body.labels.some((l) => typeof l !== 'string'))
      throw apiErrors.invalidJsonAttribute('labels');
    out.labels = [...body.labels];
  }
  if (body.loadFactor !== undefined && body.loadFactor !== null) {
    if (typeof body.loadFactor !== 'number' || !Number.isInteger(body.loadFactor) || body.loadFactor < 1) {
      throw apiErrors.invalidJsonAttribute('loadFactor');
    }
    out.loadFactor = body.loadFactor;
  }
  if (body.writeConcern !== undefined && body.writeConcern !== null) {
    if (typeof body.writeConcern !== 'string') throw apiErrors.invalidJsonAttribute('writeConcern');
    if (!['W1', 'W2', 'MAJORITY'].includes(body.writeConcern))
      throw apiErrors.invalidEnum(body.writeConcern, 'writeConcern');
    out.writeConcern = body.writeConcern;
  }
  const method = body.s3AuthMethod ?? 'KEYS';
  if (typeof method !== 'string') throw apiErrors.invalidJsonAttribute('s3AuthMethod');
  if (method !== 'KEYS' && method !== 'IAM_ROLE') throw apiErrors.invalidEnum(method, 's3AuthMethod');
  out.s3AuthMethod = method;
  const stored = previous?.awsSecretKey;
  if (typeof stored === 'string' && (out.awsSecretKey === undefined || out.awsSecretKey === maskAll(stored))) {
    out.awsSecretKey = stored;
  }
  for (const f of ['s3BucketEndpoint', 's3BucketName', 'uri', 'acceptedTos']) {
    if (out[f] === undefined) throw apiErrors.missingAttribute(f);
  }
  if (out.acceptedTos !== true) throw apiErrors.invalidAttribute('acceptedTos');
  if (method === 'KEYS') {
    if (out.awsAccessKey === undefined) throw apiErrors.missingAttribute('awsAccessKey');
    if (out.awsSecretKey === undefined) throw apiErrors.missingAttribute('awsSecretKey');
  }
  return out;
}

/** An S3 configuration as answered: the secret key fully masked. */
export function renderS3Config(rec: S3ConfigRec): Record<string, unknown> {
  const out: Record<string, unknown> = { ...rec };
  if (typeof rec.awsSecretKey === 'string') out.awsSecretKey = maskAll(rec.awsSecretKey);
  return out;
}
