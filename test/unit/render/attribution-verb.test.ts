// An attribution line says what the event did: a delete is "deleted by", an addition "created by", the rest "changed
// by" (an ALERT_CONFIG_DELETED_AUDIT read "changed by ..." on the re-create of a config deleted by hand).
import { describe, expect, it } from 'vitest';
import type { DriftAttribution } from '../../../lambdas/core/model.ts';
import { formatAttribution } from '../../../lambdas/core/render/values.ts';

const by = (eventTypeName: string, extra: Partial<DriftAttribution> = {}): DriftAttribution => ({
  eventTypeName,
  created: '2026-11-21T10:00:00Z',
  actor: 'jdoekey1',
  actorType: 'apiKey',
  eventId: 'e1',
  ...extra,
});

describe('formatAttribution: the verb follows the event', () => {
  it.each([
    [
      'ALERT_CONFIG_DELETED_AUDIT',
      'deleted by jdoekey1 (API key) at 2026-11-21T10:00:00Z (ALERT_CONFIG_DELETED_AUDIT)',
    ],
    ['ALERT_CONFIG_ADDED_AUDIT', 'created by jdoekey1 (API key) at 2026-11-21T10:00:00Z (ALERT_CONFIG_ADDED_AUDIT)'],
    [
      'HOST_SERVER_TYPE_CREATED_AUDIT',
      'created by jdoekey1 (API key) at 2026-11-21T10:00:00Z (HOST_SERVER_TYPE_CREATED_AUDIT)',
    ],
    [
      'ALERT_CONFIG_CHANGED_AUDIT',
      'changed by jdoekey1 (API key) at 2026-11-21T10:00:00Z (ALERT_CONFIG_CHANGED_AUDIT)',
    ],
    [
      'ALERT_CONFIG_DISABLED_AUDIT',
      'changed by jdoekey1 (API key) at 2026-11-21T10:00:00Z (ALERT_CONFIG_DISABLED_AUDIT)',
    ],
  ])('%s', (eventTypeName, line) => {
    expect(formatAttribution(by(eventTypeName))).toBe(line);
  });

  it("a delete made with the tool's own key outside its runs reads 'deleted with'", () => {
    const line = formatAttribution(by('ALERT_CONFIG_DELETED_AUDIT', { viaOwnKey: true, actor: 'gitopsbt' }));
    expect(line.startsWith("deleted with opsman-gitops's own API key gitopsbt at 2026-11-21T10:00:00Z")).toBe(true);
  });
});
