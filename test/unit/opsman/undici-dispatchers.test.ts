// Scenario: the client imports undici's Agent and EnvHttpProxyAgent from their own files (a smaller Lambda bundle);
// they must stay the very classes the package root exports, or an undici upgrade would break the client unnoticed.
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, EnvHttpProxyAgent } from '../../../lambdas/opsman/undici-dispatchers.ts';

describe('undici dispatchers imported file by file', () => {
  it('are the classes the package exports', () => {
    expect(Agent).toBe(undici.Agent);
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
  });

  it('make working dispatchers', async () => {
    const agent = new Agent({ connections: 1 });
    expect(agent).toBeInstanceOf(undici.Dispatcher);
    await agent.close();
  });
});
