/**
 * The HMAC key of the state's fingerprints. From `OPSMAN_FINGERPRINT_KEY` (hex or base64, at least 16 bytes), else
 * generated once into `<state dir>/fingerprint.key` (mode 0600) and reused. It must stay stable: a new key makes every
 * stored secret fingerprint differ, so the next apply re-sends every secret once (harmless, but noisy).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { link, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectories, PRIVATE_DIRECTORY_MODE } from '../../../shared/make-directories.ts';
import { readRegularFile } from '../../../shared/regular-file.ts';
import { ReconcileError } from '../../core/errors.ts';
import { syncDirectory } from './dir-sync.ts';
import { describeFsCause, FsStoreError } from './fs-failure.ts';

/** Smallest accepted key, in bytes. */
export const MIN_KEY_BYTES = 16;

/** The key could not be read, parsed or created (the message never contains key material). */
export class FingerprintKeyError extends ReconcileError {
  override name = 'FingerprintKeyError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('FINGERPRINT_KEY', message, options);
  }
}

/** Parses a key given as hex or base64; throws FingerprintKeyError naming the source. */
export function parseFingerprintKey(text: string, source: string): Uint8Array {
  const value = text.trim();
  let bytes: Buffer;
  if (/^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0) bytes = Buffer.from(value, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) bytes = Buffer.from(value, 'base64');
  else throw new FingerprintKeyError(`${source} is neither hex nor base64`);
  if (bytes.length < MIN_KEY_BYTES)
    throw new FingerprintKeyError(`${source} is ${bytes.length} bytes; at least ${MIN_KEY_BYTES} are needed`);
  return new Uint8Array(bytes);
}

/** The fingerprint key: from the environment, else the state directory's key file (created on first use). */
export async function loadFingerprintKey(
  stateDir: string,
  env: Record<string, string | undefined>,
): Promise<Uint8Array> {
  const fromEnv = env.OPSMAN_FINGERPRINT_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return parseFingerprintKey(fromEnv, 'OPSMAN_FINGERPRINT_KEY');
  const path = join(stateDir, 'fingerprint.key');
  try {
    return parseFingerprintKey(await readRegularFile(path, 'utf8'), path);
  } catch (error) {
    // ENOTDIR: a part of the state directory's path is a file; creating the directory below says which.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      if (error instanceof FingerprintKeyError) throw error;
      throw new FingerprintKeyError(`cannot read ${path}: ${describeFsCause(path, error, 'read')}`, { cause: error });
    }
  }
  try {
    await makeDirectories(stateDir, PRIVATE_DIRECTORY_MODE);
  } catch (error) {
    // A state directory problem, not a key problem: it is named and coded as the state stores name theirs.
    throw new FsStoreError(
      `cannot create the state directory ${stateDir}: ${describeFsCause(stateDir, error)}`,
      stateDir,
      {
        cause: error,
      },
    );
  }
  const key = randomBytes(32);
  // Written whole to a temp file, then published with link(): a concurrent reader never sees a half-written key.
  const temp = join(stateDir, `.fingerprint.key.${randomUUID()}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${key.toString('hex')}\n`);
      await handle.sync();
    } catch (error) {
      // The write's own failure is the one reported, not a close failing after it.
      await handle.close().catch(() => undefined);
      throw error;
    }
    await handle.close();
    await link(temp, path);
    // The link is durable only once the directory is: a power cut right after would otherwise lose the key, and the
    // next apply, with a new key, would see every secret fingerprint changed and send every secret again.
    await syncDirectory(stateDir);
    return new Uint8Array(key);
  } catch (error) {
    // Another process published one first: use theirs, so both agree.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return parseFingerprintKey(await readRegularFile(path, 'utf8'), path);
    throw new FingerprintKeyError(`cannot create ${path}: ${describeFsCause(path, error)}`, { cause: error });
  } finally {
    // Never in place of the outcome above: a temp file that cannot be removed is left, as a kill would leave it.
    await rm(temp, { force: true }).catch(() => undefined);
  }
}
