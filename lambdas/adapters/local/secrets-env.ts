/**
 * A SecretResolver over environment variables: `<secret id>#<json key>` is read from
 * `OPSMAN_SECRET_<ID>_<KEY>`, upper-cased, every character other than A-Z and 0-9 replaced by `_`
 * (`opsman/notify#payments-webhook-url` -> `OPSMAN_SECRET_OPSMAN_NOTIFY_PAYMENTS_WEBHOOK_URL`).
 */
import type { SecretResolver } from '../../core/ports.ts';
import { parseRefOrThrow, SecretResolutionError } from './secret-errors.ts';

export { SecretResolutionError } from './secret-errors.ts';

/** Prefix of every secret variable. */
export const SECRET_ENV_PREFIX = 'OPSMAN_SECRET_';

/** The variable name that holds a secret reference's value. */
export function secretEnvName(id: string, key: string): string {
  const part = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return `${SECRET_ENV_PREFIX}${part(id)}_${part(key)}`;
}

/** Resolves secret references from an environment (process.env by default). */
export class EnvSecretResolver implements SecretResolver {
  private readonly env: Readonly<Record<string, string | undefined>>;

  /** @param env the variables to read (defaults to process.env). */
  constructor(env: Readonly<Record<string, string | undefined>> = process.env) {
    this.env = env;
  }

  /** The value of `<secret id>#<json key>`; throws SecretResolutionError. */
  async resolve(ref: string): Promise<string> {
    const parsed = parseRefOrThrow(ref);
    const name = secretEnvName(parsed.id, parsed.key);
    const value = this.env[name];
    if (value === undefined) {
      throw new SecretResolutionError(
        'SECRET_NOT_FOUND',
        ref,
        `secret ${ref} not found: set the environment variable ${name}`,
      );
    }
    if (value === '') {
      throw new SecretResolutionError(
        'SECRET_NOT_STRING',
        ref,
        `secret ${ref}: the environment variable ${name} is empty`,
      );
    }
    return value;
  }
}
