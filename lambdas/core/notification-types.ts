/**
 * What Ops Manager echoes per notification type, the defaults it fills, and how a notification is identified
 * independently of its position in the list. Written from the spec and shared/reference/ops-manager-api.md.
 */

import { SECRET_NOTIFICATION_FIELDS, type SecretNotificationField } from '../opsman/types.ts';
import { canonicalJson } from './canonical.ts';

/** Fields (besides typeName) each notification type echoes on read. Fields outside this list are never compared. */
export const ECHOED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ADMIN: ['delayMin', 'intervalMin', 'emailEnabled', 'smsEnabled'],
  DATADOG: ['delayMin', 'intervalMin', 'datadogApiKey'],
  EMAIL: ['delayMin', 'intervalMin', 'emailAddress'],
  GROUP: ['delayMin', 'intervalMin', 'emailEnabled', 'smsEnabled', 'roles'],
  HIPCHAT: ['delayMin', 'intervalMin', 'notificationToken', 'roomName'],
  MICROSOFT_TEAMS: ['delayMin', 'intervalMin', 'microsoftTeamsWebhookUrl'],
  OPS_GENIE: ['delayMin', 'opsGenieApiKey', 'opsGenieRegion'],
  ORG: ['delayMin', 'intervalMin', 'emailEnabled', 'smsEnabled', 'roles'],
  PAGER_DUTY: ['delayMin', 'serviceKey'],
  SLACK: ['delayMin', 'intervalMin', 'apiToken', 'channelName'],
  SMS: ['delayMin', 'intervalMin', 'mobileNumber'],
  TEAM: ['delayMin', 'intervalMin', 'emailEnabled', 'smsEnabled', 'teamId'],
  USER: ['delayMin', 'intervalMin', 'emailEnabled', 'smsEnabled', 'username'],
  VICTOR_OPS: ['delayMin', 'victorOpsApiKey', 'victorOpsRoutingKey'],
  WEBHOOK: ['delayMin', 'intervalMin', 'webhookUrl', 'webhookSecret'],
};

/** Every non-server notification field: used for types missing from ECHOED_FIELDS (compare all we know). */
const ALL_FIELDS: readonly string[] = [
  'delayMin',
  'intervalMin',
  'emailEnabled',
  'smsEnabled',
  'emailAddress',
  'mobileNumber',
  'username',
  'roles',
  'teamId',
  'channelName',
  'roomName',
  'opsGenieRegion',
  ...SECRET_NOTIFICATION_FIELDS,
];

/** Notification members that are no setting of it: server-generated, or a name shown for an id. */
const SERVER_NOTIFICATION_FIELDS: ReadonlySet<string> = new Set(['typeName', 'notifierId', 'teamName', 'role']);

/**
 * True for a member of a `typeName` notification that this version models: one its type echoes (what normalisation
 * compares and a write sends), or a server-only member. False for one only a newer Ops Manager answers, and for a
 * setting of another type (a newer server's `intervalMin` on PAGER_DUTY, an `emailAddress` set on a GROUP by another
 * client): a full PUT does not send either, so Ops Manager may reset it.
 */
export function isKnownNotificationField(field: string, typeName: string): boolean {
  return echoedFields(typeName).includes(field) || SERVER_NOTIFICATION_FIELDS.has(field);
}

/**
 * Values the server fills when a field its type echoes was not sent. Filled on both sides before comparing, so an
 * omitted field and its default are equal.
 */
export const NOTIFICATION_DEFAULTS: Readonly<Record<string, unknown>> = {
  delayMin: 0,
  // Ops Manager repeats every 60 minutes unless told otherwise (types without an interval never echo it).
  intervalMin: 60,
  emailEnabled: false,
  smsEnabled: false,
};

/** The field that addresses a notification of a type (its identity beside typeName). */
const ADDRESS_FIELD: Readonly<Record<string, string>> = {
  EMAIL: 'emailAddress',
  SMS: 'mobileNumber',
  USER: 'username',
  TEAM: 'teamId',
  SLACK: 'channelName',
  HIPCHAT: 'roomName',
};

const SECRET_FIELDS: ReadonlySet<string> = new Set(SECRET_NOTIFICATION_FIELDS);

/** Fields compared for a notification of `typeName`. */
export function echoedFields(typeName: string): readonly string[] {
  return ECHOED_FIELDS[typeName] ?? ALL_FIELDS;
}

/** True for a secret-bearing field name. */
export function isSecretField(field: string): field is SecretNotificationField {
  return SECRET_FIELDS.has(field);
}

/** A notification's non-secret identity: `EMAIL:ops@example.com`, `GROUP`, `WEBHOOK`. */
export function notificationIdentity(notification: Record<string, unknown>): string {
  const typeName = String(notification.typeName ?? '?');
  const field = ADDRESS_FIELD[typeName];
  const address = field === undefined ? undefined : notification[field];
  if (address === undefined || address === null) return typeName;
  // A live answer may hold anything here: an object is named by its JSON (String() of one may throw, or say nothing).
  return `${typeName}:${typeof address === 'object' ? canonicalJson(address) : String(address)}`;
}

/** True when a value looks like a redaction mask (four or more asterisks in a row). */
export function looksMasked(value: unknown): boolean {
  return typeof value === 'string' && /\*{4,}/.test(value);
}
