/**
 * Events by owner, so that listing one project's events does not scan every event of the installation: at 1,000
 * projects the store holds tens of thousands of audit events, and a full scan per request made the emulator spend
 * about 4 ms on each project event read (a real Ops Manager answers from an index).
 *
 * The event list is append-only (EmulatorCore.addEvent) and replaced whole on reset or load, so the index follows the
 * array it was built from and catches up with what was appended since; a different array rebuilds it.
 */
import type { EventRec } from './state.ts';

/** Positions of events in the state's array, per project and per organization (organization-level events only). */
export class EventIndex {
  #events: readonly EventRec[] | undefined;
  #indexed = 0;
  #byGroup = new Map<string, number[]>();
  #byOrg = new Map<string, number[]>();

  /** Positions (ascending) of the events of project `groupId` in `events`. */
  ofGroup(events: readonly EventRec[], groupId: string): readonly number[] {
    this.#follow(events);
    return this.#byGroup.get(groupId) ?? [];
  }

  /** Positions (ascending) of the organization-level events (no project) of `orgId` in `events`. */
  ofOrg(events: readonly EventRec[], orgId: string): readonly number[] {
    this.#follow(events);
    return this.#byOrg.get(orgId) ?? [];
  }

  #follow(events: readonly EventRec[]): void {
    if (events !== this.#events || events.length < this.#indexed) {
      this.#events = events;
      this.#indexed = 0;
      this.#byGroup = new Map();
      this.#byOrg = new Map();
    }
    for (let i = this.#indexed; i < events.length; i++) {
      const e = events[i] as EventRec;
      if (e.groupId !== undefined) push(this.#byGroup, e.groupId, i);
      else if (e.orgId !== undefined) push(this.#byOrg, e.orgId, i);
    }
    this.#indexed = events.length;
  }
}

function push(map: Map<string, number[]>, key: string, position: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [position]);
  else list.push(position);
}
