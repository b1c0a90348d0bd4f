// The e2e stacks kept apart on one Redis server (tests/e2e/stack_env.mjs): pub/sub ignores
// database numbers, so two stacks with one projection prefix announced each other's
// projections (round 2: an offer announced before this stack's read side had it).
import { describe, expect, it } from 'vitest';
import { stackEnv } from '../e2e/stack_env.mjs';

describe('an e2e stack\'s environment', () => {
  const base = { SEKSENBIR_REDIS_URL: 'redis://127.0.0.1:6379/0', SEKSENBIR_PROJECTION_PREFIX: 'sb', PATH: '/bin' };

  it('gives two stacks on one Redis their own projection prefix and broker namespace', () => {
    const a = stackEnv(base, '18460', {}, 'ops-a');
    const b = stackEnv(base, '18360', {}, 'ops-b');
    expect(a.SEKSENBIR_REDIS_URL).toBe(b.SEKSENBIR_REDIS_URL); // the same server …
    expect(a.SEKSENBIR_PROJECTION_PREFIX).not.toBe(b.SEKSENBIR_PROJECTION_PREFIX); // … apart
    expect(a.SEKSENBIR_PROJECTION_PREFIX).not.toBe('sb'); // nor the default deployment's
    expect(a.SEKSENBIR_BROKER_NAMESPACE).not.toBe(b.SEKSENBIR_BROKER_NAMESPACE);
    expect(a.SEKSENBIR_OPS_TOKENS).toBe('ops-a');
    expect(a.PATH).toBe('/bin');
  });

  it('keeps a test\'s own settings', () => {
    expect(stackEnv(base, '18460', { FAULT_POINT: 'mid_apply:sleep=0.3' }, 'o').FAULT_POINT).toBe('mid_apply:sleep=0.3');
  });
});
