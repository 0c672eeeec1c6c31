/**
 * Turns path templates, parameters, queries and bodies into requests, and 2xx bodies into values. Every id is
 * checked and percent-encoded; every body is serialised once, so replays send the same bytes.
 */
import type { HttpMethod, HttpRequest, HttpResponse } from './auth-exchange.ts';
import { OpsManagerResponseError, OpsManagerValidationError } from './errors.ts';
import { nestsDeeperThan, TOO_DEEP } from './json-depth.ts';
import { notJsonReason } from './not-json.ts';
import type { ResolvedClientOptions } from './options.ts';
import { basePathOf } from './options-resolve.ts';
import { listAll, paginate } from './pagination.ts';
import type { RequestExecutor } from './request-executor.ts';
import { collectSecretValues } from './sanitize.ts';

/** Query values: arrays repeat the parameter (`eventType=A&eventType=B`); undefined is left out. */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** Options of one call. */
export interface CallOptions {
  query?: Record<string, QueryValue>;
  /** A JSON value, serialised here once. */
  body?: unknown;
  /** A body sent byte for byte (the version manifest). */
  rawBody?: string;
  /** Default true. */
  auth?: boolean;
  /** For a list: it grows at its head while it is read (events), see pagination.ts PageOptions. */
  growing?: boolean;
}

/** How the requests of a caller are stopped (HttpRequest.signal, HttpRequest.stopWaiting, HttpRequest.endBy). */
export type RequestStop = Pick<HttpRequest, 'signal' | 'stopWaiting' | 'endBy'>;

/** Builds and runs requests relative to the client's base URL. */
export class ApiCaller {
  readonly #options: ResolvedClientOptions;
  readonly #executor: RequestExecutor;
  readonly #stop: RequestStop;

  /**
   * `stop.signal` stops every request this caller makes wherever it is, `stop.stopWaiting` only where it waits,
   * `stop.endBy` ends it by a time (a client's views: withSignal, withStopWaiting, withEndBy).
   */
  constructor(options: ResolvedClientOptions, executor: RequestExecutor, stop: RequestStop = {}) {
    this.#options = options;
    this.#executor = executor;
    this.#stop = stop;
  }

  /** Builds the request of a call (exported for pagination and tests). */
  request(method: HttpMethod, template: string, params: Record<string, string>, call: CallOptions = {}): HttpRequest {
    const context = { method, pathTemplate: template };
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (typeof value !== 'string' || value.trim() === '' || value.length > 512 || hasControlCharacter(value)) {
        throw new OpsManagerValidationError(
          `${method} ${template}: ${name} must be a non-empty string without control characters, got ${JSON.stringify(value)}`,
          context,
        );
      }
      return encodeURIComponent(value);
    });
    const url = new URL(this.#options.baseUrl.href);
    url.pathname = `${basePathOf(url)}${path}`;
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, item);
      else url.searchParams.set(name, String(value));
    }
    let body: string | undefined = call.rawBody;
    let secrets: string[] = [];
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      secrets = collectSecretValues(call.body);
    }
    const request: HttpRequest = { method, pathTemplate: template, url, auth: call.auth ?? true, secrets };
    if (body !== undefined) request.body = body;
    if (this.#stop.signal !== undefined) request.signal = this.#stop.signal;
    if (this.#stop.stopWaiting !== undefined) request.stopWaiting = this.#stop.stopWaiting;
    if (this.#stop.endBy !== undefined) request.endBy = this.#stop.endBy;
    return request;
  }

  /** Runs a call and returns the raw 2xx response. */
  raw(method: HttpMethod, template: string, params: Record<string, string>, call?: CallOptions): Promise<HttpResponse> {
    return this.#executor.execute(this.request(method, template, params, call));
  }

  /** Runs a call and parses its body; null for an empty body (any 2xx is success). */
  async json<T>(
    method: HttpMethod,
    template: string,
    params: Record<string, string>,
    call?: CallOptions,
  ): Promise<T | null> {
    const response = await this.raw(method, template, params, call);
    return parseJson<T>(response, { method, pathTemplate: template });
  }

  /**
   * Like {@link json}, for calls that must return an entity: the body must be a JSON object. An empty body, `null`, a
   * list or a bare value is an OpsManagerResponseError with the status actually answered (a 204 included).
   */
  async entity<T>(
    method: HttpMethod,
    template: string,
    params: Record<string, string>,
    call?: CallOptions,
  ): Promise<T> {
    const response = await this.raw(method, template, params, call);
    const context = { method, pathTemplate: template };
    const value = parseJson<unknown>(response, context);
    const kind = jsonKind(value, response.text);
    if (kind !== 'an object') {
      throw new OpsManagerResponseError(
        response.status,
        `${method} ${template}: the ${response.status} response is ${kind}, not the JSON object of an entity`,
        context,
      );
    }
    return value as T;
  }

  /** Async iterator over every item of a list endpoint (itemsPerPage = pageSize, from pageNum 1). */
  iterate<T>(template: string, params: Record<string, string>, call: CallOptions = {}): AsyncGenerator<T> {
    return paginate<T>(this.#executor, this.#listRequest(template, params, call), this.#options.baseUrl, {
      growing: call.growing === true,
    });
  }

  /** Every item of a list endpoint, all pages. */
  listAll<T>(template: string, params: Record<string, string>, call: CallOptions = {}): Promise<T[]> {
    return listAll<T>(this.#executor, this.#listRequest(template, params, call), this.#options.baseUrl, {
      growing: call.growing === true,
    });
  }

  #listRequest(template: string, params: Record<string, string>, call: CallOptions): HttpRequest {
    const query = { ...call.query, pageNum: 1, itemsPerPage: this.#options.pageSize };
    return this.request('GET', template, params, { ...call, query });
  }
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20 || value.charCodeAt(i) === 0x7f) return true;
  return false;
}

/** What a parsed body is, in words: `an object` for the only shape an entity may have. */
function jsonKind(value: unknown, text: string): string {
  if (value === null) return text.trim() === '' ? 'empty' : 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a bare ${typeof value}`;
}

/** Parses a 2xx body; null when empty. */
export function parseJson<T>(response: HttpResponse, context: { method: string; pathTemplate: string }): T | null {
  if (response.text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(response.text);
  } catch (error) {
    throw new OpsManagerResponseError(
      response.status,
      `${context.method} ${context.pathTemplate}: the response is not JSON (${notJsonReason(error, response)})`,
      context,
    );
  }
  if (nestsDeeperThan(value)) {
    throw new OpsManagerResponseError(
      response.status,
      `${context.method} ${context.pathTemplate}: the response ${TOO_DEEP}`,
      context,
    );
  }
  return value as T;
}
