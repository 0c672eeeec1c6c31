// Scenario: hostile or broken input (sizes, binary, encodings, failing sources, fuzz) always yields issues, never a throw.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { formatIssues, loadDesiredState, type ValidationIssue } from '../../../lambdas/core/desired/index.ts';
import type { DesiredFileRef, DesiredStateSource } from '../../../lambdas/core/ports.ts';
import { MemorySource, projectYaml } from './memory-source.ts';

const ORG =
  'apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata: {name: acme, orgId: 5e2211c17a3e5a48f5497de0}\nspec: {}\n';

async function issuesOf(source: DesiredStateSource, options = {}): Promise<ValidationIssue[]> {
  const result = await loadDesiredState(source, options);
  return result.ok ? [] : result.issues;
}

/** A source whose list/read can be made to fail or to lie about sizes. */
class RiggedSource implements DesiredStateSource {
  constructor(
    private readonly refs: DesiredFileRef[] | Error,
    private readonly bytes: Uint8Array | Error,
  ) {}
  describe(): string {
    return 'rigged:/';
  }
  async list(): Promise<DesiredFileRef[]> {
    if (this.refs instanceof Error) throw this.refs;
    return this.refs;
  }
  async read(): Promise<{ bytes: Uint8Array }> {
    if (this.bytes instanceof Error) throw this.bytes;
    return { bytes: this.bytes };
  }
  async readIfPresent(): Promise<{ bytes: Uint8Array }> {
    return this.read();
  }
}

/** A source that lists exactly `refs` (any name, with or without a problem) and reads `files`. */
class ListedSource implements DesiredStateSource {
  constructor(
    private readonly refs: DesiredFileRef[],
    private readonly files: Record<string, string>,
  ) {}
  describe(): string {
    return 'listed:/';
  }
  async list(): Promise<DesiredFileRef[]> {
    return this.refs;
  }
  async read(path: string): Promise<{ bytes: Uint8Array }> {
    return { bytes: new TextEncoder().encode(this.files[path] ?? '') };
  }
  async readIfPresent(path: string): Promise<{ bytes: Uint8Array }> {
    return this.read(path);
  }
}

/**
 * The example's files, with `swollen` ones replaced since the listing by a 5 GB file: read with `maxBytes` they answer
 * their size only; read without, they fail the test (a 5 GB file would be loaded whole).
 */
class SwollenSource extends MemorySource {
  constructor(
    files: Record<string, string>,
    private readonly swollen: string[],
  ) {
    super(files);
  }
  override async read(path: string, options?: { maxBytes?: number }): Promise<{ bytes: Uint8Array; size?: number }> {
    if (!this.swollen.includes(path)) return super.read(path);
    if (options?.maxBytes === undefined) throw new Error(`${path} read whole: 5000000000 bytes loaded`);
    return { bytes: new Uint8Array(), size: 5_000_000_000 };
  }
}

