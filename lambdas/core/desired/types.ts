/**
 * Public types of desired-state loading: the issues a load reports, its result, and its options.
 */
import type { DesiredState } from '../model.ts';

/** One problem found in the desired state. Positions are 1-based; `path` is the path inside the YAML document. */
export interface ValidationIssue {
  /** File path relative to the desired-state root (`/` separators), or the source description for root-level issues. */
  file: string;
  line: number;
  column: number;
  /** Path inside the document, e.g. `spec.alertConfigs[2].notifications[0].intervalMin`; empty for file-level issues. */
  path: string;
  /** The complete human message (it already says what was expected and found). */
  message: string;
  /** What the format wants there. */
  expected?: string;
  /** What the file holds there (never a secret value: secret literals are described, not echoed). */
  found?: string;
  /** A suggestion, such as the closest valid name. */
  hint?: string;
}

/** The result of `loadDesiredState`: the state and a one-line summary, or every issue found. */
export type LoadResult = { ok: true; state: DesiredState; summary: string } | { ok: false; issues: ValidationIssue[] };

/** Limits of a load; hostile input past them is refused with an issue, never a crash. */
export interface LoadOptions {
  /** Largest YAML file accepted, in bytes. */
  maxFileBytes: number;
  /** Largest pinned version manifest accepted, in bytes (real manifests run to several MiB). */
  maxManifestBytes: number;
  /** Most aliases a document may resolve (bounds "billion laughs" alias bombs). */
  maxAliasCount: number;
  /** Most YAML files under one root. */
  maxFiles: number;
  /** Most issues reported; the rest are counted in a final issue (fix the first ones, then validate again). */
  maxIssues: number;
}

/** Defaults of LoadOptions. */
export const DEFAULT_LOAD_OPTIONS: LoadOptions = {
  maxFileBytes: 1024 * 1024,
  maxManifestBytes: 32 * 1024 * 1024,
  maxAliasCount: 100,
  maxFiles: 10_000,
  maxIssues: 1000,
};
