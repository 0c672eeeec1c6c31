/** The `diffs` of an alert-configuration audit event: changed parameters with old and new values, secrets redacted. */
import type { StoredAlertConfig } from '../store/state.ts';
import { redactField } from './redact.ts';

/** One changed parameter of an audit event. */
export interface DiffParam {
  display: string;
  param: string;
  old: string | null;
  /** Always a string (the spec: "all strings; old can be null"): a value that was removed is the empty string. */
  new: string;
}

function flatten(value: unknown, prefix: string, out: Map<string, unknown>, leafName: string): void {
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) {
      if (value.length > 0) out.set(prefix, value.join(','));
      return;
    }
    for (const [i, v] of value.entries()) flatten(v, `${prefix}[${i}]`, out, leafName);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out, k);
  } else if (value !== undefined) {
    out.set(prefix, value);
  }
}

function content(cfg: StoredAlertConfig | undefined): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!cfg) return out;
  const { id: _id, groupId: _g, created: _c, updated: _u, ...rest } = cfg;
  flatten(rest, '', out, '');
  return out;
}

function show(param: string, value: unknown): string | null {
  if (value === undefined) return null;
  const leaf = param.replace(/^.*\./, '');
  return String(redactField(leaf, value));
}

function displayOf(param: string): string {
  const leaf = param.replace(/^.*\./, '').replace(/\[\d+\]/g, '');
  const words = leaf.replace(/([a-z])([A-Z])/g, '$1 $2');
  const where = /^notifications\[(\d+)\]/.exec(param);
  return where
    ? `Notification ${Number(where[1]) + 1} ${words.toLowerCase()}`
    : words.charAt(0).toUpperCase() + words.slice(1);
}

/** Parameters that differ between two versions (either may be absent: created or deleted). */
export function alertDiffParams(
  before: StoredAlertConfig | undefined,
  after: StoredAlertConfig | undefined,
): DiffParam[] {
  const a = content(before);
  const b = content(after);
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  const params: DiffParam[] = [];
  for (const param of keys) {
    if (param.endsWith('.notifierId')) continue;
    if (a.get(param) === b.get(param)) continue;
    params.push({
      display: displayOf(param),
      param,
      old: show(param, a.get(param)),
      new: show(param, b.get(param)) ?? '',
    });
  }
  return params;
}
