/**
 * The handlers' Powertools Logger (structured JSON) with a replacer that masks every secret-bearing key, whatever
 * object it sits in: private keys, notification secrets (the SECRET_NOTIFICATION_FIELDS of the API), tokens,
 * passwords, Authorization headers. Powertools has no redaction of its own; `jsonReplacerFn` sees every key.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { SECRET_NOTIFICATION_FIELDS } from '../opsman/types.ts';

/** What a masked value is replaced with. */
export const MASK = '[REDACTED]';

/** Keys (compared lower-cased) whose values are always masked. */
export const SECRET_KEYS: ReadonlySet<string> = new Set(
  [
    ...SECRET_NOTIFICATION_FIELDS,
    'privateKey',
    'fingerprintKey',
    'password',
    'secret',
    'secretString',
    'secretValue',
    'token',
    'accessToken',
    'sessionToken',
    'secretAccessKey',
    'authorization',
    'proxyAuthorization',
    'proxy-authorization',
    'cookie',
    'set-cookie',
    'x-amz-security-token',
  ].map((key) => key.toLowerCase()),
);

/**
 * Credentials in free text: a Digest Authorization value (`Digest username=...`, masked to the end of its line) or a
 * Basic/Bearer token. Case-sensitive on purpose, so prose such as "the desired digest" stays readable.
 */
const AUTH_IN_TEXT = /\b(?:Digest\s+(?=[A-Za-z]+=)[^\r\n]+|(?:Basic|Bearer)\s+[A-Za-z0-9._~+/-]{4,}=*)/g;

/** True when `key` names a secret-bearing field. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase());
}

/** The `jsonReplacerFn`: masks secret keys (unless already empty) and Authorization values inside strings. */
export function maskSecrets(key: string, value: unknown): unknown {
  if (key !== '' && isSecretKey(key) && value !== undefined && value !== null && value !== '') return MASK;
  if (typeof value === 'string') return value.replace(AUTH_IN_TEXT, (match) => `${match.split(/\s/, 1)[0]} ${MASK}`);
  return value;
}

/** Default service name (dimension of every metric, field of every log line). */
export const DEFAULT_SERVICE_NAME = 'opsman-gitops';

/** A Logger with the masking replacer; level and service name from POWERTOOLS_* variables. */
export function createLogger(options: { serviceName?: string } = {}): Logger {
  return new Logger({
    serviceName: options.serviceName ?? process.env.POWERTOOLS_SERVICE_NAME ?? DEFAULT_SERVICE_NAME,
    jsonReplacerFn: maskSecrets,
  });
}
