/**
 * Test helper: an in-memory DesiredStateSource built from a map of path -> text (or bytes).
 */
import type { DesiredFileRef, DesiredStateSource } from '../../../lambdas/core/ports.ts';

/** Gives a listed file its content tag (DesiredFileRef.contentTag), or none. */
export type TagOf = (path: string, bytes: Uint8Array) => string | undefined;

/** A source over in-memory files; `reads` records every path read; with `tagOf`, listed files carry content tags. */
export class MemorySource implements DesiredStateSource {
  readonly reads: string[] = [];
  private readonly files: Map<string, Uint8Array>;

  constructor(
    files: Record<string, string | Uint8Array>,
    private readonly tagOf?: TagOf,
  ) {
    this.files = new Map(
      Object.entries(files).map(([path, content]) => [
        path,
        typeof content === 'string' ? new TextEncoder().encode(content) : content,
      ]),
    );
  }

  describe(): string {
    return 'memory:/';
  }

  async list(): Promise<DesiredFileRef[]> {
    return [...this.files.entries()]
      .filter(([path]) => /\.ya?ml$/.test(path))
      .map(([path, bytes]): DesiredFileRef => {
        const contentTag = this.tagOf?.(path, bytes);
        return contentTag === undefined ? { path, size: bytes.length } : { path, size: bytes.length, contentTag };
      })
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async read(path: string): Promise<{ bytes: Uint8Array }> {
    this.reads.push(path);
    const bytes = this.files.get(path);
    if (!bytes) throw Object.assign(new Error(`no file ${path}`), { code: 'NOT_FOUND' });
    return { bytes };
  }

  async readIfPresent(path: string): Promise<{ bytes: Uint8Array } | undefined> {
    return this.files.has(path) ? this.read(path) : undefined;
  }
}

/** A minimal valid Project document (YAML text) with the given spec lines appended under `spec:`. */
export function projectYaml(specLines: string, metadata = 'name: p1\n  projectId: 5e2211c17a3e5a48f5497de3'): string {
  return `apiVersion: opsman-gitops/v1\nkind: Project\nmetadata:\n  ${metadata}\nspec:\n${specLines}`;
}
