/**
 * Secrets Manager through Powertools Parameters' `SecretsProvider` (cached ~5 minutes): the Ops Manager credentials
 * secret, and the `secretRef`s of the desired state (`<secret id>#<json key>`). Errors name the secret id and key, and
 * the problem; never a value, and never a JSON parser message (which quotes the text it choked on).
 */

import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { isRecord } from '../../../shared/is-record.ts';
import type { SecretResolver } from '../../core/ports.ts';
import { parseFingerprintKey } from '../local/fingerprint-key.ts';
import { SecretsManagerAdapterError } from './errors.ts';

/** How secrets are fetched. */
export interface SecretsOptions {
  /** The SDK client (default: a new one, honouring `AWS_ENDPOINT_URL_SECRETS_MANAGER`). */
  client?: SecretsManagerClient;
  /** Seconds a fetched secret is reused before it is fetched again (default 300). */
  maxAgeSeconds?: number;
}

/** Default cache lifetime: rotated keys are picked up within five minutes, and a run costs no extra API calls. */
export const DEFAULT_SECRET_MAX_AGE_SECONDS = 300;

/**
 * How Secrets Manager words the ResourceNotFoundException of a secret that exists without a value for the stage read
 * (`...can't find the specified secret value for staging label: AWSCURRENT`), as against a missing secret (`...can't
 * find the specified secret.`).
 */
const NO_VALUE = /secret value for (staging label|VersionId)/i;

/** How Secrets Manager words the InvalidRequestException of a secret scheduled for deletion. */
const DELETION = /marked for deletion|scheduled for deletion|pending deletion/i;

/** What an AccessDeniedException means for these functions, whose roles read one name prefix only (infra/permissions.ts). */
const ACCESS_DENIED_DETAIL =
  "access denied: the functions may read only the secrets whose names start with the stack's secretNamePrefix (opsman/ by default); check the secret's name, the function role and the secret's resource and KMS key policies";

const EMPTY_DETAIL = 'has no value yet (no AWSCURRENT version); fill it with put-secret-value (see docs/aws.md)';

/** The Ops Manager credentials secret, parsed. */
export interface OpsManagerCredentials {
  publicKey: string;
  privateKey: string;
  /** Key of the state fingerprints (HMAC-SHA-256); absent means "derive one from the private key". */
  fingerprintKey?: string;
}

/** Fetches secret strings (cached) and parses them as JSON objects with value-free errors. */
export class SecretJsonSource {
  readonly #provider: SecretsProvider;
  readonly #maxAge: number;

  constructor(options: SecretsOptions = {}) {
    this.#provider = options.client ? new SecretsProvider({ awsSdkV3Client: options.client }) : new SecretsProvider();
    this.#maxAge = options.maxAgeSeconds ?? DEFAULT_SECRET_MAX_AGE_SECONDS;
  }

