/**
 * Ajv errors as precise messages: path, expected, found, did-you-mean, at the YAML position they concern. Nothing
 * found inside a secret-bearing field is ever echoed.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { isScalar } from 'yaml';
import { SECRET_NOTIFICATION_FIELDS } from '../../opsman/types.ts';
import { printable } from '../printable.ts';
import { suggestion } from './did-you-mean.ts';
import { placesOf } from './field-places.ts';
import { findNode, formatPath, type LocatedDocument, locate, type PathSegment } from './locate.ts';
import type { ValidationIssue } from './types.ts';

const SECRET_FIELDS: readonly string[] = SECRET_NOTIFICATION_FIELDS;

/** The shape a secret-bearing field must have, as shown in messages. */
export const SECRET_REF_FORM = '{secretRef: "<secret id>#<json key>"}';

/** The path segments of a JSON pointer (ajv's instancePath): `/spec/alertConfigs/0` gives spec, alertConfigs, 0. */
export function segmentsOf(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** Text in double quotes with JSON's escapes, made printable (JSON leaves DEL, C1 and U+2028/2029 as they are). */
function quoted(text: string): string {
  return printable(JSON.stringify(text));
}

/** A short, safe description of a found value (strings quoted and truncated). */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (an empty value)';
  if (typeof value === 'string') return quoted(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

/** Why a text ends with a line break nobody typed, and the way out. */
const BLOCK_SCALAR_BREAK =
  ' (a block scalar, "|" or ">", keeps its last line break: write "|-" or ">-", or the value on one line)';

/**
 * True when the value at `segments` is a block scalar (`|`, `>`): only there is a final line break unseen in the file.
 * A quoted `"...\n"` shows its `\n`, and a value without a file behind it (export checking a live value) has no style.
 */
function blockScalar(located: LocatedDocument, segments: readonly PathSegment[]): boolean {
  const { node } = findNode(located, segments);
  return isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED');
}

/** Why a value written after `: #` is empty, and the way out. */
const COMMENTED_OUT = ' (YAML read the "#" and what follows it as a comment: put the value in quotes, e.g. "#alerts")';

/**
 * True when an empty value holds a comment glued to its `#` (`channelName: #payments-alerts`): YAML starts a comment
 * at ` #`, so a Slack channel written bare vanishes. A `# note` (with a space) reads as a real comment. The comment
 * itself is never echoed: it may be a misplaced secret.
 */
function commentedOut(located: LocatedDocument, segments: readonly PathSegment[]): boolean {
  const { node } = findNode(located, segments);
  return isScalar(node) && node.value === null && typeof node.comment === 'string' && /^\S/.test(node.comment);
}

/**
 * A number as written when YAML read it as another (`5e22...` as Infinity, a 20-digit id rounded): the message must
 * show what the reader wrote, not what a double made of it.
 */
function numberAsWritten(located: LocatedDocument, segments: readonly PathSegment[], value: number): string {
  const { node } = findNode(located, segments);
  const source = isScalar(node) && typeof node.source === 'string' ? node.source : undefined;
  if (source === undefined || source === String(value)) return String(value);
  return printable(source.length > 60 ? `${source.slice(0, 57)}...` : source);
}

/** Symbols and short forms people write for an operator, and the name Ops Manager takes instead. */
const OPERATOR_SPELLINGS: Record<string, string> = {
  '>': 'GREATER_THAN',
  gt: 'GREATER_THAN',
  above: 'GREATER_THAN',
  '<': 'LESS_THAN',
  lt: 'LESS_THAN',
  below: 'LESS_THAN',
  '=': 'EQUALS',
  '==': 'EQUALS',
  eq: 'EQUALS',
  '!=': 'NOT_EQUALS',
  '<>': 'NOT_EQUALS',
  ne: 'NOT_EQUALS',
  '=~': 'REGEX',
  '~': 'REGEX',
};

/** Days as people write them in full or cut anywhere (`Monday`, `Tues`, `Thurs`): a change window's `days` take `Mon`. */
const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** The day `Mon`..`Sun` a longer spelling names (at least its first three letters), or undefined. */
function dayOf(value: string, allowed: readonly string[]): string | undefined {
  const spelled = value.trim().toLowerCase().replace(/\.$/, '');
  const day = spelled.length >= 3 ? DAY_NAMES.find((name) => name.startsWith(spelled)) : undefined;
  const short = day === undefined ? undefined : `${day.charAt(0).toUpperCase()}${day.slice(1, 3)}`;
  return short !== undefined && allowed.includes(short) ? short : undefined;
}

/** The did-you-mean of a value outside an enumeration: a near name, else the name of an operator symbol or a day. */
function enumHint(value: unknown, allowed: readonly string[]): { text: string; hint?: string } {
  if (typeof value !== 'string') return { text: '' };
  const near = suggestion(value, allowed);
  if (near.hint !== undefined) return near;
  const day = dayOf(value, allowed);
  if (day !== undefined) {
    const hint = `did you mean "${day}"?`;
    return { text: `; ${hint}`, hint };
  }
  const spelled = value.trim().toLowerCase();
  const name = Object.hasOwn(OPERATOR_SPELLINGS, spelled) ? OPERATOR_SPELLINGS[spelled] : undefined;
  if (name === undefined || !allowed.includes(name)) return near;
  const hint = `did you mean "${name}"?`;
  return { text: `; ${hint}`, hint };
}

/** Why a string is not the boolean or number it looks like, or a number is none, and what to write instead (or empty). */
function textNotValue(expected: unknown, value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    // 1e400 reads as infinity: "must be a number; found 1e400" alone would read as a contradiction.
    const reads = Number.isNaN(value) ? 'NaN' : value > 0 ? 'infinity' : 'minus infinity';
    return ` (YAML reads it as ${reads}, which JSON and Ops Manager cannot hold)`;
  }
  if (typeof value !== 'string') return '';
  const word = value.trim().toLowerCase();
  if (expected === 'boolean') {
    if (word === 'true' || word === 'false') return ` (in quotes it is text: write ${word} without quotes)`;
    // YAML 1.1 booleans: YAML 1.2, which this tool reads as Ops Manager's own tools do, has only true and false.
    const yaml11 = ['yes', 'y', 'on'].includes(word) ? 'true' : ['no', 'n', 'off'].includes(word) ? 'false' : '';
    if (yaml11 !== '') return ` (YAML 1.2 reads ${value} as text, not a boolean: write ${yaml11})`;
    return '';
  }
  if ((expected === 'number' || expected === 'integer') && word !== '' && Number.isFinite(Number(word))) {
    return ` (in quotes it is text: write ${value.trim()} without quotes)`;
  }
  if (expected === 'number' || expected === 'integer') return separatedNumber(value.trim());
  return '';
}

/**
 * Why a number written with digit separators is text (`1_000`, YAML 1.1's digit separator; `1,000`, a thousands
 * separator), and the number to write: the value is shown in quotes, as text, so without this the message reads as if
 * the author had quoted it.
 */
function separatedNumber(written: string): string {
  // Without a "_" such text is a plain decimal, which the caller explains as quoted.
  const underscores = /^[-+]?[0-9][0-9_]*(\.[0-9_]*)?$/.test(written);
  const commas = /^[-+]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?$/.test(written);
  if (!underscores && !commas) return '';
  const plain = written.replace(/[_,]/g, '');
  const why = underscores ? 'the "_" digit separator is YAML 1.1\'s' : 'numbers take no thousands separator';
  return ` (YAML 1.2 reads ${written} as text: ${why}; write ${plain})`;
}

/**
 * Fields Ops Manager's responses carry that a request may not (src: reference ops-manager-api.md, "Response fields"):
 * copied from an API answer or an export of another tool, they are refused with what to do instead.
 */
const READ_ONLY: Record<string, Record<string, string>> = {
  alertConfigs: {
    id: " (this tool keeps each key's Ops Manager id in its state)",
    typeName: ' (a legacy field Ops Manager ignores; the event is eventTypeName)',
    groupId: ' (the project is metadata.projectId)',
    created: '',
    updated: '',
    links: '',
  },
  notifications: { teamName: ' (a TEAM notification names its team by teamId)', notifierId: '' },
};

/** The key YAML 1.1 reads as a merge of the mappings it names, and YAML 1.2 as an ordinary key. */
export const MERGE_KEY = '<<';

/** What a secret reference may hold (secret-ref.ts's pattern), in words. */
const SECRET_REF_CHARACTERS =
  ' (one "#"; the secret id of letters, digits and / _ + = . @ -, the key of letters, digits and _ . -; no spaces)';

/** Said of a secretRef that starts with `arn:`: how to write the reference instead. */
const SECRET_REF_ARN =
  '; it starts with "arn:": write the secret\'s name (as in "opsman/notify#slack-token"), not its ARN';

/** Members of an alert config that ignoreFields cannot name, with the reason. */
const NOT_IGNORABLE: Record<string, string> = {
  notifications:
    'notifications cannot be ignored: keeping the live ones would mean sending them back with a full PUT, and Ops Manager returns their secrets redacted',
  eventTypeName: 'eventTypeName cannot be ignored: it is what the alert config is',
  key: 'key cannot be ignored: it is how this tool names the alert config',
};

/** Why a value of an alert config's ignoreFields is refused beyond "not one of", or undefined. */
function ignoreFieldsReason(
  segments: readonly PathSegment[],
  value: unknown,
  allowed: readonly string[],
): string | undefined {
  if (segments[segments.length - 2] !== 'ignoreFields' || typeof value !== 'string') return undefined;
  if (Object.hasOwn(NOT_IGNORABLE, value)) return NOT_IGNORABLE[value];
  // `threshold.threshold`: a member's own fields are not named, the member is.
  const member = value.split(/[.[]/, 1)[0] ?? '';
  if (member !== value && allowed.includes(member)) return `ignoreFields names whole members: write ${member}`;
  // `notifications[0].intervalMin`: a field of a member that cannot be ignored, for that member's reason.
  if (member !== value && Object.hasOwn(NOT_IGNORABLE, member)) return NOT_IGNORABLE[member];
  return undefined;
}

/** The pattern of Ops Manager's ids (schema.ts's objectId). */
const OBJECT_ID_PATTERN = '^[0-9a-f]{24}$';

/**
 * What is wrong with an id that is hexadecimal but no id: a digit lost or doubled in copying is invisible in 24
 * characters, so its length is said; one in upper case (copied from a tool that shows ids so) has the obvious
 * did-you-mean.
 */
function objectIdHint(pattern: unknown, value: unknown): { text: string; hint?: string } {
  if (pattern !== OBJECT_ID_PATTERN || typeof value !== 'string' || !/^[0-9a-fA-F]+$/.test(value)) return { text: '' };
  if (value.length !== 24) return { text: ` (${value.length} characters, not 24)` };
  const hint = `did you mean "${value.toLowerCase()}"?`;
  return { text: `; ${hint} (ids are written in lower case)`, hint };
}

/** Lists of names (not of mappings, where a one-item list of the value would be no fix). */
const NAME_LISTS: readonly string[] = [
  'alertTemplates',
  'roles',
  'protect',
  'release',
  'days',
  'projects',
  'ignoreFields',
];

/**
 * How to write one value as a list (`alertTemplates: baseline` meant `[baseline]`), or empty: only for a plain name
 * (never a secret's field, checked before), so that the value shown back is one the reader wrote as a name.
 */
function oneItemList(segments: readonly PathSegment[], value: unknown): string {
  const field = segments[segments.length - 1];
  if (typeof field !== 'string' || !NAME_LISTS.includes(field)) return '';
  if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(value)) return '';
  const role = field === 'roles' ? `, or role: ${value}` : '';
  return ` (a list of one is written [${value}]${role})`;
}

/** Values users write from memory that Ops Manager refuses, with the reason. */
const KNOWN_REFUSALS: Record<string, string> = { TOTAL: 'Ops Manager no longer supports mode TOTAL' };

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

function isSecretSegment(segment: PathSegment): boolean {
  return typeof segment === 'string' && (SECRET_FIELDS.includes(segment) || segment === 'secretRef');
}

/** What a value is, with its article, never what it holds: `an empty value`, `a string value`. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value} value`;
}

function isSecretField(segments: readonly PathSegment[]): boolean {
  const last = segments[segments.length - 1];
  return typeof last === 'string' && SECRET_FIELDS.includes(last) && segments.includes('notifications');
}

/**
 * The did-you-mean of an unknown field: the places the same name has elsewhere in a document of this kind (a field
 * written at the wrong level), those its `value` fits first, else a near name at the same level (a typo where the
 * field belongs). The exact name wins: `projectId` under a Project's spec belongs in metadata, it is not a far-off
 * "protect". (No two field names of the schema are one edit apart but `role`/`roles`, which share an object, so a
 * typo here is never taken for a name from elsewhere.)
 */
function unknownFieldHint(
  field: string,
  value: unknown,
  known: readonly string[],
  kind: unknown,
  at: readonly PathSegment[],
): { text: string; hint?: string } {
  const inList = at.length >= 2 && typeof at[at.length - 1] === 'number' ? at[at.length - 2] : undefined;
  const readOnly = typeof inList === 'string' && Object.hasOwn(READ_ONLY, inList) ? READ_ONLY[inList] : undefined;
  const instead = readOnly !== undefined && Object.hasOwn(readOnly, field) ? readOnly[field] : undefined;
  if (instead !== undefined) {
    return {
      text: `: Ops Manager sets ${field} and returns it, but takes none; leave it out${instead}`,
      hint: `remove ${field}`,
    };
  }
  // `name` is how most tools name things; an alert config is named by its key.
  if (field === 'name' && inList === 'alertConfigs' && known.includes('key')) {
    const hint = 'did you mean "key"?';
    return { text: `; ${hint} (an alert config is named by its key)`, hint };
  }
  // An Organization is named by its orgId: a projectId there is that id under the Project's name for it.
  if (field === 'projectId' && kind === 'Organization' && at.length === 1 && at[0] === 'metadata') {
    const hint = 'did you mean "orgId"?';
    return { text: `; ${hint} (an organization is named by its orgId)`, hint };
  }
  // Templates do not nest: what one would include is listed by each project, beside it.
  if (field === 'alertTemplates' && kind === 'AlertTemplate' && at.length === 1 && at[0] === 'spec') {
    return {
      text: ": a template cannot list templates; list both in each project's spec.alertTemplates (their keys must differ)",
      hint: "list it in each project's spec.alertTemplates",
    };
  }
  // A YAML 1.1 merge key (`<<: *defaults`), as other tools' examples write it: YAML 1.2 reads it as a plain key.
  if (field === MERGE_KEY) {
    return {
      text: ': YAML 1.2 has no merge keys ("<<" is YAML 1.1\'s), so the fields it names are not merged in here; write them out in this mapping (an alias of a whole item, "- *name", repeats it unchanged)',
      hint: 'write the fields out',
    };
  }
  const from = at.map((segment) => (typeof segment === 'number' ? '[]' : segment));
  const places = placesOf(kind, field, from, value);
  if (places.length === 0) return suggestion(field, known);
  const list = places.join(' or ');
  return { text: `; it belongs in ${list}`, hint: `move it to ${list}` };
}

/**
 * One ajv error of a document as a ValidationIssue; `kind` (the document's, when it has one) lets an unknown field be
 * pointed to where it belongs.
 */
export function translate(located: LocatedDocument, error: ErrorObject, kind?: unknown): ValidationIssue {
  const segments = segmentsOf(error.instancePath);
  const where = formatPath(segments);
  const at = (path: readonly PathSegment[], on: 'value' | 'key' = 'value') => ({
    file: located.file,
    ...locate(located, path, on),
    path: formatPath(path),
  });
  const subject = where === '' ? 'the document' : where;
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  // Inside a secret-bearing field nothing is echoed: a misplaced secret must not reach a terminal or a CI log.
  const found = segments.some(isSecretSegment)
    ? kindOf(error.data)
    : typeof error.data === 'number'
      ? numberAsWritten(located, segments, error.data)
      : describeValue(error.data);
  switch (error.keyword) {
    case 'required': {
      const field = String(params.missingProperty);
      const expected = `field "${field}"`;
      return {
        ...at(segments, 'key'),
        path: formatPath([...segments, field]),
        message: `missing required ${expected} in ${subject}`,
        expected,
      };
    }
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const known = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
      // The value only picks among the places the name has (never echoed: it may be a misplaced secret).
      const value = (error.data as Record<string, unknown> | null)?.[field];
      const hint = unknownFieldHint(field, value, known, kind, segments);
      // Quoted like a value: a name holding a newline or an escape sequence must not forge a line of the report.
      const message = `unknown field ${describeValue(field)} in ${subject}${hint.text}`;
      const expected = `one of: ${known.join(', ')}`;
      return {
        ...at([...segments, field], 'key'),
        message,
        expected,
        found: `"${field}"`,
        ...(hint.hint ? { hint: hint.hint } : {}),
      };
    }
    case 'type': {
      if (isSecretField(segments) && typeof error.data !== 'object') {
        const field = String(segments[segments.length - 1]);
        const message = `${where} holds a literal value: secrets do not belong in git; write ${field}: ${SECRET_REF_FORM} and keep the value in the secret store`;
        return { ...at(segments), message, expected: SECRET_REF_FORM, found: `a literal ${typeof error.data}` };
      }
      const expected = TYPE_WORDS[String(params.type)] ?? String(params.type);
      // YAML reads unquoted 123, 5e22, true, null as non-strings: an all-digit id needs quotes.
      const quote =
        params.type === 'string' && ['number', 'boolean'].includes(typeof error.data)
          ? ` (YAML read it as a ${typeof error.data}: put the value in quotes)`
          : error.data === null && !segments.some(isSecretSegment) && commentedOut(located, segments)
            ? COMMENTED_OUT
            : segments.some(isSecretSegment)
              ? ''
              : params.type === 'array'
                ? oneItemList(segments, error.data)
                : textNotValue(params.type, error.data);
      return { ...at(segments), message: `${subject} must be ${expected}; found ${found}${quote}`, expected, found };
    }
    case 'enum': {
      const allowed = ((params.allowedValues as unknown[]) ?? []).map(String);
      // `role: [A, B]`: the shorthand takes one role; a list is what roles is for.
      if (Array.isArray(error.data) && segments[segments.length - 1] === 'role' && segments.includes('notifications')) {
        const hint = 'did you mean "roles"?';
        const message = `${subject} must be one role; found a list; ${hint} (role is a shorthand for a one-item roles list)`;
        return { ...at(segments, 'key'), message, expected: 'one role', found, hint };
      }
      const hint = enumHint(error.data, allowed);
      const list = allowed.length <= 16 ? `one of ${allowed.join(', ')}` : `one of the ${allowed.length} known values`;
      // Own properties only: a value "constructor" must not print the Object constructor's source as a reason.
      const known =
        ignoreFieldsReason(segments, error.data, allowed) ??
        (typeof error.data === 'string' && Object.hasOwn(KNOWN_REFUSALS, error.data)
          ? KNOWN_REFUSALS[error.data]
          : undefined);
      const message = `${subject} must be ${list}; found ${found}${known ? ` (${known})` : ''}${hint.text}`;
      return {
        ...at(segments),
        message,
        expected: allowed.join(', '),
        found,
        ...(hint.hint ? { hint: hint.hint } : {}),
      };
    }
    case 'const': {
      const expected = JSON.stringify(params.allowedValue);
      return { ...at(segments), message: `${subject} must be ${expected}; found ${found}`, expected, found };
    }
    case 'pattern': {
      const expected = String(schema.description ?? `text matching ${String(params.pattern)}`);
      // The reference itself is never shown (it may be a pasted secret), so say which characters it may hold.
      const allowed = segments[segments.length - 1] === 'secretRef' ? SECRET_REF_CHARACTERS : '';
      // A secret's ARN (copied from the console) is the likeliest wrong reference: its prefix is no secret to name.
      const arn =
        allowed !== '' && typeof error.data === 'string' && error.data.startsWith('arn:') ? SECRET_REF_ARN : '';
      // `value: |` keeps its last line break, unseen in the file: say where the "\n" comes from.
      const why =
        typeof error.data === 'string' && error.data.endsWith('\n') && blockScalar(located, segments)
          ? BLOCK_SCALAR_BREAK
          : '';
      const id = objectIdHint(schema.pattern, error.data);
      const message = `${subject} must be ${expected}; found ${found}${allowed}${arn}${why}${id.text}`;
      return { ...at(segments), message, expected, found, ...(id.hint ? { hint: id.hint } : {}) };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const words: Record<string, string> = {
        minimum: 'at least',
        maximum: 'at most',
        exclusiveMinimum: 'greater than',
        exclusiveMaximum: 'less than',
      };
      const expected = `${words[error.keyword]} ${String(params.limit)}`;
      // Above a maximum the unit is the likely mistake (percentOfDiskspace 40 meant as 40%): the field says its unit.
      const unit =
        error.keyword === 'maximum' && typeof schema.description === 'string' ? ` (${schema.description})` : '';
      return { ...at(segments), message: `${subject} must be ${expected}; found ${found}${unit}`, expected, found };
    }
    case 'minItems':
    case 'minLength': {
      const expected = Number(params.limit) <= 1 ? 'not empty' : `at least ${String(params.limit)} items`;
      const message = Number(params.limit) <= 1 ? `${subject} must not be empty` : `${subject} must have ${expected}`;
      return { ...at(segments), message, expected, found };
    }
    case 'uniqueItems': {
      const j = Number(params.j);
      const item = Array.isArray(error.data) ? describeValue(error.data[j]) : 'an item';
      return {
        ...at([...segments, j]),
        message: `${subject} lists ${item} twice`,
        expected: 'each item once',
        found: item,
      };
    }
    default:
      return { ...at(segments), message: `${subject} does not match the format (rule "${error.keyword}")` };
  }
}
