/**
 * The pinned version manifest of Settings: read through the source port, refused unless it is UTF-8 JSON that looks
 * like a version manifest. Its text is kept exactly as stored, because Ops Manager wants it uploaded unaltered.
 */
import { createHash } from 'node:crypto';
import type { DesiredStateSource } from '../ports.ts';
import { asArray, asRecord, issueAt } from './issue.ts';
import type { ParsedDocument } from './parse.ts';
import type { LoadOptions, ValidationIssue } from './types.ts';

/** A pinned manifest that passed the checks. */
export interface PinnedManifest {
  path: string;
  text: string;
  sha256: string;
  version?: string;
}

/** Reads and checks the manifest named by `spec.versionManifest.pin` of a Settings document. */
export async function readPinnedManifest(
  settings: ParsedDocument,
  path: string,
  source: DesiredStateSource,
  options: Pick<LoadOptions, 'maxManifestBytes'>,
): Promise<{ pin: PinnedManifest } | { issue: ValidationIssue; readError?: unknown }> {
  const at = ['spec', 'versionManifest', 'pin'];
  const fail = (message: string, found?: string) => ({
    issue: issueAt(settings, at, `versionManifest.pin ${JSON.stringify(path)}: ${message}`, {
      expected: 'a JSON version manifest under the desired-state root',
      ...(found ? { found } : {}),
    }),
  });
  let read: { bytes: Uint8Array; version?: string; size?: number };
  try {
    read = await source.read(path, { maxBytes: options.maxManifestBytes });
  } catch (error) {
    // With the source's error: the loader tells a manifest that is not there (an issue of the desired state) from one
    // that could not be read now (S3 throttled, refused, unreachable: the run fails with that error, not as invalid).
    const reason = error instanceof Error ? error.message : String(error);
    return { ...fail(`cannot be read from ${source.describe()} (${reason})`), readError: error };
  }
  const size = Math.max(read.size ?? 0, read.bytes.length);
  if (size > options.maxManifestBytes) {
    // In bytes, as the YAML files' limit is said; and what it is the limit of.
    return fail(`is ${size} bytes, over the limit of ${options.maxManifestBytes} bytes for a pinned manifest`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(read.bytes);
  } catch {
    return fail('is not valid UTF-8', 'invalid UTF-8');
  }
  // Kept in the text (ignoreBOM) because the manifest is uploaded as stored; JSON has no BOM, and JSON.parse's own
  // message would quote the invisible character.
  if (text.startsWith('\uFEFF')) {
    return fail(
      'starts with a byte order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without one',
      'a byte order mark',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail(`is not valid JSON (${error instanceof Error ? error.message : 'parse error'})`, 'invalid JSON');
  }
  const manifest = asRecord(value);
  if (!manifest || !Array.isArray(manifest.versions)) {
    return fail('does not look like a version manifest: expected a JSON object with a "versions" list');
  }
  // Uploaded as it is, an empty list leaves Ops Manager with no MongoDB version to deploy or upgrade to (in local
  // mode), and an empty name is no version: almost surely a truncated or hand-trimmed file, refused before any write.
  if (manifest.versions.length === 0) {
    return fail(
      'has an empty "versions" list: uploaded, it would leave Ops Manager no MongoDB version to deploy; pin a manifest with the versions you approve',
    );
  }
  const unnamed = asArray(manifest.versions).findIndex((v) => {
    const name = asRecord(v)?.name;
    return typeof name !== 'string' || name.trim() === '';
  });
  if (unnamed >= 0) {
    return fail(`does not look like a version manifest: versions[${unnamed}] has no "name" (a non-empty string)`);
  }
  const sha256 = createHash('sha256').update(read.bytes).digest('hex');
  return { pin: { path, text, sha256, ...(read.version ? { version: read.version } : {}) } };
}