  /** The secret's JSON object; `fresh` reads it from Secrets Manager even when the cached value is still young. */
  async getObject(secretId: string, options: { fresh?: boolean } = {}): Promise<Record<string, unknown>> {
    let raw: string | Uint8Array | undefined;
    try {
      raw = await this.#provider.get(secretId, { maxAge: this.#maxAge, forceFetch: options.fresh === true });
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause ?? error;
      const name = (cause as { name?: unknown })?.name;
      if (name === 'ResourceNotFoundException' && NO_VALUE.test(String((cause as { message?: unknown }).message))) {
        // A secret created without a value (`create-secret --name` alone) has no AWSCURRENT version: it exists.
        throw new SecretsManagerAdapterError('SECRET_EMPTY', secretId, undefined, EMPTY_DETAIL, { cause });
      }
      if (name === 'ResourceNotFoundException') {
        throw new SecretsManagerAdapterError('SECRET_NOT_FOUND', secretId, undefined, 'no such secret', { cause });
      }
      if (name === 'AccessDeniedException') {
        // Above all a secretRef outside the prefix the stack grants (`prod/notify#x`): say so, since IAM will not.
        throw new SecretsManagerAdapterError('SECRET_ACCESS_DENIED', secretId, undefined, ACCESS_DENIED_DETAIL, {
          cause,
        });
      }
      if (name === 'InvalidRequestException') {
        // Not valid for the secret's current state: above all a secret scheduled for deletion (`...because it was
        // marked for deletion`), which stays so until restored or deleted. A retry meets the same state.
        const deleted = DELETION.test(String((cause as { message?: unknown }).message));
        throw new SecretsManagerAdapterError(
          deleted ? 'SECRET_SCHEDULED_FOR_DELETION' : 'SECRET_REQUEST_INVALID',
          secretId,
          undefined,
          deleted
            ? 'is scheduled for deletion; restore it with aws secretsmanager restore-secret'
            : `cannot be read in its current state: ${error instanceof Error ? error.message : String(error)}`,
          { cause },
        );
      }
      if (name === 'DecryptionFailure') {
        // The KMS key is disabled, deleted or not usable by this role: a retry meets the same key.
        throw new SecretsManagerAdapterError(
          'SECRET_DECRYPTION_FAILED',
          secretId,
          undefined,
          "cannot be decrypted with its KMS key; check that the key is enabled and grants this function's role kms:Decrypt",
          { cause },
        );
      }
      if (name === 'SyntaxError' || cause instanceof SyntaxError) {
        // An answer the SDK could not parse (torn, or not Secrets Manager's): JSON.parse's message quotes characters
        // around where it stopped, which may be the SecretString's. Neither the message nor the cause is kept.
        throw new SecretsManagerAdapterError(
          'SECRET_UNAVAILABLE',
          secretId,
          undefined,
          "cannot be read: Secrets Manager's answer was not valid JSON (torn, or sent by something else at its endpoint)",
        );
      }
      const detail = error instanceof Error ? error.message : String(error);
      throw new SecretsManagerAdapterError('SECRET_UNAVAILABLE', secretId, undefined, `cannot be read: ${detail}`, {
        cause,
      });
    }
    if (raw === undefined || raw === '') {
      throw new SecretsManagerAdapterError('SECRET_EMPTY', secretId, undefined, EMPTY_DETAIL);
    }
    if (typeof raw !== 'string') {
      throw new SecretsManagerAdapterError(
        'SECRET_NOT_JSON',
        secretId,
        undefined,
        'is binary; expected a JSON SecretString',
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new SecretsManagerAdapterError(
        'SECRET_NOT_JSON',
        secretId,
        undefined,
        `is not valid JSON (${raw.length} characters)`,
      );
    }
    if (!isRecord(value)) {
      throw new SecretsManagerAdapterError('SECRET_NOT_JSON', secretId, undefined, 'is not a JSON object');
    }
    return value as Record<string, unknown>;
  }
}

const PUBLIC_KEY = /^[A-Za-z0-9]{1,64}$/;
const PRIVATE_KEY = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Reads and validates the credentials secret `{"publicKey","privateKey","fingerprintKey?"}`; `fresh` bypasses (and
 * refills) the cache.
 */
export async function loadOpsManagerCredentials(
  source: SecretJsonSource,
  secretId: string,
  options: { fresh?: boolean } = {},
): Promise<OpsManagerCredentials> {
  const value = await source.getObject(secretId, options);
  if (Object.keys(value).length === 0) {
    throw new SecretsManagerAdapterError(
      'CREDENTIALS_NOT_FILLED',
      secretId,
      undefined,
      'has not been filled yet: put {"publicKey": "...", "privateKey": "..."} into it (docs/aws.md, first-time steps)',
    );
  }
  const problems: string[] = [];
  const { publicKey, privateKey, fingerprintKey } = value;
  if (typeof publicKey !== 'string' || publicKey === '') problems.push('publicKey must be a non-empty string');
  else if (!PUBLIC_KEY.test(publicKey)) problems.push('publicKey must be letters and digits only');
  if (typeof privateKey !== 'string' || privateKey === '') problems.push('privateKey must be a non-empty string');
  else if (privateKey.trim() !== privateKey) {
    problems.push('privateKey has leading or trailing whitespace (a newline copied from a file?); store the key alone');
  } else if (!PRIVATE_KEY.test(privateKey)) {
    // The client's own rule (opsman/options-resolve.ts), checked here so that the message names the secret.
    problems.push('privateKey must be printable ASCII without spaces, quotes or backslashes');
  }
  if (fingerprintKey !== undefined && (typeof fingerprintKey !== 'string' || fingerprintKey.length < 16)) {
    problems.push('fingerprintKey, when set, must be a string of at least 16 characters');
  } else if (typeof fingerprintKey === 'string') {
    // Parsed now rather than at first use, so that every problem of the secret is told at once, under its code.
    try {
      parseFingerprintKey(fingerprintKey, 'fingerprintKey');
    } catch (error) {
      problems.push(error instanceof Error ? error.message : 'fingerprintKey cannot be parsed');
    }
  }
  const unknown = Object.keys(value).filter((k) => !['publicKey', 'privateKey', 'fingerprintKey'].includes(k));
  if (unknown.length > 0) problems.push(`unexpected keys: ${unknown.sort().join(', ')}`);
  if (problems.length > 0) {
    throw new SecretsManagerAdapterError(
      'CREDENTIALS_INVALID',
      secretId,
      undefined,
      `expected {"publicKey": "...", "privateKey": "...", "fingerprintKey"?: "..."}: ${problems.join('; ')}`,
    );
  }
  const credentials: OpsManagerCredentials = { publicKey: publicKey as string, privateKey: privateKey as string };
  if (typeof fingerprintKey === 'string') credentials.fingerprintKey = fingerprintKey;
  return credentials;
}

/** Options of SecretsManagerResolver. */
export interface SecretsResolverOptions {
  /**
   * Name or ARN of the Ops Manager credentials secret: a reference whose value is that secret's `privateKey` or
   * `fingerprintKey` is refused (SECRET_REF_REFUSED), whatever secret it names. Unset: no such check.
   */
  credentialsSecretId?: string;
}

/** Fields of the credentials secret that are never sent to Ops Manager as a notification secret. */
const CREDENTIAL_FIELDS = ['privateKey', 'fingerprintKey'] as const;

/** Resolves `<secret id>#<json key>` through Secrets Manager; each secret fetched once per cache lifetime. */
export class SecretsManagerResolver implements SecretResolver {
  readonly #source: SecretJsonSource;
  readonly #credentialsSecretId: string | undefined;

