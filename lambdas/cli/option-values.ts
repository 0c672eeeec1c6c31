/** Validation of the option values that are more than a string: numbers, durations, URLs. Each throws UsageError. */
import { UsageError } from './errors.ts';

/** A whole number >= 0 (bounded), or undefined when absent. */
export function nonNegativeInteger(flag: string, value: string | undefined, command?: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value)) {
    throw new UsageError(`${flag} expects a whole number >= 0, found '${value}'`, command);
  }
  return Number(value);
}

/** Seconds to wait for a lease: 0..86400, up to millisecond precision. */
export function leaseWait(value: string | undefined, command?: string): number {
  if (value === undefined) return 0;
  if (!/^\d{1,5}(\.\d{1,3})?$/.test(value) || Number(value) > 86_400) {
    throw new UsageError(`--lease-wait expects seconds between 0 and 86400, found '${value}'`, command);
  }
  return Number(value);
}

/** An http(s) base URL without credentials, trailing slashes dropped; undefined when absent or empty. */
export function baseUrl(value: string | undefined, command?: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`the base URL '${value}' is not a URL (expected https://host:port/api/public/v1.0)`, command);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the base URL must be http or https, found '${url.protocol}'`, command);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      'the base URL must not carry credentials: use OPSMAN_PUBLIC_KEY and OPSMAN_PRIVATE_KEY',
      command,
    );
  }
  return value.replace(/\/+$/, '');
}
