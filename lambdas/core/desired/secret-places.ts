/**
 * Where the secret references of a document are written: `spec.alertConfigs[i].notifications[j].<field>.secretRef`.
 * The loader records their positions on the happy path (lazy-document.ts, simple-yaml.ts) so that a reference that
 * does not resolve at plan time can be pointed at in its file, even when the syntax tree is long gone (or the state
 * came from the desired-state cache).
 */
import { asArray, asRecord } from './issue.ts';
import type { PathSegment } from './locate.ts';

/** One secret reference of a document: the alert config and notification indexes, the field, the path to the value. */
export interface SecretPlace {
  config: number;
  notification: number;
  field: string;
  /** Path of the reference's string (`secretRef` included). */
  path: PathSegment[];
  /** The `{secretRef: ...}` mapping itself. */
  holder: Record<string, unknown>;
}

/** Every `{secretRef: ...}` value directly under a notification of `spec.alertConfigs`, in document order. */
export function secretPlaces(value: unknown): SecretPlace[] {
  const places: SecretPlace[] = [];
  asArray(asRecord(asRecord(value)?.spec)?.alertConfigs).forEach((config, i) => {
    asArray(asRecord(config)?.notifications).forEach((notification, j) => {
      const record = asRecord(notification);
      if (record === undefined) return;
      for (const field in record) {
        const ref = asRecord(record[field]);
        if (ref !== undefined && Object.hasOwn(ref, 'secretRef')) {
          places.push({
            config: i,
            notification: j,
            field,
            path: ['spec', 'alertConfigs', i, 'notifications', j, field, 'secretRef'],
            holder: ref,
          });
        }
      }
    });
  });
  return places;
}

/** The key of a secret's source in `DesiredAlertConfig.secretSources`: `notifications[<index>].<field>`. */
export function secretSourceKey(notification: number, field: string): string {
  return `notifications[${notification}].${field}`;
}
