/**
 * How a notification's role travels in a POST/PUT body. The spec's request table names `role`, one string ("A role is
 * returned as `roles`, an array of strings"); the real product takes `roles`, a list (the reference's
 * MISSING_ROLES_FOR_GROUP_NOTIFICATION), and both refuse a field they do not know with INVALID_ATTRIBUTE. So a
 * notification with exactly one role is sent in the spec's form first, and a server that refuses `role` gets the
 * `roles` form from then on (one extra 400 per client). Several roles can only be sent as `roles`.
 *
 * Only the wire changes: fingerprints, saved plans and rendered plans keep `roles`, and a 400 is a refusal, so
 * re-sending the body after it creates nothing twice.
 */
import { OpsManagerApiError } from './errors.ts';
import type { AlertConfigRequest, NotificationRequest } from './types.ts';

/** Which form single roles are sent in: the spec's `role` string, or the real product's `roles` list. */
export type RoleForm = 'role' | 'roles';

/**
 * The body with every one-role `roles: [x]` written as the spec's `role: x`; the same object when no notification
 * has exactly one role (so a caller can tell whether anything was rewritten).
 */
export function withSpecRole(body: AlertConfigRequest): AlertConfigRequest {
  if (!body.notifications.some(hasOneRole)) return body;
  const notifications = body.notifications.map((n): NotificationRequest => {
    if (!hasOneRole(n)) return n;
    const { roles, ...rest } = n;
    return { ...rest, role: roles[0] };
  });
  return { ...body, notifications };
}

/** True when the server refused the spec's `role` field as unknown (INVALID_ATTRIBUTE naming `role`, not `roles`). */
export function refusesSpecRole(error: unknown): boolean {
  return (
    error instanceof OpsManagerApiError &&
    error.status === 400 &&
    error.errorCode === 'INVALID_ATTRIBUTE' &&
    /(^|[^A-Za-z0-9_])role($|[^A-Za-z0-9_])/.test(error.detail)
  );
}

function hasOneRole(n: NotificationRequest): n is NotificationRequest & { roles: [string] } {
  return n.role === undefined && Array.isArray(n.roles) && n.roles.length === 1;
}
