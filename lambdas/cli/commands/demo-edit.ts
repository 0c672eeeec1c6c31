/**
 * The demo's "someone edited it by hand": with a human's API key, disable one managed alert config of payments-prod
 * and raise the threshold of another (or remove a notification), as a person in the Ops Manager UI would.
 */

import type { AlertConfig, AlertConfigRequest, NotificationRequest } from '../../opsman/types.ts';
import { SECRET_NOTIFICATION_FIELDS } from '../../opsman/types.ts';
import type { ApiClient } from '../wiring.ts';

/** One owned alert config: key and id, from the state store. */
export interface OwnedConfig {
  key: string;
  id: string;
}

function hasSecretField(config: AlertConfig): boolean {
  return config.notifications.some((n) => SECRET_NOTIFICATION_FIELDS.some((f) => n[f] !== undefined));
}

/** A PUT body from a live config (only safe for configs without secret fields: those come back redacted). */
function bodyOf(config: AlertConfig): AlertConfigRequest {
  const notifications = config.notifications.map((n) => {
    const { notifierId: _notifierId, teamName: _teamName, ...rest } = n;
    return rest as NotificationRequest;
  });
  const body: AlertConfigRequest = {
    enabled: config.enabled,
    eventTypeName: config.eventTypeName,
    matchers: config.matchers,
    notifications,
  };
  if (config.metricThreshold !== undefined) body.metricThreshold = { ...config.metricThreshold };
  if (config.threshold !== undefined) body.threshold = { ...config.threshold };
  return body;
}

/** Makes the edits; resolves to one sentence per edit. */
export async function editAsHuman(human: ApiClient, groupId: string, owned: readonly OwnedConfig[]): Promise<string[]> {
  const live = new Map((await human.listAlertConfigs(groupId)).map((c) => [c.id, c]));
  const candidates = owned.filter((o) => live.has(o.id));
  const done: string[] = [];
  const toDisable = candidates.find((o) => live.get(o.id)?.enabled === true);
  if (toDisable !== undefined) {
    await human.setAlertConfigEnabled(groupId, toDisable.id, false);
    done.push(`disabled alert config "${toDisable.key}" (id ${toDisable.id})`);
  }
  for (const o of candidates) {
    const config = live.get(o.id) as AlertConfig;
    if (o === toDisable || hasSecretField(config)) continue;
    const body = bodyOf(config);
    const metric = body.metricThreshold ?? body.threshold;
    if (metric !== undefined) {
      const before = metric.threshold;
      metric.threshold = before * 2;
      await human.updateAlertConfig(groupId, o.id, body);
      done.push(`changed the threshold of "${o.key}" from ${before} to ${metric.threshold}`);
      return done;
    }
    if (body.notifications.length >= 2) {
      const removed = body.notifications.pop() as NotificationRequest;
      await human.updateAlertConfig(groupId, o.id, body);
      done.push(`removed the ${removed.typeName} notification of "${o.key}"`);
      return done;
    }
  }
  return done;
}
