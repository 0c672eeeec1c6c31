// A desired-state folder holding files the deployment's excludes remove, made in a temporary directory (a .git
// folder cannot be committed as a fixture).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Files uploaded: the paths the snapshot manifest must list. */
export const UPLOADED = [
  'README.md',
  'manifests/approved.json',
  'projects/a.yaml',
  'projects/empty.yaml',
  'projects/nested/deep/b.yml',
  'projects/with space.yaml',
  'settings.yaml',
];

/** Files the excludes remove (secrets files, dot files, dot folders at any depth). */
export const EXCLUDED = [
  'local-secrets.json',
  'projects/local-secrets.json',
  'foo-secret.json',
  'projects/nested/db-secrets.json',
  '.hidden.yaml',
  'projects/.hidden.yaml',
  '.git/config',
  '.git/objects/ab/cdef',
  'projects/.cache/x.yaml',
];

/** Makes the folder under the system temp directory; returns its absolute path. */
export function makeDesiredFixture(): string {
  const root = mkdtempSync(join(tmpdir(), 'opsman-desired-fixture-'));
  for (const path of [...UPLOADED, ...EXCLUDED]) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, path === 'projects/empty.yaml' ? '' : `# ${path}\nname: ${path.length}\n`);
  }
  return root;
}
