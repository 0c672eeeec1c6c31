// Scenario: a project read that fails returns only when its sibling reads have settled: a read left in flight would
// reach Ops Manager after the run had reported its API calls (a wrong key: the report said 4 calls, the emulator saw 6).
import { describe, expect, it } from 'vitest';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { readProjectLive } from '../../../lambdas/core/read-live.ts';

describe('readProjectLive', () => {
  it('rejects with the failure only once every read it started has settled', async () => {
    const settled: string[] = [];
    const later = <T>(name: string, value: T): Promise<T> =>
      new Promise((resolve) =>
        setTimeout(() => {
          settled.push(name);
          resolve(value);
        }, 20),
      );
    const api = {
      listAlertConfigs: () => Promise.reject(new Error('401 refused')),
      getProjectDefaultServerType: () => later('defaultServerType', { serverType: { name: 'PRODUCTION_SERVER' } }),
      getAuditLogRotateConfig: () => later('auditLogRotation', {}),
    } as unknown as OpsManagerApi;
    await expect(readProjectLive(api, 'p1', ['defaultServerType', 'auditLogRotation'])).rejects.toThrow('401 refused');
    expect(settled.sort()).toEqual(['auditLogRotation', 'defaultServerType']);
  });
});
