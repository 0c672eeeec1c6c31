/**
 * The rules a bucket name and a key prefix from configuration must follow, checked before any request is made: with
 * path-style addressing a "bucket" `a/b` addresses bucket `a` and moves `b/` into every key, and a prefix `/state/` or
 * `a/../b/` names other keys than the ones meant (S3 takes keys as written and never resolves `..`).
 */

/** An IPv4 address in dotted form, which S3 refuses as a bucket name. */
const IP_ADDRESS = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The first S3 general purpose bucket naming rule `name` breaks, or undefined when it follows them all: 3-63
 * characters; lowercase letters, digits, dots and hyphens; a letter or digit first and last; no two adjacent dots; not
 * an IP address. (The reserved prefixes and suffixes such as `xn--` or `-s3alias` are left to S3 itself.)
 */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return `must be 3 to 63 characters long (this one has ${name.length})`;
  const bad = /[^a-z0-9.-]/.exec(name);
  if (bad) return `may contain only lowercase letters, digits, dots and hyphens (found ${JSON.stringify(bad[0])})`;
  if (!/^[a-z0-9].*[a-z0-9]$/.test(name)) return 'must begin and end with a letter or digit';
  if (name.includes('..')) return 'must not contain two adjacent dots';
  if (IP_ADDRESS.test(name)) return 'must not be formatted as an IP address';
  return undefined;
}

const isControl = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f;
};

/**
 * What is wrong with a key prefix as configured, or undefined when it is usable. `''` (the whole bucket) is fine, and
 * so are trailing slashes (normalisePrefix keeps exactly one); a leading slash, an empty, `.` or `..` segment, or a
 * control character is not.
 */
export function keyPrefixProblem(prefix: string): string | undefined {
  if (prefix.startsWith('/')) return 'must not begin with "/" (S3 keys are taken as written)';
  if ([...prefix].some(isControl)) return 'must not contain control characters';
  const segments = prefix.replace(/\/+$/, '').split('/');
  if (segments.some((segment) => segment === '.' || segment === '..')) return 'must not contain "." or ".." segments';
  if (prefix !== '' && segments.includes('')) return 'must not contain empty segments ("//")';
  return undefined;
}