  constructor(source: SecretJsonSource, options: SecretsResolverOptions = {}) {
    this.#source = source;
    this.#credentialsSecretId = options.credentialsSecretId;
  }

  async resolve(ref: string): Promise<string> {
    const hash = ref.indexOf('#');
    const secretId = hash > 0 ? ref.slice(0, hash) : '';
    const jsonKey = hash > 0 ? ref.slice(hash + 1) : '';
    if (secretId === '' || jsonKey === '') {
      throw new SecretsManagerAdapterError('SECRET_REF_INVALID', ref, undefined, "expected '<secret id>#<json key>'");
    }
    const value = await this.#source.getObject(secretId);
    if (!Object.hasOwn(value, jsonKey)) {
      const keys = Object.keys(value).sort().join(', ') || 'none';
      throw new SecretsManagerAdapterError(
        'SECRET_KEY_MISSING',
        secretId,
        jsonKey,
        `no such key (keys present: ${keys})`,
      );
    }
    const field = value[jsonKey];
    if (typeof field !== 'string' || field === '') {
      throw new SecretsManagerAdapterError(
        'SECRET_KEY_NOT_STRING',
        secretId,
        jsonKey,
        'value must be a non-empty string',
      );
    }
    await this.#refuseCredential(secretId, jsonKey, field);
    return field;
  }

  /**
   * The functions may read every secret under their prefix, the credentials secret included: without this, a YAML
   * author could have the API private key sent to Ops Manager (and on to a webhook) as a notification secret. Compared
   * by value, so neither an ARN, another name nor a copy in another secret gets around it.
   */
  async #refuseCredential(secretId: string, jsonKey: string, field: string): Promise<void> {
    const id = this.#credentialsSecretId;
    if (id === undefined) return;
    // Cached by the provider: the run has read this secret already. A failure to read it is the reference's failure
    // (that alert config is blocked): skipping the check would let a copy of the private key through unchecked.
    const credentials = await this.#source.getObject(id);
    const match = CREDENTIAL_FIELDS.find((name) => credentials[name] === field);
    if (match === undefined) return;
    throw new SecretsManagerAdapterError(
      'SECRET_REF_REFUSED',
      secretId,
      jsonKey,
      `holds the ${match} of the credentials secret ${id}; Ops Manager credentials are never sent in an alert config`,
    );
  }
}
