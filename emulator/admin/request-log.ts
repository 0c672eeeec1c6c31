/** The request log (admin API): every request under the API base, with counts per route template. */

/** One logged request. */
export interface RequestLogEntry {
  method: string;
  path: string;
  /** The route template, e.g. `/groups/{groupId}/alertConfigs`; null when no route matched. */
  route: string | null;
  status: number;
  publicKey?: string;
  at: string;
}

/** Entries kept at most (counts keep going past it). */
export const MAX_LOG_ENTRIES = 50_000;

/** Counts and the recent entries. */
export class RequestLog {
  private total = 0;
  private challenges = 0;
  private byRoute = new Map<string, number>();
  private entries: RequestLogEntry[] = [];

  /** Records one exchange; `challenged` when a 401 with a Digest challenge was sent. */
  record(entry: RequestLogEntry, challenged: boolean): void {
    this.total++;
    if (challenged) this.challenges++;
    const key = `${entry.method} ${entry.route ?? '(unmatched)'}`;
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
    this.entries.push(entry);
    if (this.entries.length > MAX_LOG_ENTRIES) this.entries.splice(0, this.entries.length - MAX_LOG_ENTRIES);
  }

  /** Forgets everything. */
  clear(): void {
    this.total = 0;
    this.challenges = 0;
    this.byRoute = new Map();
    this.entries = [];
  }

  /** The admin API's view. */
  toJSON(): { total: number; challenges: number; byRoute: Record<string, number>; entries: RequestLogEntry[] } {
    return {
      total: this.total,
      challenges: this.challenges,
      byRoute: Object.fromEntries(this.byRoute),
      entries: [...this.entries],
    };
  }
}
