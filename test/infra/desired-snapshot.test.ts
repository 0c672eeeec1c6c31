// Scenario: the snapshot manifest of the desired-state upload lists exactly the files CDK stages for the deployment
// (its own copy, run on the same folder and excludes), and refuses what it cannot describe (symbolic links).
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { FileSystem } from 'aws-cdk-lib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DesiredStateSourceError, deployedFiles, desiredStateSnapshot } from '../../infra/desired-snapshot.ts';
import { DEPLOY_EXCLUDES } from '../../infra/triggers.ts';
import { buildSnapshotManifest } from '../../lambdas/core/desired/snapshot-manifest.ts';
import { EXCLUDED, makeDesiredFixture, UPLOADED } from './desired-fixture.ts';

/** Every file under `dir` (no excludes), as relative paths with their bytes. */
function allFiles(dir: string): { path: string; bytes: Uint8Array }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const full = join(e.parentPath, e.name);
      return { path: relative(dir, full).split('\\').join('/'), bytes: readFileSync(full) };
    });
}

describe('desiredStateSnapshot', () => {
  let dir: string;
  let scratch: string;
  beforeEach(() => {
    dir = makeDesiredFixture();
    scratch = mkdtempSync(join(tmpdir(), 'opsman-desired-copy-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the uploaded files, not the secrets files, dot files or dot folders, with their SHA-256 and size', () => {
    const manifest = desiredStateSnapshot(dir, DEPLOY_EXCLUDES);
    expect(manifest.files.map((f) => f.path)).toEqual(UPLOADED);
    for (const excluded of EXCLUDED) expect(manifest.files.map((f) => f.path)).not.toContain(excluded);
    const empty = manifest.files.find((f) => f.path === 'projects/empty.yaml');
    expect(empty).toEqual({
      path: 'projects/empty.yaml',
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      size: 0,
    });
  });

  it("matches aws-cdk-lib's own copy of the folder with the same excludes (what asset staging runs)", () => {
    FileSystem.copyDirectory(dir, scratch, { exclude: [...DEPLOY_EXCLUDES] });
    expect(desiredStateSnapshot(dir, DEPLOY_EXCLUDES)).toEqual(buildSnapshotManifest(allFiles(scratch)));
  });

  it('refuses a symbolic link that would be uploaded, naming it; an excluded one is skipped as CDK skips it', () => {
    symlinkSync(join(dir, 'projects/a.yaml'), join(dir, '.link.yaml'));
    expect(deployedFiles(dir, DEPLOY_EXCLUDES).map((f) => f.path)).toEqual(UPLOADED);
    symlinkSync(join(dir, 'projects/a.yaml'), join(dir, 'projects/link.yaml'));
    const attempt = () => desiredStateSnapshot(dir, DEPLOY_EXCLUDES);
    expect(attempt).toThrow(DesiredStateSourceError);
    expect(attempt).toThrow('desired-state file projects/link.yaml is a symbolic link');
  });

  it('refuses a pinned version manifest the excludes keep out of the upload (every run would refuse the state)', () => {
    const settings = (pin: string) =>
      `apiVersion: opsman-gitops/v1\nkind: Settings\nspec:\n  versionManifest:\n    pin: ${pin}\n`;
    writeFileSync(join(dir, 'manifests', 'approved-secret.json'), '{"versions":[]}\n');
    writeFileSync(join(dir, 'settings.yaml'), settings('manifests/approved-secret.json'));
    const attempt = () => desiredStateSnapshot(dir, DEPLOY_EXCLUDES);
    expect(attempt).toThrow(DesiredStateSourceError);
    expect(attempt).toThrow(
      'settings.yaml: versionManifest.pin "manifests/approved-secret.json" is excluded from the upload (DEPLOY_EXCLUDES',
    );
    // An uploaded pin is fine; a pin naming no file of the folder is the loader's to report.
    writeFileSync(join(dir, 'settings.yaml'), settings('manifests/approved.json'));
    expect(desiredStateSnapshot(dir, DEPLOY_EXCLUDES).files.map((f) => f.path)).toEqual(UPLOADED);
    writeFileSync(join(dir, 'settings.yaml'), settings('manifests/nowhere.json'));
    expect(desiredStateSnapshot(dir, DEPLOY_EXCLUDES).files.map((f) => f.path)).toEqual(UPLOADED);
  });

  // The loader reads `.yml` files as it reads `.yaml` ones (docs/aws.md): a Settings there pins the manifest as well.
  it('refuses such a pin in a Settings document of a .yml file too', () => {
    writeFileSync(join(dir, 'manifests', 'approved-secret.json'), '{"versions":[]}\n');
    writeFileSync(
      join(dir, 'projects', 'pinned.yml'),
      'apiVersion: opsman-gitops/v1\nkind: Settings\nspec:\n  versionManifest:\n    pin: manifests/approved-secret.json\n',
    );
    expect(() => desiredStateSnapshot(dir, DEPLOY_EXCLUDES)).toThrow(
      'projects/pinned.yml: versionManifest.pin "manifests/approved-secret.json" is excluded from the upload',
    );
  });

  it('refuses a file name the manifest cannot hold, as a DesiredStateSourceError', () => {
    writeFileSync(join(dir, 'projects', 'back\\slash.yaml'), 'x: 1\n');
    expect(() => desiredStateSnapshot(dir, DEPLOY_EXCLUDES)).toThrow(
      /desired-state folder cannot be uploaded: path "projects\/back\\\\slash.yaml" is not a relative path/,
    );
  });
});