describe('hostile input', () => {
  it.each([
    [
      'a file over the size limit (listed size)',
      new RiggedSource([{ path: 'big.yaml', size: 2_000_000 }], new Uint8Array()),
      'file is 2000000 bytes, over the limit of 1048576 bytes',
    ],
    [
      'a file over the size limit (actual bytes)',
      new RiggedSource([{ path: 'big.yaml', size: 10 }], new Uint8Array(1_048_577).fill(32)),
      'file is 1048577 bytes, over the limit of 1048576 bytes',
    ],
    [
      'a binary file',
      new MemorySource({ 'bin.yaml': new Uint8Array([0x61, 0x3a, 0x00, 0x01]) }),
      'binary file (it contains NUL bytes); expected UTF-8 YAML text',
    ],
    [
      'a UTF-16 file (little-endian, as Windows PowerShell writes)',
      new MemorySource({ 'u16.yaml': new Uint8Array(Buffer.from('\uFEFFa: 1\n', 'utf16le')) }),
      'file is UTF-16 text (it starts with the byte order mark FF FE); save it as UTF-8',
    ],
    [
      'a UTF-16 file (big-endian)',
      new MemorySource({ 'u16.yaml': new Uint8Array(Buffer.from('\uFEFFa: 1\n', 'utf16le').swap16()) }),
      'file is UTF-16 text (it starts with the byte order mark FE FF); save it as UTF-8',
    ],
    [
      'a UTF-32 file',
      new MemorySource({ 'u32.yaml': new Uint8Array([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0]) }),
      'file is UTF-32 text (it starts with the byte order mark FF FE 00 00); save it as UTF-8',
    ],
    [
      'a UTF-32 file (big-endian)',
      new MemorySource({ 'u32.yaml': new Uint8Array([0, 0, 0xfe, 0xff, 0, 0, 0, 0x61]) }),
      'file is UTF-32 text (it starts with the byte order mark 00 00 FE FF); save it as UTF-8',
    ],
    [
      'a file with only comments',
      new MemorySource({ 'c.yaml': '# nothing yet\n' }),
      'file holds no YAML documents (only comments or whitespace); add a document or remove the file',
    ],
    [
      'a zero-byte file',
      new MemorySource({ 'z.yaml': '' }),
      'file holds no YAML documents (only comments or whitespace); add a document or remove the file',
    ],
    [
      'an empty document',
      new MemorySource({ 'e.yaml': '---\n' }),
      'document 1 is empty; remove the extra "---" or give it content',
    ],
    [
      'a scalar document',
      new MemorySource({ 's.yaml': 'just text\n' }),
      'a desired-state document must be a mapping with apiVersion, kind, metadata and spec; found "just text"',
    ],
    [
      'a failing read',
      new RiggedSource([{ path: 'a.yaml', size: 1 }], new Error('EACCES: permission denied')),
      'cannot read file: EACCES: permission denied',
    ],
  ])('refuses %s', async (_what, source, message) => {
    const issues = await issuesOf(source);
    expect(issues.map((i) => i.message)).toEqual([message]);
    expect(issues[0]).toMatchObject({ line: 1, column: 1 });
  });

  // A Latin-1 byte in a hand-written file was reported at line 1, column 1, leaving the reader to hunt for it.
  it.each([
    ['a Latin-1 e-acute', 'a: 1\nemail: d\xe9ba@acme.example\n', 2, 9, 'E9'],
    ['a sequence cut short at the end', 'a: \xc3', 1, 4, 'C3'],
    ['a stray continuation byte after a BOM and a euro sign', '\xef\xbb\xbfa: "\xe2\x82\xac\x82"\n', 1, 6, '82'],
    ['an encoded surrogate', 'a:\n  b: "\xed\xa0\x80"\n', 2, 7, 'ED'],
    ['an overlong slash', 'a: \xc0\xaf\n', 1, 4, 'C0'],
    ['an overlong three-byte slash', 'a: 1\nb: \xe0\x80\xaf\n', 2, 4, 'E0'],
    ['a lead byte past U+10FFFF', 'a: \xf5\x80\x80\x80\n', 1, 4, 'F5'],
  ])('refuses invalid UTF-8 (%s) at the byte, by line and column', async (_what, latin1, line, column, byte) => {
    const issues = await issuesOf(new MemorySource({ 'p.yaml': new Uint8Array(Buffer.from(latin1, 'latin1')) }));
    expect(issues).toEqual([
      {
        file: 'p.yaml',
        line,
        column,
        path: '',
        message: `file is not valid UTF-8: byte 0x${byte} here is not part of a UTF-8 character (text saved as Latin-1 or Windows-1252?); save it as UTF-8 text`,
        found: 'invalid UTF-8',
      },
    ]);
  });

  // A file saved with classic Mac OS line ends gave one YAML error per line, every one of them "on line 1".
  it.each([
    ['every line', ORG.replace(/\n/g, '\r'), 1, 29],
    ['one line among LF lines', ORG.replace('kind: Organization\n', 'kind: Organization\r'), 2, 19],
  ])('refuses lone CR line ends (%s) once, where the first is', async (_what, text, line, column) => {
    const issues = await issuesOf(new MemorySource({ 'mac.yaml': text }));
    expect(issues).toEqual([
      {
        file: 'mac.yaml',
        line,
        column,
        path: '',
        message:
          'a line ends with a lone carriage return (CR, as classic Mac OS wrote line ends): save the file with LF (or CRLF) line ends',
        found: 'CR',
      },
    ]);
    // CRLF line ends stay fine.
    expect(await issuesOf(new MemorySource({ 'win.yaml': ORG.replace(/\n/g, '\r\n') }))).toEqual([]);
  });

  // Two files joined with cat keep the second's BOM: its "\uFEFFapiVersion" is another key, and the document it
  // started was reported as "missing apiVersion" at a line that visibly has one.
  it.each([
    ['after a separator', `${ORG}---\n\uFEFF${ORG.replace(/acme/g, 'beta').replace('de0', 'de1')}`, 6, 1],
    ['with no separator', `${ORG}\uFEFF${ORG}`, 5, 1],
  ])('refuses a byte order mark inside a file (%s), where it is', async (_what, text, line, column) => {
    const issues = await issuesOf(new MemorySource({ 'joined.yaml': text }));
    expect(issues).toEqual([
      {
        file: 'joined.yaml',
        line,
        column,
        path: '',
        message:
          'an invisible byte order mark (U+FEFF) inside the file, as joining files (cat a.yaml b.yaml) leaves: delete it (only the start of a file may hold one)',
        found: 'U+FEFF',
      },
    ]);
  });

  it.each<[string, Uint8Array, string]>([
    [
      'with a byte order mark',
      new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('{"versions":[]}')]),
      'starts with a byte order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without one',
    ],
    ['in Latin-1', new Uint8Array(Buffer.from('{"versions":[{"name":"café"}]}', 'latin1')), 'is not valid UTF-8'],
    [
      'whose first version has no name',
      new Uint8Array(Buffer.from('{"versions":[{"version":"7.0.0"},{"name":"7.0.1"}]}')),
      'does not look like a version manifest: versions[0] has no "name" (a non-empty string)',
    ],
    [
      'whose second version has an empty name',
      new Uint8Array(Buffer.from('{"versions":[{"name":"7.0.0"},{"name":" "}]}')),
      'does not look like a version manifest: versions[1] has no "name" (a non-empty string)',
    ],
    [
      'with no versions',
      new Uint8Array(Buffer.from('{"versions":[]}')),
      'has an empty "versions" list: uploaded, it would leave Ops Manager no MongoDB version to deploy; pin a manifest with the versions you approve',
    ],
  ])('a pinned manifest %s is refused, never uploaded altered', async (_name, bytes, message) => {
    const settings =
      'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  versionManifest: {pin: m.json}\n';
    const files = {
      'org.yaml': ORG,
      'settings.yaml': settings,
      'p.yaml': projectYaml('  alertConfigs: []\n'),
      'm.json': bytes,
    };
    const issues = await issuesOf(new MemorySource(files));
    expect(issues.map((i) => `${i.file}: ${i.message}`)).toEqual([
      `settings.yaml: versionManifest.pin "m.json": ${message}`,
    ]);
  });

  it('a file or pinned manifest replaced by a huge one after the listing is refused by its size, never read whole', async () => {
    const settings =
      'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  versionManifest: {pin: m.json}\n';
    const files = {
      'org.yaml': ORG,
      'settings.yaml': settings,
      'p.yaml': projectYaml('  alertConfigs: []\n'),
      'm.json': '{}',
    };
    const issues = await issuesOf(new SwollenSource(files, ['p.yaml', 'm.json']));
    expect(issues.map((i) => `${i.file}: ${i.message}`)).toEqual([
      'p.yaml: file is 5000000000 bytes, over the limit of 1048576 bytes',
      'settings.yaml: versionManifest.pin "m.json": is 5000000000 bytes, over the limit of 33554432 bytes for a pinned manifest',
    ]);
  });

  it.each([
    ['deep flow nesting', '['.repeat(100_000), 1, 65, 'flow collections nested deeper than 64'],
    ['deep flow mappings', '{a: '.repeat(20_000), 1, 257, 'flow collections nested deeper than 64'],
    ['deep compact sequences', `${'- '.repeat(50_000)}x`, 1, 257, 'indented deeper than 256 columns'],
    [
      'deep indentation',
      `a:\n${Array.from({ length: 400 }, (_, i) => `${' '.repeat(i + 1)}b:`).join('\n')}`,
      258,
      257,
      'indented deeper than 256 columns',
    ],
  ])('refuses %s before parsing', async (_what, text, line, column, reason) => {
    const issues = await issuesOf(new MemorySource({ 'deep.yaml': text }));
    expect(issues).toEqual([
      {
        file: 'deep.yaml',
        line,
        column,
        path: '',
        message: `nesting too deep (${reason}): refusing a document built to exhaust the parser`,
      },
    ]);
  });

  it('does not count brackets inside quotes or comments as nesting', async () => {
    const text = `${ORG}# ${'['.repeat(100)}\nx: "${'['.repeat(100)}"\n`;
    const issues = await issuesOf(new MemorySource({ 'a.yaml': text }));
    expect(issues.map((i) => i.message)).toEqual(['unknown field "x" in the document']);
  });

  it('reports a failing listing against the source', async () => {
    const issues = await issuesOf(new RiggedSource(new Error('AccessDenied'), new Uint8Array()));
    expect(issues).toEqual([
      { file: 'rigged:/', line: 1, column: 1, path: '', message: 'cannot list the desired-state files: AccessDenied' },
    ]);
  });

  it('turns an unexpected failure of the source into an issue instead of a rejection', async () => {
    // A source that breaks its contract (null bytes) makes the loader fail internally.
    const result = await loadDesiredState({
      describe: () => 'odd:/',
      list: async () => [{ path: 'a.yaml', size: 1 }],
      read: async () => ({ bytes: null as unknown as Uint8Array }),
      readIfPresent: async () => undefined,
    });
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.issues[0]?.message).toMatch(
      /^internal error while loading the desired state: TypeError: /,
    );
  });

  it('refuses more files than maxFiles', async () => {
    const issues = await issuesOf(new MemorySource({ 'a.yaml': ORG, 'b.yaml': ORG }), { maxFiles: 1 });
    expect(issues.map((i) => i.message)).toEqual(['2 YAML files, over the limit of 1']);
  });

  it('accepts a file of exactly maxFileBytes and exactly maxFiles files: the limits are inclusive', async () => {
    const bytes = new TextEncoder().encode(ORG).length;
    const result = await loadDesiredState(new MemorySource({ 'a.yaml': ORG }), { maxFileBytes: bytes, maxFiles: 1 });
    expect(result.ok && result.summary).toBe(
      'loaded 0 projects, 1 organization, 0 templates, 0 alert configs from 1 file',
    );
    const over = await issuesOf(new MemorySource({ 'a.yaml': ORG }), { maxFileBytes: bytes - 1 });
    expect(over.map((i) => i.message)).toEqual([`file is ${bytes} bytes, over the limit of ${bytes - 1} bytes`]);
  });

  it('accepts a pinned manifest of exactly maxManifestBytes: that limit is inclusive too', async () => {
    const manifest = '{"versions":[{"name":"7.0.0"}]}';
    const bytes = new TextEncoder().encode(manifest).length;
    const files = {
      'org.yaml': ORG,
      'settings.yaml':
        'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  versionManifest: {pin: m.json}\n',
      'm.json': manifest,
    };
    expect(await issuesOf(new MemorySource(files), { maxManifestBytes: bytes })).toEqual([]);
    const over = await issuesOf(new MemorySource(files), { maxManifestBytes: bytes - 1 });
    expect(over.map((i) => i.message)).toEqual([
      `versionManifest.pin "m.json": is ${bytes} bytes, over the limit of ${bytes - 1} bytes for a pinned manifest`,
    ]);
  });

  it('loads .yml and .YAML files, and reports a listed entry with a problem whatever its name', async () => {
    const project =
      'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: p, projectId: 5e2211c17a3e5a48f5497de3}\nspec: {}\n';
    const files = { 'org.yml': ORG, 'p.YAML': project, 'notes.txt': 'not yaml' };
    const refs = Object.entries(files).map(([path, text]) => ({ path, size: text.length }));
    const result = await loadDesiredState(new ListedSource(refs, files));
    expect(result.ok && result.state.files.map((f) => f.path)).toEqual(['org.yml', 'p.YAML']);
    // A link out of the root (the directory source's problem): reported as it is, never left out silently.
    const problem = 'a link to a directory outside the root: not followed';
    const linked = [...refs, { path: 'outside', size: 0, problem }];
    expect(await issuesOf(new ListedSource(linked, files))).toEqual([
      { file: 'outside', line: 1, column: 1, path: '', message: problem },
    ]);
  });

  it('accepts a UTF-8 byte-order mark and a few aliases', async () => {
    const text = `\uFEFF${ORG}---\napiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: p, projectId: 5e2211c17a3e5a48f5497de3}\nspec:\n  alertConfigs:\n    - key: a\n      eventTypeName: HOST_DOWN\n      notifications: &n [{typeName: GROUP, roles: [GROUP_OWNER]}]\n    - key: b\n      eventTypeName: NO_PRIMARY\n      notifications: *n\n`;
    const result = await loadDesiredState(new MemorySource({ 'a.yaml': text }));
    expect(result.ok && result.state.projects[0]?.alertConfigs.map((c) => c.notifications)).toEqual([
      [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
      [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
    ]);
  });

  // A file of thousands of documents is read in time linear in its size: each filter that looks for a construct in
  // the text scans the whole file once, not once per document (5,000 documents of 45 KB were 225 million characters
  // scanned, about 1.3 s). Counted, not timed: the regular expressions run on the file's whole text.
  it('scans the text of a file of many documents a fixed number of times, not once per document', async () => {
    const scansOf = async (documents: number) => {
      const text = 'a: 1\n---\n'.repeat(documents);
      const test = vi.spyOn(RegExp.prototype, 'test');
      try {
        const result = await loadDesiredState(new MemorySource({ 'x.yaml': text }));
        expect(result.ok).toBe(false);
        return test.mock.calls.filter(([argument]) => argument === text).length;
      } finally {
        test.mockRestore();
      }
    };
    const few = await scansOf(10);
    expect(few).toBeGreaterThan(0);
    expect(await scansOf(2_000)).toBe(few);
  });

  // Five issues over a limit of two: the first two and a count of the rest; exactly two: no count line.
  it.each([
    [5, [[7, '... and 3 more issues not shown (the fir']]],
    [2, []],
  ] as const)('with %i issues and maxIssues 2, reports two and counts any rest', async (count, rest) => {
    const configs = Array.from(
      { length: count },
      (_, i) => `    - {key: k${i}, eventTypeName: NOPE, notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]}`,
    );
    const text = `apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: p, projectId: 5e2211c17a3e5a48f5497de3}\nspec:\n  alertConfigs:\n${configs.join('\n')}\n`;
    const issues = await issuesOf(new MemorySource({ 'a.yaml': text }), { maxIssues: 2 });
    expect(issues.map((i) => [i.line, i.message.slice(0, 40)])).toEqual([
      [6, 'spec.alertConfigs[0].eventTypeName must '],
      [7, 'spec.alertConfigs[1].eventTypeName must '],
      ...rest,
    ]);
  });

  // A document's schema issues are detailed up to 200; past that a note at the document's start says the list is cut,
  // so "200 errors" is not read as all of them. Exactly 200: no note.
  it.each([
    [201, 201, true],
    [200, 200, false],
  ] as const)('with %i schema issues in one document, lists %i issues (note: %s)', async (count, listed, note) => {
    const configs = Array.from(
      { length: count },
      (_, i) => `    - {key: k${i}, eventTypeName: HOST_DOWN, notifications: [{typeName: ADMIN, intervalMin: 3}]}`,
    );
    const text = `apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: p, projectId: 5e2211c17a3e5a48f5497de3}\nspec:\n  alertConfigs:\n${configs.join('\n')}\n`;
    const issues = await issuesOf(new MemorySource({ 'a.yaml': text }));
    expect(issues).toHaveLength(listed);
    const first = issues[0];
    expect([first?.line, first?.column, first?.message]).toEqual(
      note
        ? [
            1,
            1,
            'this document has more schema issues than the 200 listed (the rest are not shown); fix those and validate again',
          ]
        : [6, 90, 'spec.alertConfigs[0].notifications[0].intervalMin must be at least 5; found 3'],
    );
  });

  // After a syntax error the tree is yaml's guess: only what remains wrong is reported, one layer at a time (a tag
  // in a broken document, a collection key beside a tag, would otherwise be findings about a guess).
  it.each([
    [
      'a syntax error hides a tag of its document',
      'a: !!str 1\nb: [x\n? [k]\n: v\n',
      ['3:1 YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]'],
    ],
    [
      'a tag hides a collection key of its document',
      'a: !!str 1\n? [k]\n: v\n',
      ['1:10 YAML tags are not allowed (found "!!str"); write plain values'],
    ],
  ])('reports the first layer of problems of a document only: %s', async (_what, text, expected) => {
    const issues = await issuesOf(new MemorySource({ 'l.yaml': text }));
    expect(issues.map((i) => `${i.line}:${i.column} ${i.message}`)).toEqual(expected);
  });

  // 400 digits read as infinity: a number too large for a double is the schema's to report, as written, never a crash.
  it('refuses a number too large for a double where a number belongs, quoting it as written', async () => {
    const big = `1${'0'.repeat(400)}`;
    const text = projectYaml(
      `  alertConfigs:\n    - key: a\n      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n      metricThreshold: {metricName: X, operator: GREATER_THAN, threshold: ${big}}\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n`,
    );
    const issues = await issuesOf(new MemorySource({ 'p.yaml': text }));
    expect(issues.map((i) => [i.line, i.column, i.message])).toEqual([
      [
        10,
        75,
        `spec.alertConfigs[0].metricThreshold.threshold must be a number; found ${big.slice(0, 57)}... (YAML reads it as infinity, which JSON and Ops Manager cannot hold)`,
      ],
    ]);
  });

  // Only a line of exactly "---" separates documents on the fast path (simple-yaml.ts): a four-dash line is YAML's to
  // read, and refused, never taken for a separator with both documents loaded.
  it('refuses a four-dash line between two documents instead of loading both', async () => {
    const org =
      'apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata:\n  name: acme\n  orgId: 5e2211c17a3e5a48f5497de0\nspec:\n  mode: plan\n';
    const project = projectYaml('  prune: true\n');
    const issues = await issuesOf(new MemorySource({ 'a.yaml': `${org}----\n${project}` }));
    expect(issues[0]).toMatchObject({
      line: 8,
      column: 1,
      message: 'YAML syntax error: Implicit keys need to be on a single line',
    });
    // The fix is line 8 itself, not a new "---" before the repeated key a line later.
    expect(issues[1]).toMatchObject({
      line: 8,
      column: 1,
      message:
        'line 8 starts with "----", which does not separate documents: another document seems to start there ("kind" appears again on line 10, first on line 2); a separator is a line of exactly "---"',
      hint: 'make line 8 exactly "---"',
    });
    expect(issues).toHaveLength(2);
  });

  it('names a separator written "---x" the same way', async () => {
    const org =
      'apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata:\n  name: acme\n  orgId: 5e2211c17a3e5a48f5497de0\nspec:\n  mode: plan\n';
    const issues = await issuesOf(new MemorySource({ 'a.yaml': `${org}---x\n${projectYaml('')}` }));
    expect(issues.map((i) => [i.line, i.hint])).toContainEqual([8, 'make line 8 exactly "---"']);
    expect(issues.find((i) => i.hint?.startsWith('make line'))?.message).toContain('starts with "---x"');
  });

  // The schema refuses an absolute pin; the loader must not read it anyway (a directory source would look outside).
  it('never reads a pinned manifest given by an absolute path', async () => {
    const settings =
      'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  versionManifest: {pin: /m.json}\n';
    const source = new MemorySource({ 'org.yaml': ORG, 'settings.yaml': settings, '/m.json': '{"versions":[]}' });
    const issues = await issuesOf(source);
    expect(issues.map((i) => [i.file, i.path])).toEqual([['settings.yaml', 'spec.versionManifest.pin']]);
    expect([...source.reads].sort()).toEqual(['org.yaml', 'settings.yaml']);
  });

  it('lowers the alias limit on request', async () => {
    const text = `${ORG}x: &x [1]\ny: [*x, *x, *x]\n`;
    const issues = await issuesOf(new MemorySource({ 'a.yaml': text }), { maxAliasCount: 2 });
    expect(issues.map((i) => i.message)).toEqual([
      'too many alias expansions (more than 2): refusing a possible alias bomb',
    ]);
  });

  // Regression (found by loader-robustness.property.test.ts): yaml turned a list or mapping key into text, printed a
  // process warning quoting it (file content on stderr, outside the logger), and the issue called it an unknown field.
  it.each([
    ['a list', '? [token-1]\n: x\n', 5, 3, 'a list'],
    ['a mapping', '? {a: 1}\n: x\n', 5, 3, 'a mapping'],
    ['an alias of a mapping', 'k: &m {a: 1}\n*m : x\n', 6, 1, 'a mapping'],
  ])('refuses %s used as a key, at its position, printing nothing', async (_name, extra, line, column, found) => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const issues = await issuesOf(new MemorySource({ 'k.yaml': `${ORG}${extra}` }));
      expect(issues.map((i) => [i.file, i.line, i.column, i.message])).toEqual([
        ['k.yaml', line, column, `a mapping key must be plain text; found ${found} used as a key`],
      ]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  // Regression: yaml's duplicate-key check compares key nodes, not what an alias key resolves to, so a repeated key
  // written as an alias was read silently, its value replacing the first (here mode: apply instead of plan).
  it('refuses an alias used as a key, which could repeat a key unseen', async () => {
    const text = projectYaml('  &m mode: plan\n  *m : apply\n');
    const issues = await issuesOf(new MemorySource({ 'p.yaml': text }));
    expect(issues.map((i) => [i.file, i.line, i.column, i.message])).toEqual([
      [
        'p.yaml',
        8,
        3,
        'a mapping key must be plain text; found the alias "*m" used as a key: it repeats the key "mode" of line 7, and YAML read only this one\'s value: keep one "mode" with the value you mean',
      ],
    ]);
    // An alias key that repeats no key of its mapping: the message names the key to write instead.
    const elsewhere = projectYaml('  &m mode: plan\n  alertConfigs:\n    - key: a1\n      *m : apply\n');
    const other = await issuesOf(new MemorySource({ 'p.yaml': elsewhere }));
    expect(other.map((i) => [i.line, i.message])).toContainEqual([
      10,
      'a mapping key must be plain text; found the alias "*m" used as a key: write the key itself, "mode", (an alias key can repeat another key unseen)',
    ]);
  });

  // Regression (upgrade from 6cf0e36): a document refused only for an unclear number or an alias key was dropped before
  // the schema and the semantic rules, so a template with `intervalMin: 015` was also "unknown" to every project using
  // it, and the file's other issues (a block scalar's line break) came only in the next run.
  it('reads on past an unclear number: the template it is in stays known, its other issues are listed too', async () => {
    const template =
      'apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: base}\nspec:\n  alertConfigs:\n    - key: t1\n      eventTypeName: NO_PRIMARY\n      matchers:\n        - fieldName: REPLICA_SET_NAME\n          operator: EQUALS\n          value: |\n            rs0\n      notifications: [{ typeName: GROUP, intervalMin: 015 }]\n';
    const issues = await issuesOf(
      new MemorySource({ 't.yaml': template, 'p.yaml': projectYaml('  alertTemplates: [base]\n') }),
    );
    expect(issues.map((i) => [i.file, i.line, i.message.split(';')[0]])).toEqual([
      [
        't.yaml',
        11,
        'spec.alertConfigs[0].matchers[0].value must be the value the operator tests, not ending with a line break',
      ],
      ['t.yaml', 13, 'the number 015 has a leading zero: YAML 1.2 reads it as 15, YAML 1.1 tools as the octal 13'],
    ]);
  });

  // Regression: free text kept the line break a block scalar leaves: `value: |` gave the matcher value "rs0\n" (a
  // matcher that never matches, so an alert that never fires), loaded silently. Spaces written in quotes stay (on
  // purpose, and a live value may hold them: export writes them so).
  it('refuses free text ending with the line break of a block scalar', async () => {
    const matcher =
      '      matchers:\n        - fieldName: REPLICA_SET_NAME\n          operator: EQUALS\n          value: |\n            rs0\n';
    const spec = `  alertConfigs:\n    - key: a1\n      eventTypeName: NO_PRIMARY\n${matcher}      notifications: [{ typeName: GROUP }]\n`;
    const issues = await issuesOf(new MemorySource({ 'p.yaml': projectYaml(spec) }));
    expect(issues.map((i) => [i.file, i.line, i.column, i.message])).toEqual([
      [
        'p.yaml',
        13,
        18,
        'spec.alertConfigs[0].matchers[0].value must be the value the operator tests, not ending with a line break; found "rs0\\n" (a block scalar, "|" or ">", keeps its last line break: write "|-" or ">-", or the value on one line)',
      ],
    ]);
    const quoted = spec.replace(/value: \|\n {12}rs0\n/, 'value: " rs0 "\n');
    expect(await issuesOf(new MemorySource({ 'p.yaml': projectYaml(quoted) }))).toEqual([]);
    // A quoted "rs0\n" shows its \n: refused, without the block-scalar hint.
    const escaped = spec.replace(/value: \|\n {12}rs0\n/, 'value: "rs0\\n"\n');
    const [issue] = await issuesOf(new MemorySource({ 'p.yaml': projectYaml(escaped) }));
    expect(issue?.message).toMatch(/not ending with a line break; found "rs0\\n"$/);
  });

  // Regression: numbers whose value is not what is written loaded silently: 010 as 10 (8 to YAML 1.1 tools), 0o10 as 8,
  // 9007199254740993 as ...992, 1e-400 as 0; in plain block YAML (the fast path) as in flow YAML.
  it.each([
    [
      '010',
      'has a leading zero: YAML 1.2 reads it as 10, YAML 1.1 tools as the octal 8; write it without the leading zero',
    ],
    ['08', 'has a leading zero: YAML 1.2 reads it as 8; write it without the leading zero'],
    ['0o10', 'is not written in decimal (YAML reads it as 8); write 8'],
    ['0x10', 'is not written in decimal (YAML reads it as 16); write 16'],
    [
      '9007199254740993',
      'is too large to be held exactly (YAML reads it as 9007199254740992); write a number up to 9007199254740991, or one a double holds',
    ],
    ['1e-400', 'is too small to be held (YAML reads it as 0); write 0'],
  ])('refuses the number %s, whose value is not what is written', async (written, why) => {
    const message = `the number ${written} ${why} (or, if it is text, put it in quotes)`;
    const configs = (threshold: string) =>
      `  alertConfigs:\n    - key: a1\n      eventTypeName: TOO_FEW_HEALTHY_MEMBERS\n      threshold:\n        operator: LESS_THAN\n        threshold: ${threshold}\n      notifications:\n        - typeName: GROUP\n`;
    const block = await issuesOf(new MemorySource({ 'p.yaml': projectYaml(configs(written)) }));
    const flowText = projectYaml(configs(written)).replace(
      `threshold:\n        operator: LESS_THAN\n        threshold: ${written}\n`,
      `threshold: { operator: LESS_THAN, threshold: ${written} }\n`,
    );
    const flow = await issuesOf(new MemorySource({ 'p.yaml': flowText }));
    expect(block.map((i) => [i.line, i.column, i.message])).toEqual([[12, 20, message]]);
    expect(flow.map((i) => [i.line, i.column, i.message])).toEqual([[10, 52, message]]);
    // The path names the entry (export leaves that config out instead of failing the whole project).
    expect([...block, ...flow].map((i) => i.path)).toEqual(Array(2).fill('spec.alertConfigs[0].threshold.threshold'));
  });

  // Regression: a decimal too small for a double written without an exponent (0.000…1, 0 to a double) was read as 0 by
  // the fast path (plain block YAML), which never reached the check, and refused in flow YAML.
  it.each([`0.${'0'.repeat(400)}1`, `.${'0'.repeat(400)}1`, `-0.${'0'.repeat(400)}1`])(
    'refuses a decimal too small to hold, in block YAML as in flow YAML (%#)',
    async (written) => {
      const block = `  alertConfigs:\n    - key: a1\n      eventTypeName: TOO_FEW_HEALTHY_MEMBERS\n      threshold:\n        operator: LESS_THAN\n        threshold: ${written}\n      notifications:\n        - typeName: GROUP\n`;
      const flow = block.replace(
        `threshold:\n        operator: LESS_THAN\n        threshold: ${written}\n`,
        `threshold: { operator: LESS_THAN, threshold: ${written} }\n`,
      );
      for (const spec of [block, flow]) {
        const issues = await issuesOf(new MemorySource({ 'p.yaml': projectYaml(spec) }));
        expect(issues.map((i) => [i.path, i.message.includes('is too small to be held (YAML reads it as 0)')])).toEqual(
          [['spec.alertConfigs[0].threshold.threshold', true]],
        );
      }
    },
  );

  // Digits a double holds exactly, or that are how the double prints, read back as written: 2^53, 10^20, and a live
  // value exported as JavaScript writes it (341005196264649000); -0 is sent, compared and stored as 0; 05 and 007
  // are the same number to YAML 1.1 (octal) and 1.2 readers.
  // An all-digit id written bare where text belongs: one issue, the schema's "put the value in quotes" (the number's
  // own, "write it without the leading zero", was listed at the same place too and pointed to another number).
  it.each(['012345678901234567890123', '112345678901234567890123'])(
    'refuses the bare id %s once, asking for quotes',
    async (id) => {
      const text = projectYaml('  prune: true\n', `name: p1\n  projectId: ${id}`);
      const issues = await issuesOf(new MemorySource({ 'p.yaml': text }));
      expect(issues.map((i) => [i.line, i.message])).toEqual([
        [5, `metadata.projectId must be a string; found ${id} (YAML read it as a number: put the value in quotes)`],
      ]);
    },
  );

  // A leading zero before a decimal point (05.5, 010.5, 00.5) is decimal to YAML 1.1 readers too: accepted (loaded by
  // 6cf0e36; refused for a while as if it were an integer's leading zero).
  it.each([
    '9007199254740992',
    '100000000000000000000',
    '-9007199254740994',
    '341005196264649000',
    '-0',
    '05',
    '-007',
    '05.5',
    '010.5',
    '-00.5',
  ])('accepts %s, held exactly', async (n) => {
    const spec = `  alertConfigs:\n    - key: a1\n      eventTypeName: TOO_FEW_HEALTHY_MEMBERS\n      threshold:\n        operator: LESS_THAN\n        threshold: ${n}\n      notifications:\n        - typeName: GROUP\n`;
    expect(await issuesOf(new MemorySource({ 'p.yaml': projectYaml(spec) }))).toEqual([]);
  });

  // Regression: an unknown field's name was printed as written, so a name holding a newline forged a line of the
  // report ("p.yaml:7:3: unknown field "a" + a line of the attacker's choosing) and an escape sequence reached the
  // terminal; values were quoted with JSON's escapes, which leave DEL, the C1 controls (CSI) and U+2028 as they are.
  it('quotes unknown field names and found values with escapes: one line per issue, no control character', async () => {
    const text = `${ORG.replace('spec: {}\n', '')}spec:\n  "a\\nERROR forged": 1\n  "\\e[31mred": 2\n  mode: "\\x9b2J\\u2028"\n`;
    const issues = await issuesOf(new MemorySource({ 'o.yaml': text }));
    expect(issues.map((i) => [i.line, i.message])).toEqual([
      [5, 'unknown field "a\\nERROR forged" in spec'],
      [6, 'unknown field "\\u001b[31mred" in spec'],
      [7, 'spec.mode must be one of observe, plan, apply; found "\\u009b2J\\u2028"'],
    ]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that no control character is printed.
    expect(formatIssues(issues)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(formatIssues(issues).split('\n')).toHaveLength(issues.length + 2);
  });

  // Regression (found by loader-robustness.property.test.ts): a duplicate key was named by the raw text at its offset,
  // so an empty key read as "duplicate key \":\"" or "\n" (a line break inside the message), a key with "#" as its
  // first character only, and a key holding an escape sequence sent it to the terminal.
  it.each([
    ['an empty key', ': 1\n: 2\n', 'duplicate empty key: each key may appear once in a mapping; the first empty key'],
    [
      'a key with "#"',
      'a#b: 1\na#b: 2\n',
      'duplicate key "a#b": each key may appear once in a mapping; the first "a#b"',
    ],
    [
      'a key holding an escape sequence',
      'k\u001b[2J\u009b: 1\nk\u001b[2J\u009b: 2\n',
      'duplicate key "k\\u001b[2J\\u009b": each key may appear once in a mapping; the first "k\\u001b[2J\\u009b"',
    ],
  ])('names a duplicate %s printably, on one line', async (_name, extra, message) => {
    const issues = await issuesOf(new MemorySource({ 'd.yaml': `${ORG}${extra}` }));
    // The document is read on past its duplicate key: the key is also an unknown field of it, quoted printably too,
    // and located at its first copy (an empty key was located at the document's start).
    expect(
      issues.map((i) => [i.line, i.column, i.message.startsWith('unknown field') ? 'unknown' : i.message]),
    ).toEqual([
      [5, 1, 'unknown'],
      [6, 1, `${message} is on line 5, column 1`],
    ]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that no control character is printed.
    expect(formatIssues(issues)).not.toMatch(/[\u001b\u009b]/);
  });

  // Regression (found by loader-robustness.property.test.ts): the checks quote what they find (an event type, a
  // protect key, a template name, a file name) as written, so a control character in any of them reached the report.
  it('returns only printable issues, whatever the files quote: one line each, no control character', async () => {
    const project = `${ORG}---\n${projectYaml(
      [
        '  alertTemplates: ["t\\e[2J"]',
        '  protect: ["k\\x9b1m"]',
        '  alertConfigs:',
        '    - key: a',
        '      eventTypeName: "\\a"',
        '      metricThreshold: {metricName: X, operator: LESS_THAN, threshold: 1}',
        '      notifications: [{typeName: SMS, mobileNumber: "1"}]',
        '',
      ].join('\n'),
    )}`;
    const issues = await issuesOf(new MemorySource({ 'p\u2028.yaml': project }));
    expect(issues.map((i) => i.message)).toEqual([
      `spec.alertTemplates[0] must be a template name (letters, digits, '.', '_' or '-', starting with a letter or digit, at most 63 characters); found "t\\u001b[2J"`,
      'unknown template "t\\u001b[2J" (no AlertTemplate documents exist)',
      'protect names "k\\u009b1m", which is not an alert key of project p1 (protect guards declared keys only: to keep the config of a key removed from git in Ops Manager, list the key in spec.release instead, which stops managing it without deleting it)',
      `spec.protect[0] must be an alert key (letters, digits, '.', '_' or '-', starting with a letter or digit, at most 63 characters); found "k\\u009b1m"`,
      // An unknown event type is not quoted again by the threshold rules (they judge known event types only).
      'spec.alertConfigs[0].eventTypeName must be one of the 109 known values; found "\\u0007"',
    ]);
    expect(new Set(issues.map((i) => i.file))).toEqual(new Set(['p\\u2028.yaml']));
    const report = formatIssues(issues);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that no control character is printed.
    expect(report.replaceAll('\n', '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(report.split('\n')).toHaveLength(issues.length + 2);
  });

  it('never throws on arbitrary text, and every issue has a position', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (text) => {
        const issues = await issuesOf(new MemorySource({ 'f.yaml': text }));
        for (const issue of issues) {
          expect(issue.line).toBeGreaterThanOrEqual(1);
          expect(issue.column).toBeGreaterThanOrEqual(1);
          expect(issue.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never throws on mutated valid documents', async () => {
    const base = `${ORG}---\napiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: p, projectId: 5e2211c17a3e5a48f5497de3}\nspec:\n  alertConfigs:\n    - {key: a, eventTypeName: HOST_DOWN, notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]}\n`;
    // Unmutated, the document is valid: the mutations start from something that loads.
    expect(await issuesOf(new MemorySource({ 'f.yaml': base }))).toEqual([]);
    await fc.assert(
      fc.asyncProperty(
        fc.nat(base.length),
        fc.nat(base.length),
        fc.string({ maxLength: 8 }),
        async (at, cut, insert) => {
          const text = base.slice(0, at) + insert + base.slice(Math.min(base.length, at + (cut % 6)));
          const result = await loadDesiredState(new MemorySource({ 'f.yaml': text }));
          // A refusal says where: at least one issue, each in the file, at a position, with a message.
          if (!result.ok) {
            expect(result.issues.length).toBeGreaterThan(0);
            for (const issue of result.issues) {
              expect(issue).toMatchObject({ file: 'f.yaml' });
              expect(issue.line).toBeGreaterThanOrEqual(1);
              expect(issue.column).toBeGreaterThanOrEqual(1);
              expect(issue.message.length).toBeGreaterThan(0);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
