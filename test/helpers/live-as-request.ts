/**
 * A live alert config as the body of a PUT that rewrites it as it is: the members Ops Manager sets itself (`id`,
 * `groupId`, `created`, `updated`, `links`) dropped, every other member kept, newer ones included. Tests that play a
 * person editing a config in Ops Manager start from it.
 */
export function liveAsRequest(live: object): Record<string, unknown> {
  const { id: _id, groupId: _g, created: _c, updated: _u, links: _l, ...body } = live as Record<string, unknown>;
  return body;
}
