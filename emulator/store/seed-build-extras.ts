/** Seed sections beyond the directory and alert configurations: usage, server types, audit log, manifest, S3, events. */
import { isRecord } from '../../shared/is-record.ts';
import { ApiError } from '../errors.ts';
import { isoSeconds, newObjectId } from '../ids.ts';
import type { Checker } from './checker.ts';
import { parseServerType, validateAuditLogRotate, validatePhysicalHost } from './resources.ts';
import { validateS3Config } from './s3-config.ts';
import type { EventRec, HostAssignmentRec, ProcessRec, ServerTypeName, State } from './state.ts';

function guard<T>(c: Checker, path: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    c.add(path, `${err.code}: ${err.message}`);
    return undefined;
  }
}

function buildUsage(doc: Record<string, unknown>, c: Checker, state: State): void {
  const names = new Set<string>();
  for (const [i, raw] of c.array(doc.physicalHosts, 'physicalHosts').entries()) {
    const p = `physicalHosts[${i}]`;
    const o = c.object(raw, p, ['id', 'name', 'serverType', 'hosts', 'virtualHosts']);
    const id = c.objectId(o?.id, `${p}.id`);
    if (!o || !id) continue;
    const host = guard(c, p, () => validatePhysicalHost(o, id, (g) => state.groups.has(g)));
    if (!host) continue;
    if (state.physicalHosts.has(id)) {
      c.add(`${p}.id`, `duplicate physical host id ${id}`);
      continue;
    }
    if (names.has(host.name)) {
      c.add(`${p}.name`, `duplicate physical host name ${host.name}`);
      continue;
    }
    names.add(host.name);
    state.physicalHosts.set(id, host);
  }
  const allowed = [
    'groupId',
    'hostId',
    'hostname',
    'serverType',
    'processes',
    'isChargeable',
    'memSizeMB',
    'from',
    'to',
  ];
  for (const [i, raw] of c.array(doc.hostAssignments, 'hostAssignments').entries()) {
    const p = `hostAssignments[${i}]`;
    const o = c.object(raw, p, allowed);
    if (!o) continue;
    const groupId = c.objectId(o.groupId, `${p}.groupId`);
    if (groupId && !state.groups.has(groupId)) c.add(`${p}.groupId`, `unknown project ${groupId}`);
    const hostname = c.string(o.hostname, `${p}.hostname`);
    const serverType = guard(c, `${p}.serverType`, () => parseServerType(o.serverType, 'serverType'));
    const hostId = c.objectId(o.hostId, `${p}.hostId`, false);
    const from = c.date(o.from, `${p}.from`, false);
    const to = c.date(o.to, `${p}.to`, false);
    if (from && to && from > to) c.add(`${p}.to`, `"to" ${to} is before "from" ${from}`);
    const processes = c.array(o.processes, `${p}.processes`).map((pr, j): ProcessRec => {
      const q = `${p}.processes[${j}]`;
      const po = c.object(pr, q, ['cluster', 'name', 'processType', 'hasConflictingServerType']);
      const out: ProcessRec = {};
      const cluster = c.string(po?.cluster, `${q}.cluster`, false);
      const name = c.string(po?.name, `${q}.name`, false);
      const processType = c.number(po?.processType, `${q}.processType`, true);
      const conflict = c.boolean(po?.hasConflictingServerType, `${q}.hasConflictingServerType`);
      if (cluster !== undefined) out.cluster = cluster;
      if (name !== undefined) out.name = name;
      if (processType !== undefined) out.processType = processType;
      if (conflict !== undefined) out.hasConflictingServerType = conflict;
      return out;
    });
    const isChargeable = c.boolean(o.isChargeable, `${p}.isChargeable`);
    const memSizeMB = c.number(o.memSizeMB, `${p}.memSizeMB`);
    if (!groupId || !hostname || !serverType) continue;
    const rec: HostAssignmentRec = { groupId, hostname, serverType, processes };
    if (hostId) rec.hostId = hostId;
    if (isChargeable !== undefined) rec.isChargeable = isChargeable;
    if (memSizeMB !== undefined) rec.memSizeMB = memSizeMB;
    if (from) rec.from = from;
    if (to) rec.to = to;
    state.hostAssignments.push(rec);
  }
}

