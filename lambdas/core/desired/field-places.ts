/**
 * Where each field name belongs in a document of each kind, read from DESIRED_STATE_SCHEMA itself: an unknown field
 * that is a known field somewhere else (`defaultServerType` under metadata, `eventTypeName` directly under spec) is
 * most likely misplaced, and the message can say where it goes. Built from the schema, so it follows every change.
 */
import { isRecord } from '../../../shared/is-record.ts';
import { KINDS } from './enums.ts';
import { DESIRED_STATE_SCHEMA } from './schema.ts';

type SchemaNode = Record<string, unknown>;

/** Places of a field listed in a hint at most: a name found in more places than this (operator, units) says little. */
export const MAX_PLACES = 3;

function asNode(value: unknown): SchemaNode | undefined {
  return isRecord(value) ? value : undefined;
}

/** `#/$defs/Name` of the schema, or the node itself. */
function resolve(node: SchemaNode): SchemaNode {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return node;
  const defs = asNode(DESIRED_STATE_SCHEMA.$defs);
  return asNode(defs?.[ref.slice('#/$defs/'.length)]) ?? node;
}

/** One place of a field: its path, and its schema (whether a value would fit there). */
interface Place {
  path: string[];
  node: SchemaNode;
}

/** Records the place of every property under `node`, recursively (a `[]` segment stands for any item of a list). */
function collect(node: SchemaNode, prefix: readonly string[], into: Map<string, Place[]>): void {
  const resolved = resolve(node);
  const items = asNode(resolved.items);
  if (items !== undefined) collect(items, [...prefix, '[]'], into);
  const properties = asNode(resolved.properties);
  if (properties === undefined) return;
  for (const [field, child] of Object.entries(properties)) {
    const path = [...prefix, field];
    const childNode = asNode(child) ?? {};
    into.set(field, [...(into.get(field) ?? []), { path, node: childNode }]);
    collect(childNode, path, into);
  }
}

/** The JSON Schema type names `value` has (`integer` is a `number` too). */
function typesOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['number', 'integer'] : ['number'];
  return [typeof value];
}

/** Whether `value` passes the place's enum, const and type (its other rules are not needed to tell places apart). */
function fits(place: Place, value: unknown): boolean {
  const node = resolve(place.node);
  if (Array.isArray(node.enum) && !node.enum.includes(value)) return false;
  if ('const' in node && node.const !== value) return false;
  const type = node.type;
  const types = Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
  return types.length === 0 || typesOf(value).some((t) => types.includes(t));
}

/** The document schema of one kind: the root's own properties plus the metadata and spec its `then` branch gives. */
function kindSchema(kind: string): SchemaNode {
  const root = asNode(DESIRED_STATE_SCHEMA.properties) ?? {};
  const rules = Array.isArray(DESIRED_STATE_SCHEMA.allOf) ? DESIRED_STATE_SCHEMA.allOf : [];
  for (const rule of rules) {
    const ifKind = asNode(asNode(asNode(asNode(rule)?.if)?.properties)?.kind)?.const;
    if (ifKind !== kind) continue;
    const then = asNode(asNode(asNode(rule)?.then)?.properties) ?? {};
    return { properties: { ...root, ...then } };
  }
  return { properties: root };
}

let places: Map<string, Map<string, Place[]>> | undefined;

/** Field name -> every place it has, per kind (built on first use). */
function placesByKind(): Map<string, Map<string, Place[]>> {
  if (places === undefined) {
    places = new Map();
    for (const kind of KINDS) {
      const fields = new Map<string, Place[]>();
      collect(kindSchema(kind), [], fields);
      places.set(kind, fields);
    }
  }
  return places;
}

/** `spec.alertConfigs[].eventTypeName` from its segments. */
function formatPlace(segments: readonly string[]): string {
  return segments.reduce((out, segment) => (segment === '[]' || out === '' ? out + segment : `${out}.${segment}`), '');
}

/** Steps from the mapping at `from` to the mapping holding `place`: up to their common part, then down. */
function distance(from: readonly string[], place: readonly string[]): number {
  const parent = place.slice(0, -1);
  let common = 0;
  while (common < from.length && common < parent.length && from[common] === parent[common]) common += 1;
  return from.length - common + (parent.length - common);
}

/**
 * Where `field` belongs in a document of `kind` (`spec.defaultServerType`, `spec.alertConfigs[].eventTypeName`),
 * nearest to the mapping it was found in (`from`, list indexes written `[]`) only: `mode` under metadata belongs in
 * spec, not in an alert's metricThreshold. Given the `value` written, only the places it fits count when there are
 * any: `mode: plan` in an alert config belongs in spec.mode, though metricThreshold.mode (AVERAGE only) is nearer.
 * Empty for an unknown kind or field, or more than {@link MAX_PLACES} ties.
 */
export function placesOf(kind: unknown, field: string, from: readonly string[], value?: unknown): string[] {
  if (typeof kind !== 'string') return [];
  const all = placesByKind().get(kind)?.get(field) ?? [];
  // A parsed YAML value is never undefined (an empty one is null): undefined means "not given".
  const fitting = value === undefined ? [] : all.filter((place) => fits(place, value));
  const found = (fitting.length > 0 ? fitting : all).map((place) => place.path);
  const nearest = Math.min(...found.map((place) => distance(from, place)));
  const best = found.filter((place) => distance(from, place) === nearest);
  return best.length > MAX_PLACES ? [] : best.map(formatPlace);
}

/** The fields every place of which (in every kind) passes `test`, by name. */
function fieldsWhere(test: (node: SchemaNode) => boolean): Set<string> {
  const all = new Map<string, boolean>();
  for (const fields of placesByKind().values()) {
    for (const [name, list] of fields) all.set(name, (all.get(name) ?? true) && list.every((p) => test(p.node)));
  }
  return new Set([...all].filter(([, every]) => every).map(([name]) => name));
}

/** Whether a schema node is an object or a list (after its `$ref`), and nothing else. */
function isBlockNode(node: SchemaNode): boolean {
  const resolved = resolve(node);
  const type = resolved.type;
  if (type === 'object' || type === 'array') return true;
  return type === undefined && (isRecord(resolved.properties) || isRecord(resolved.items));
}

let blockFields: Set<string> | undefined;
let listFields: Set<string> | undefined;

/**
 * Whether `field` holds a mapping or a list wherever the schema has it, in every kind (`spec`, `notifications`,
 * `matchers`, `auditLogRotation`): a plain value written on its line is then never what was meant. False for a field
 * that is a plain value anywhere (`mode`, `prune`, which Settings makes a mapping and a Project a boolean) or unknown.
 */
export function holdsBlock(field: string): boolean {
  blockFields ??= fieldsWhere(isBlockNode);
  return blockFields.has(field);
}

/**
 * Whether `field` holds a list wherever the schema has it, in every kind (`alertConfigs`, `notifications`, `roles`):
 * a block of keys under it with no `- ` was then meant as a list item.
 */
export function holdsList(field: string): boolean {
  listFields ??= fieldsWhere((node) => resolve(node).type === 'array');
  return listFields.has(field);
}
