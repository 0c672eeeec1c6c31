/**
 * A SecretResolver over a local JSON file `{"<secret id>": {"<json key>": "value"}}` (the CLI's `--secrets-file`),
 * the same shape as Secrets Manager secrets holding JSON. The file is read once, on first use.
 */
import { isRecord } from '../../../shared/is-record.ts';
import { whereJsonBroke } from '../../../shared/json-position.ts';
import { readRegularFile } from '../../../shared/regular-file.ts';
import type { SecretResolver } from '../../core/ports.ts';
import { describeFsCause } from './fs-failure.ts';
import { parseRefOrThrow, SecretResolutionError } from './secret-errors.ts';

export { SecretResolutionError } from './secret-errors.ts';

/** Resolves secret references from a JSON file. */
export class FileSecretResolver implements SecretResolver {
  readonly path: string;
  private secrets: Promise<Record<string, unknown>> | undefined;

  /** @param path the secrets file (JSON object of objects). */
  constructor(path: string) {
    this.path = path;
  }

  /**
   * Reads and checks the file now; throws SecretResolutionError. The CLI calls it before a run, so that a missing or
   * malformed file is one error up front, not one blocked alert config per secret reference.
   */
  async check(): Promise<void> {
    this.secrets ??= this.load('');
    await this.secrets.catch((error: unknown) => {
      this.secrets = undefined;
      throw error;
    });
  }

  /** The value of `<secret id>#<json key>`; throws SecretResolutionError. */
  async resolve(ref: string): Promise<string> {
    const parsed = parseRefOrThrow(ref);
    this.secrets ??= this.load(ref);
    // A failed load is not cached: the file may be fixed while a long-lived process runs.
    const secrets = await this.secrets.catch((error: unknown) => {
      this.secrets = undefined;
      throw error;
    });
    // Own members only: `constructor` or `toString` is in every object, not in the file.
    const secret = Object.hasOwn(secrets, parsed.id) ? secrets[parsed.id] : undefined;
    if (secret === undefined) {
      const message = `secret "${parsed.id}" (for ${ref}) is not in the secrets file ${this.path}`;
      throw new SecretResolutionError('SECRET_NOT_FOUND', ref, message);
    }
    if (!isRecord(secret)) {
      const message = `secret "${parsed.id}" in ${this.path} must be a JSON object of keys, as {"${parsed.key}": "..."}`;
      throw new SecretResolutionError('SECRETS_FILE_INVALID', ref, message);
    }
    const value = Object.hasOwn(secret, parsed.key) ? (secret as Record<string, unknown>)[parsed.key] : undefined;
    if (value === undefined) {
      const message = `secret "${parsed.id}" in ${this.path} has no key "${parsed.key}"`;
      throw new SecretResolutionError('SECRET_KEY_NOT_FOUND', ref, message);
    }
    if (typeof value !== 'string' || value === '') {
      const what = typeof value === 'string' ? 'empty' : `a ${value === null ? 'null' : typeof value}, not a string`;
      const message = `key "${parsed.key}" of secret "${parsed.id}" in ${this.path} is ${what}`;
      throw new SecretResolutionError('SECRET_NOT_STRING', ref, message);
    }
    return value;
  }

  private async load(ref: string): Promise<Record<string, unknown>> {
    let text: string;
    try {
      // A FIFO or a device is refused, not waited on (a FIFO with no writer would hang the run).
      text = await readRegularFile(this.path, 'utf8');
    } catch (error) {
      const message = `secrets file ${this.path} cannot be read: ${describeFsCause(this.path, error, 'read')}`;
      throw new SecretResolutionError('SECRETS_FILE_NOT_FOUND', ref, message, { cause: error });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // The parser's message may quote the file's text, which holds secrets: only where it broke is passed on.
      const message = `secrets file ${this.path} is not valid JSON${whereJsonBroke(text, error)}`;
      throw new SecretResolutionError('SECRETS_FILE_INVALID', ref, message);
    }
    if (!isRecord(value)) {
      const message = `secrets file ${this.path} must hold a JSON object {"<secret id>": {"<json key>": "value"}}`;
      throw new SecretResolutionError('SECRETS_FILE_INVALID', ref, message);
    }
    return value as Record<string, unknown>;
  }
}
