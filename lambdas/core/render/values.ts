/**
 * Formatting values for plans, with secrets masked twice over: a renderer only ever gets a Plan (which holds no secret
 * value by contract), and still prints every secret-bearing field and every secretRef as a placeholder.
 */
import { isRecord } from '../../../shared/is-record.ts';
import { SECRET_NOTIFICATION_FIELDS } from '../../opsman/types.ts';
import type { ChangeAction, DriftAttribution, FieldChange, SecretNote } from '../model.ts';

const SECRET_FIELDS: ReadonlySet<string> = new Set(SECRET_NOTIFICATION_FIELDS);

/** What every secret value is printed as. */
export const SECRET_PLACEHOLDER = '(secret)';

/** True for `{ secretRef: "…" }`. */
export function isSecretRef(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Record<string, unknown>).secretRef === 'string'
  );
}

/** True when the last segment of a field path names a secret-bearing field (`notifications[WEBHOOK].webhookUrl`). */
export function isSecretPath(path: string): boolean {
  const last = path.split(/[.[\]]/).filter((s) => s !== '');
  const name = last[last.length - 1];
  return name !== undefined && SECRET_FIELDS.has(name);
}

/** A deep copy with every secret field and secretRef replaced by the placeholder. */
export function maskSecrets(value: unknown): unknown {
  if (isSecretRef(value)) return SECRET_PLACEHOLDER;
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] =
        SECRET_FIELDS.has(key) && inner !== undefined && inner !== null ? SECRET_PLACEHOLDER : maskSecrets(inner);
    }
    return out;
  }
  return value;
}

/** One value on one line: strings quoted, objects as compact JSON, secrets masked, absent as `(none)`. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(none)';
  const masked = maskSecrets(value);
  if (masked === SECRET_PLACEHOLDER) return SECRET_PLACEHOLDER;
  return JSON.stringify(masked) ?? String(masked);
}

/** The text of each secret note but 'set', whose text depends on the write (secretNote). */
const SECRET_NOTE_TEXT: Readonly<Record<Exclude<SecretNote, 'set'>, string>> = {
  changed: '(secret changed)',
  // A secret field taken out of the desired notification: a bare `(secret)` would read as one still wanted.
  'set on live, not in desired': '(secret set on live, not in desired)',
  'removed on live': '(secret removed on live)',
  'changed on live': '(secret changed on live)',
  added: '(secret added)',
};

/**
 * The secret placeholder for a field change's note: `(secret changed)`, `(secret removed on live)`, `(secret changed on
 * live)`, `(secret set on live, not in desired)`, `(secret added)`. A secret with no fingerprint to compare with ('set')
 * is sent by the write that carries it, and says so: `(secret, will be sent on adoption)` for an adoption (its one
 * full PUT re-sends every secret), `(secret, will be sent with the update)` for an update; `(secret)` otherwise (a
 * blocked or drift change writes nothing), and for a note this version does not know (an older saved plan).
 */
export function secretNote(note: string | undefined, action?: ChangeAction): string {
  if (note === 'set') {
    if (action === 'adopt') return '(secret, will be sent on adoption)';
    if (action === 'update') return '(secret, will be sent with the update)';
    return SECRET_PLACEHOLDER;
  }
  return note !== undefined && Object.hasOwn(SECRET_NOTE_TEXT, note)
    ? SECRET_NOTE_TEXT[note as keyof typeof SECRET_NOTE_TEXT]
    : SECRET_PLACEHOLDER;
}

/**
 * The path as a reader finds it in the YAML. A field of one of several notifications of one identity (FieldChange.item)
 * is named by its type and its position in the desired list, `notifications[GROUP, item 3].intervalMin`, or
 * `notifications[GROUP, only on live]` for a live one nothing desired pairs with: the path's `#2` numbers them in their
 * sorted order, which the YAML does not show. Any other path is shown as it is.
 */
