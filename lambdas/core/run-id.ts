/**
 * Run ids, one format for the CLI and the Lambdas: the UTC time to the second, then random hex
 * (`20261121T100102Z-3f9a1c0b`). Sortable by time as text, unique across concurrent runs, and safe in S3 keys and
 * file names (report paths are made from it).
 */
import { randomBytes } from 'node:crypto';

/** A new run id for a run starting at `now`. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}