function buildSettings(doc: Record<string, unknown>, c: Checker, state: State): void {
  for (const [i, raw] of c.array(doc.defaultServerTypes, 'defaultServerTypes').entries()) {
    const p = `defaultServerTypes[${i}]`;
    const o = c.object(raw, p, ['groupId', 'orgId', 'serverType']);
    if (!o) continue;
    const type = guard(c, `${p}.serverType`, () => parseServerType(o.serverType, 'serverType')) as ServerTypeName;
    if ((o.groupId === undefined) === (o.orgId === undefined)) {
      c.add(p, 'give exactly one of groupId and orgId');
      continue;
    }
    if (o.groupId !== undefined) {
      const id = c.objectId(o.groupId, `${p}.groupId`);
      if (id && !state.groups.has(id)) {
        c.add(`${p}.groupId`, `unknown project ${id}`);
        continue;
      }
      if (id && type) state.groupServerTypes.set(id, type);
    } else {
      const id = c.objectId(o.orgId, `${p}.orgId`);
      if (id && !state.orgs.has(id)) {
        c.add(`${p}.orgId`, `unknown organization ${id}`);
        continue;
      }
      if (id && type) state.orgServerTypes.set(id, type);
    }
  }
  for (const [i, raw] of c.array(doc.auditLogRotateConfigs, 'auditLogRotateConfigs').entries()) {
    const p = `auditLogRotateConfigs[${i}]`;
    const o = c.object(raw, p);
    if (!o) continue;
    const { groupId: g, ...fields } = o;
    const groupId = c.objectId(g, `${p}.groupId`);
    if (groupId && !state.groups.has(groupId)) {
      c.add(`${p}.groupId`, `unknown project ${groupId}`);
      continue;
    }
    const rec = guard(c, p, () => validateAuditLogRotate(fields));
    if (groupId && rec) state.auditLogRotate.set(groupId, rec);
  }
  if (doc.versionManifest !== undefined && doc.versionManifest !== null) {
    const m = doc.versionManifest;
    if (typeof m === 'string') {
      try {
        if (!isRecord(JSON.parse(m))) c.add('versionManifest', 'the manifest text must be a JSON object');
        else state.versionManifest = m;
      } catch {
        c.add('versionManifest', 'the manifest text is not valid JSON');
      }
    } else if (isRecord(m)) {
      if (!Array.isArray(m.versions)) c.add('versionManifest.versions', 'expected a list of versions');
      state.versionManifest = JSON.stringify(m);
    } else c.add('versionManifest', 'expected an object or its JSON text');
  }
  for (const [i, raw] of c.array(doc.s3Configs, 's3Configs').entries()) {
    const rec = guard(c, `s3Configs[${i}]`, () => validateS3Config(raw, undefined));
    if (rec && state.s3Configs.has(rec.id)) c.add(`s3Configs[${i}].id`, `duplicate id ${rec.id}`);
    else if (rec) state.s3Configs.set(rec.id, rec);
  }
}

function buildEvents(doc: Record<string, unknown>, c: Checker, state: State, now: number): void {
  const events: EventRec[] = [];
  for (const [i, raw] of c.array(doc.events, 'events').entries()) {
    const p = `events[${i}]`;
    const o = c.object(raw, p);
    if (!o) continue;
    const id = c.objectId(o.id, `${p}.id`, false) ?? newObjectId(now);
    const created = c.timestamp(o.created, `${p}.created`, false) ?? isoSeconds(now);
    const eventTypeName = c.string(o.eventTypeName, `${p}.eventTypeName`);
    const groupId = c.objectId(o.groupId, `${p}.groupId`, false);
    const orgId = c.objectId(o.orgId, `${p}.orgId`, false);
    if (groupId && !state.groups.has(groupId)) c.add(`${p}.groupId`, `unknown project ${groupId}`);
    if (orgId && !state.orgs.has(orgId)) c.add(`${p}.orgId`, `unknown organization ${orgId}`);
    if (o.raw !== undefined && !isRecord(o.raw)) c.add(`${p}.raw`, 'expected an object');
    if (o.diffs !== undefined && !Array.isArray(o.diffs)) c.add(`${p}.diffs`, 'expected a list');
    // The spec: apiKeyId "when present, userId is omitted", publicKey "when present, username is omitted".
    for (const [key, user] of [
      ['apiKeyId', 'userId'],
      ['publicKey', 'username'],
    ] as const) {
      if (o[key] !== undefined && o[user] !== undefined) {
        c.add(`${p}.${user}`, `an event triggered by an API key (${key}) has no ${user}`);
      }
    }
    if (eventTypeName) events.push({ ...o, id, created, eventTypeName } as EventRec);
  }
  // Stable by creation time, so a hand-written seed may list events in any order.
  state.events = events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.created.localeCompare(b.e.created) || a.i - b.i)
    .map((x) => x.e);
}

/** Fills the remaining sections of `state` from the seed document. */
export function buildExtras(doc: Record<string, unknown>, c: Checker, state: State, now: number): void {
  buildUsage(doc, c, state);
  buildSettings(doc, c, state);
  buildEvents(doc, c, state, now);
}
