/**
 * Errors of the emulator. `EmulatorError` is the base (startup, seed and data-file problems); `ApiError` is an error
 * answered to an HTTP client as the five-field JSON body of the real product. No error carries a credential or secret.
 */

import { ACCEPTED_CONTENT_CODING } from './http/content-coding.ts';

/** Base error of the emulator: a stable `code` and optional context (never a secret value). */
export class EmulatorError extends Error {
  override name = 'EmulatorError';
  /** Stable machine-readable code. */
  readonly code: string;
  /** Extra context for logs (ids, paths, never secrets). */
  readonly context: Record<string, unknown>;

  constructor(code: string, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.context = context;
  }
}

/** The seed (file or object) is not valid; `issues` lists every problem with its path. */
export class SeedError extends EmulatorError {
  override name = 'SeedError';
  readonly issues: string[];

  constructor(source: string, issues: string[]) {
    super('SEED_INVALID', `invalid seed ${source}:\n  - ${issues.join('\n  - ')}`, { source });
    this.issues = issues;
  }
}

/** The data file exists but cannot be used; it is never overwritten. */
export class DataFileError extends EmulatorError {
  override name = 'DataFileError';

  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(
      'DATA_FILE_CORRUPT',
      `refusing data file ${file}: ${problem}. It was left untouched; move it away or fix it to start.`,
      { file },
      options,
    );
  }
}

/** HTTP reason phrases of the statuses the emulator answers. */
export const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
};

/** The five-field JSON error body of the real product. */
export interface ErrorBody {
  detail: string;
  error: number;
  errorCode: string;
  parameters: unknown[];
  reason: string;
}

/** An error answered to the client: status, errorCode, detail and parameters, plus optional extra headers. */
export class ApiError extends EmulatorError {
  override name = 'ApiError';
  readonly status: number;
  readonly parameters: unknown[];
  readonly headers: Record<string, string>;

  constructor(status: number, errorCode: string, detail: string, parameters: unknown[] = [], headers = {}) {
    super(errorCode, detail, { status });
    this.status = status;
    this.parameters = parameters;
    this.headers = headers;
  }

  /** The body sent on the wire. */
  toBody(): ErrorBody {
    return {
      detail: this.message,
      error: this.status,
      errorCode: this.code,
      parameters: this.parameters,
      reason: REASONS[this.status] ?? 'Error',
    };
  }
}