export function readablePath(change: FieldChange): string {
  const item = change.item;
  if (item === undefined || !Number.isSafeInteger(item) || item < 0) return change.path;
  const path = change.path;
  // The notification's prefix ends at the last `]`: a field name after it has no bracket; an address inside may.
  const end = path.endsWith(']') ? path.length - 1 : path.lastIndexOf('].');
  if (!path.startsWith('notifications[') || end < 0) return path;
  const typeName = /^[^:#\]]*/.exec(path.slice('notifications['.length))?.[0] ?? '';
  const where = item === 0 ? 'only on live' : `item ${item}`;
  return `notifications[${typeName}, ${where}]${path.slice(end + 1)}`;
}

/** What a plan says of a live member this version does not model (FieldChange.unmodelled): never its value. */
export const UNMODELLED_NOTE = '(set on live, not modelled by this version: not sent, Ops Manager may reset it)';

/**
 * `path: before -> after` (the path readablePath's), or the secret placeholder for a secret field (worded for `action`,
 * the change's: see secretNote). A side that is absent reads `(none)` on either side (`(none) -> {...}` added,
 * `{...} -> (none)` removed), so an added field or notification never reads as a value that is already there.
 */
export function formatFieldChange(change: FieldChange, action?: ChangeAction): string {
  const path = readablePath(change);
  if (change.unmodelled === true) return `${path}: ${UNMODELLED_NOTE}`;
  if (change.secret === true || isSecretPath(change.path)) return `${path}: ${secretNote(change.note, action)}`;
  return `${path}: ${formatValue(change.before)} -> ${formatValue(change.after)}`;
}

/** What the event did, for its line: a delete reads "deleted by", an addition "created by", anything else "changed by". */
function eventVerb(eventTypeName: string): string {
  if (eventTypeName.endsWith('_DELETED_AUDIT')) return 'deleted';
  if (eventTypeName.endsWith('_ADDED_AUDIT') || eventTypeName.endsWith('_CREATED_AUDIT')) return 'created';
  return 'changed';
}

/** `changed by jdoekey1 (API key) at 2026-11-21T10:00:00Z from 127.0.0.1 (ALERT_CONFIG_DISABLED_AUDIT)`. */
export function formatAttribution(a: DriftAttribution): string {
  const verb = eventVerb(a.eventTypeName);
  const who =
    a.keyIdOnly === true
      ? `API key ${a.actor} (named by its id alone: may be opsman-gitops's own key)`
      : a.actorType === 'apiKey'
        ? `${a.actor} (API key)`
        : a.actorType === 'user'
          ? `${a.actor} (user)`
          : a.actor;
  const from = a.remoteAddress !== undefined && a.remoteAddress !== '' ? ` from ${a.remoteAddress}` : '';
  if (a.viaOwnKey === true) {
    return `${verb} with opsman-gitops's own API key ${a.actor} at ${a.created}${from} (${a.eventTypeName}), after its last complete run: the key used by hand, by another installation, or by a run that did not complete`;
  }
  return `${verb} by ${who} at ${a.created}${from} (${a.eventTypeName})`;
}

/**
 * Top-level fields of an object as `name: value` lines, skipping identity and bookkeeping fields. A list of objects
 * (matchers, notifications) is one element a line, each led by `sign`, the change's own (`+` for a create, `-` for a
 * delete): a YAML bullet `-` under a create would read, in a terraform-style plan, as an element removed.
 */
export function objectLines(value: unknown, sign: '+' | '-', skip: ReadonlySet<string> = DEFAULT_SKIPPED): string[] {
  if (!isRecord(value)) return [formatValue(value)];
  const lines: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    if (skip.has(key) || inner === undefined) continue;
    if (Array.isArray(inner) && inner.length > 0 && inner.some((e) => typeof e === 'object' && e !== null)) {
      lines.push(`${key}:`);
      for (const element of inner) lines.push(`  ${sign} ${formatValue(element)}`);
      continue;
    }
    lines.push(SECRET_FIELDS.has(key) ? `${key}: ${SECRET_PLACEHOLDER}` : `${key}: ${formatValue(inner)}`);
  }
  return lines;
}

/** Fields not worth repeating under a change header: its identity and where it came from. */
export const DEFAULT_SKIPPED: ReadonlySet<string> = new Set([
  'key',
  'source',
  'template',
  'id',
  'groupId',
  'links',
  'created',
  'updated',
]);
