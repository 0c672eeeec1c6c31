// Scenario: client nonces drawn from the pooled random bytes are 32 lower-case hex characters and never repeat, across many pool refills.
import { describe, expect, it } from 'vitest';
import { generateCnonce } from '../../../lambdas/opsman/digest/index.ts';

describe('generateCnonce', () => {
  it('gives 16 random bytes in hex, each cnonce distinct over 10 pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2560; i++) {
      const cnonce = generateCnonce();
      expect(cnonce).toMatch(/^[0-9a-f]{32}$/);
      seen.add(cnonce);
    }
    expect(seen.size).toBe(2560);
  });
});
