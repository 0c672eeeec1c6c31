/**
 * A desired-state source over texts held in memory: `export` loads what it is about to write through the real loader,
 * so every rule the loader enforces is checked on the exported YAML before anyone sees it.
 */
import type { DesiredFileRef, DesiredStateSource } from '../ports.ts';

/** A read-only source over `path -> text`. */
export class MemoryDesiredSource implements DesiredStateSource {
  private readonly files: Map<string, Uint8Array>;

  constructor(files: Readonly<Record<string, string>>) {
    const encoder = new TextEncoder();
    this.files = new Map(Object.entries(files).map(([path, text]) => [path, encoder.encode(text)]));
  }

  describe(): string {
    return 'export:';
  }

  async list(): Promise<DesiredFileRef[]> {
    return [...this.files]
      .map(([path, bytes]) => ({ path, size: bytes.length }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async read(path: string): Promise<{ bytes: Uint8Array }> {
    const bytes = this.files.get(path);
    if (bytes === undefined) throw Object.assign(new Error(`no file ${path}`), { code: 'NOT_FOUND' });
    return { bytes };
  }

  async readIfPresent(path: string): Promise<{ bytes: Uint8Array } | undefined> {
    const bytes = this.files.get(path);
    return bytes === undefined ? undefined : { bytes };
  }
}