/** Factories for every error class the emulator answers, with the reference's codes and detail templates. */
export const apiErrors = {
  notAuthorized: () => new ApiError(401, 'NOT_AUTHORIZED', 'You are not authorized for this resource.'),
  userUnauthorized: () =>
    new ApiError(401, 'USER_UNAUTHORIZED', 'Current user is not authorized to perform this action.'),
  resourceNotFound: (path: string) => new ApiError(404, 'RESOURCE_NOT_FOUND', `Cannot find resource ${path}.`, [path]),
  groupNotFound: (id: string) => new ApiError(404, 'GROUP_NOT_FOUND', `No group with ID ${id} exists.`, [id]),
  orgNotFound: (id: string) => new ApiError(404, 'ORG_NOT_FOUND', `No organization with ID ${id} exists.`, [id]),
  alertConfigNotFound: (id: string, groupId: string) =>
    new ApiError(404, 'ALERT_CONFIG_NOT_FOUND', `No alert configuration with ID ${id} exists in group ${groupId}.`, [
      id,
      groupId,
    ]),
  methodNotAllowed: (method: string, path: string, allow: string[]) =>
    new ApiError(405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed on resource ${path}.`, [method, path], {
      Allow: allow.join(', '),
    }),
  invalidJson: () => new ApiError(400, 'INVALID_JSON', 'Received JSON does not match expected format.'),
  notUtf8: () => new ApiError(400, 'INVALID_JSON', 'Received JSON is not valid UTF-8.'),
  loneSurrogate: () =>
    new ApiError(
      400,
      'INVALID_JSON',
      'Received JSON has a string with half a surrogate pair (a lone \\uD800-\\uDFFF escape).',
    ),
  jsonTooDeep: (max: number) =>
    new ApiError(400, 'INVALID_JSON', `Received JSON is nested more than ${max} levels deep.`),
  invalidJsonAttribute: (attr: string) =>
    new ApiError(
      400,
      'INVALID_JSON_ATTRIBUTE',
      `Received JSON for the ${attr} attribute does not match expected format.`,
      [attr],
    ),
  invalidAttribute: (attr: string) =>
    new ApiError(400, 'INVALID_ATTRIBUTE', `Invalid attribute ${attr} specified.`, [attr]),
  missingAttribute: (attr: string) =>
    new ApiError(400, 'MISSING_ATTRIBUTE', `The required attribute ${attr} was not specified.`, [attr]),
  readOnly: (attr: string) =>
    new ApiError(400, 'ATTRIBUTE_READ_ONLY', `The attribute ${attr} is read-only and cannot be changed by the user.`, [
      attr,
    ]),
  invalidEnum: (value: string, attr: string) =>
    new ApiError(400, 'INVALID_ENUM_VALUE', `An invalid enumeration value ${value} was specified.`, [value, attr]),
  invalidQuery: (name: string) =>
    new ApiError(400, 'INVALID_QUERY_PARAMETER', `Invalid query parameter ${name} specified.`, [name]),
  missingQuery: (name: string) =>
    new ApiError(400, 'MISSING_QUERY_PARAMETER', `The required query parameter ${name} was not specified.`, [name]),
  missingNotifications: () =>
    new ApiError(400, 'MISSING_NOTIFICATIONS', 'At least one notification must be specified.'),
  intervalOutOfRange: () =>
    new ApiError(
      400,
      'NOTIFICATION_INTERVAL_OUT_OF_RANGE',
      'Notifications must have an interval of at least 5 minutes.',
    ),
  missingMetricThreshold: (eventType: string) =>
    new ApiError(
      400,
      'MISSING_METRIC_THRESHOLD',
      `A metric threshold must be specified for alerts of type ${eventType}.`,
      [eventType],
    ),
  metricThresholdPresent: (eventType: string) =>
    new ApiError(
      400,
      'METRIC_THRESHOLD_PRESENT',
      `A metric threshold may only be specified for OUTSIDE_METRIC_THRESHOLD alerts, not ${eventType}.`,
      [eventType],
    ),
  missingThreshold: (eventType: string) =>
    new ApiError(400, 'MISSING_THRESHOLD', `A threshold must be specified for alerts of type ${eventType}.`, [
      eventType,
    ]),
  thresholdPresent: (eventType: string) =>
    new ApiError(400, 'THRESHOLD_PRESENT', `A threshold may not be specified for alerts of type ${eventType}.`, [
      eventType,
    ]),
  totalModeDeprecated: () => new ApiError(400, 'TOTAL_MODE_DEPRECATED', 'Mode TOTAL is no longer supported.'),
  unsupportedNotification: (type: string) =>
    new ApiError(400, 'UNSUPPORTED_NOTIFICATION_TYPE', `Notification type ${type} is unsupported.`, [type]),
  missingRoles: () =>
    new ApiError(
      400,
      'MISSING_ROLES_FOR_GROUP_NOTIFICATION',
      'Group notifications cannot specify an empty list of roles.',
    ),
  duplicateName: (kind: string, name: string) =>
    new ApiError(409, 'DUPLICATE_NAME', `A ${kind} named ${name} already exists.`, [kind, name]),
  // The code and detail of the Atlas Administration API error codes page (the same application as Ops Manager).
  maxAlertConfigsExceeded: (max: number, groupId: string) =>
    new ApiError(
      400,
      'MAX_ALERT_CONFIGS_PER_GROUP_EXCEEDED',
      `Maximum number of alert configurations per group (${max}) in ${groupId} exceeded while trying to add alert configurations.`,
      [max, groupId],
    ),
  // Connection: close: the rest of the body is not read (RFC 9110 section 15.5.14), so the connection cannot serve
  // another request.
  payloadTooLarge: (limit: number) =>
    new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds the limit of ${limit} bytes.`, [limit], {
      Connection: 'close',
    }),
  incompleteBody: () =>
    new ApiError(400, 'INVALID_JSON', 'Received JSON was cut short: the request body did not arrive whole.'),
  // Our code (the reference names none): RFC 9110 section 15.5.16 says which codings would do, in Accept-Encoding.
  unsupportedContentEncoding: (coding: string) =>
    new ApiError(
      415,
      'UNSUPPORTED_CONTENT_ENCODING',
      `Content-Encoding ${coding} is not supported; send the request body uncompressed (identity).`,
      [coding],
      { 'Accept-Encoding': ACCEPTED_CONTENT_CODING },
    ),
  // Our code (the reference names none); RFC 9110 section 15.5.16. The form encoding is nearly always `curl -d`
  // without a header, so the message says the one flag that fixes it.
  unsupportedMediaType: (type: string) =>
    new ApiError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type ${type} is not supported; send the request body as application/json${
        type === 'application/x-www-form-urlencoded'
          ? " (curl -d sends this type unless told otherwise: add -H 'Content-Type: application/json')"
          : ''
      }.`,
      [type],
    ),
  // Our codes (the reference names none), with RFC 9112's statuses; both close the connection (the body's end is
  // unknown, so nothing after it can be read as the next request).
  transferEncodingNotChunked: (value: string) =>
    new ApiError(
      400,
      'INVALID_TRANSFER_ENCODING',
      `Transfer-Encoding ${value} does not end with chunked, so the end of the request body cannot be known (RFC 9112 section 6.3).`,
      [value],
      { Connection: 'close' },
    ),
  unsupportedTransferEncoding: (coding: string) =>
    new ApiError(
      501,
      'UNSUPPORTED_TRANSFER_ENCODING',
      `Transfer-Encoding ${coding} is not supported; send the request body with chunked alone.`,
      [coding],
      { Connection: 'close' },
    ),
  unexpected: () => new ApiError(500, 'UNEXPECTED_ERROR', 'Unexpected error.'),
};
