/** The query parameters every endpoint accepts: pretty, envelope, and for lists pageNum, itemsPerPage, includeCount. */
import { apiErrors } from '../errors.ts';

/** Maximum of itemsPerPage. */
export const MAX_ITEMS_PER_PAGE = 500;

/** Default of itemsPerPage. */
export const DEFAULT_ITEMS_PER_PAGE = 100;

/** Maximum of pageNum: the real product reads it as a Java int; any page up to it is a page (empty past the end). */
export const MAX_PAGE_NUM = 2_147_483_647;

/** The parsed common parameters. */
export interface CommonQuery {
  pretty: boolean;
  envelope: boolean;
  pageNum: number;
  itemsPerPage: number;
  includeCount: boolean;
}

/** A boolean parameter: `true`/`false` in any case; anything else is 400 INVALID_QUERY_PARAMETER. */
export function boolParam(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  if (value === null) return fallback;
  const v = value.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw apiErrors.invalidQuery(name);
}

function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const value = query.get(name);
  if (value === null) return fallback;
  // Digits only (no sign, exponent or fraction); leading zeros are fine, as for Java's Integer.parseInt. A long
  // string is a huge Number (or Infinity), refused by the bound below.
  if (!/^\d+$/.test(value)) throw apiErrors.invalidQuery(name);
  const n = Number(value);
  if (n < min || n > max) throw apiErrors.invalidQuery(name);
  return n;
}

/** Parses pretty and envelope only (never throws; bad values fall back so an error can still be rendered). */
export function lenientFormat(query: URLSearchParams): { pretty: boolean; envelope: boolean } {
  const flag = (name: string) => query.get(name)?.toLowerCase() === 'true';
  return { pretty: flag('pretty'), envelope: flag('envelope') };
}

/**
 * Checks `pretty` and (unless the endpoint lists `pretty` alone) `envelope` before a handler runs, so that a bad value
 * is a 400 with nothing done; 400 INVALID_QUERY_PARAMETER naming the first bad one.
 */
export function checkFormatQuery(query: URLSearchParams, prettyOnly: boolean): void {
  boolParam(query, 'pretty', false);
  if (!prettyOnly) boolParam(query, 'envelope', false);
}

/** Parses and validates the common parameters (list routes: paging included). */
export function parseCommonQuery(query: URLSearchParams): CommonQuery {
  return {
    pretty: boolParam(query, 'pretty', false),
    envelope: boolParam(query, 'envelope', false),
    pageNum: intParam(query, 'pageNum', 1, 1, MAX_PAGE_NUM),
    itemsPerPage: intParam(query, 'itemsPerPage', DEFAULT_ITEMS_PER_PAGE, 1, MAX_ITEMS_PER_PAGE),
    includeCount: boolParam(query, 'includeCount', true),
  };
}
