/**
 * A corpus of hostile desired-state files: each case is one file dropped into an otherwise valid desired state, with
 * a pattern the refusal's message must match.
 */

/** One hostile file. */
export interface HostileCase {
  name: string;
  /** Path of the file under the desired-state root. */
  path: string;
  bytes: Uint8Array;
  /** What the issue about this file must say. */
  message: RegExp;
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const header = 'apiVersion: opsman-gitops/v1\n';

/** "Billion laughs": nine levels of aliases, each repeating the previous nine times. */
function aliasBomb(): string {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= 9; i++) {
    lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]`);
  }
  return `${header}kind: Settings\nspec:\n  mode: plan\n${lines.map((l) => `x-${l}`).join('\n')}\n`;
}

/** A syntactically valid 5 MB file (a long comment), over any sane size limit. */
function huge(): string {
  const line = `# ${'x'.repeat(1022)}\n`;
  return `${header}kind: Settings\nspec: {mode: plan}\n${line.repeat(5 * 1024)}`;
}

/** Random-looking bytes with NULs and invalid UTF-8 sequences. */
function binary(): Uint8Array {
  const out = new Uint8Array(4096);
  let x = 0x2545f491;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  out.set([0x00, 0xff, 0xfe, 0xc3, 0x28], 0);
  return out;
}

const DUPLICATE_KEYS = `${header}kind: Project
metadata:
  name: dup-project
  projectId: 6b0000000000000000000000
  name: dup-project-again
spec:
  alertConfigs: []
`;

/** 5,000 levels of nested flow sequences: a stack-depth attack on the parser. */
function deepNesting(): string {
  const depth = 5000;
  return `${header}kind: Settings\nspec:\n  mode: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
}

const UNKNOWN_KIND = `${header}kind: Cluster
metadata: {name: prod-cluster}
spec: {replicas: 3}
`;

/** Every case of the corpus. */
export function hostileCorpus(): HostileCase[] {
  return [
    { name: 'alias bomb', path: 'zz-hostile/alias-bomb.yaml', bytes: utf8(aliasBomb()), message: /alias/i },
    {
      name: '5 MB file',
      path: 'zz-hostile/huge.yaml',
      bytes: utf8(huge()),
      message: /(byte|size|large|limit|MB|MiB)/i,
    },
    {
      name: 'binary file',
      path: 'zz-hostile/binary.yaml',
      bytes: binary(),
      message: /(binary|UTF-8|utf8|encoding|NUL)/i,
    },
    {
      name: 'duplicate keys',
      path: 'zz-hostile/duplicate-keys.yaml',
      bytes: utf8(DUPLICATE_KEYS),
      message: /(duplicate|unique)/i,
    },
    {
      name: 'deep nesting',
      path: 'zz-hostile/deep.yaml',
      bytes: utf8(deepNesting()),
      message: /nesting too deep/,
    },
    {
      name: 'unknown kind',
      path: 'zz-hostile/unknown-kind.yaml',
      bytes: utf8(UNKNOWN_KIND),
      message: /(kind|Cluster)/,
    },
  ];
}
