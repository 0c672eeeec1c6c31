/**
 * Read-side normalisation of the shapes that vary between the spec's tables, its examples and the real product:
 * `serverType` as a bare string or a `{name, label}` object, wrapped or not; `processes[].cluster` as a string or object.
 */
import type { HostAssignment, PhysicalHost, ServerType, ServerTypeName } from './types.ts';

/** The labels Ops Manager shows for each server type (the spec's table writes the last 'Ram Pool', its examples and the product 'RAM Pool'). */
export const SERVER_TYPE_LABELS: Readonly<Record<ServerTypeName, string>> = Object.freeze({
  DEV_SERVER: 'Dev Server',
  TEST_SERVER: 'Test Server',
  PRODUCTION_SERVER: 'Production Server',
  RAM_POOL: 'RAM Pool',
});

/**
 * A server type in object form from any of the shapes seen on the wire: `"DEV_SERVER"`, `{name, label}` or
 * `{serverType: …}`. Null for an empty body, an empty object, or an unreadable value.
 */
export function normalizeServerType(value: unknown): ServerType | null {
  if (typeof value === 'string') {
    if (value === '') return null;
    const label = SERVER_TYPE_LABELS[value as ServerTypeName];
    return label === undefined ? { name: value as ServerTypeName } : { name: value as ServerTypeName, label };
  }
  if (value === null || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  if ('serverType' in record) return normalizeServerType(record.serverType);
  if (typeof record.name !== 'string' || record.name === '') return null;
  const name = record.name as ServerTypeName;
  const label = typeof record.label === 'string' ? record.label : SERVER_TYPE_LABELS[name];
  return label === undefined ? { name } : { name, label };
}

/** A physical host with `serverType` always an object and `hosts` always an array. */
export function normalizePhysicalHost(host: PhysicalHost): PhysicalHost {
  const serverType = normalizeServerType(host.serverType);
  return { ...host, serverType: serverType ?? host.serverType, hosts: Array.isArray(host.hosts) ? host.hosts : [] };
}

/** A host assignment with `serverType` an object and each process's `cluster` a string. */
export function normalizeHostAssignment(assignment: HostAssignment): HostAssignment {
  const serverType = normalizeServerType(assignment.serverType) ?? assignment.serverType;
  const processes = (Array.isArray(assignment.processes) ? assignment.processes : []).map((process) => {
    const cluster: unknown = process.cluster;
    if (cluster !== null && typeof cluster === 'object' && typeof (cluster as { name?: unknown }).name === 'string') {
      return { ...process, cluster: (cluster as { name: string }).name };
    }
    return process;
  });
  return { ...assignment, serverType, processes };
}
