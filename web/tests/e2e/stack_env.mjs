// The environment of one e2e stack (harness.mjs `startStack`). Two stacks on one box may share a
// Redis server (the default local one, or SEKSENBIR_REDIS_URL) and PostgreSQL's `seksenbir`:
// Redis pub/sub ignores database numbers, so with one projection prefix a stack's read side
// announced the other's projections to its pages before it had them itself (round 2: pb's
// `offer_received` came from the other stack, no "Kabul et"). Each stack's read models,
// wake-ups and broker keys are its own, named after its port (one stack a port at a time).

/** `base`: the caller's environment; `extra`: a test's (FAULT_POINT …), which may override. */
export function stackEnv(base, port, extra, ops) {
  return {
    ...base,
    SEKSENBIR_PROJECTION_PREFIX: `e2e${port}`,
    SEKSENBIR_BROKER_NAMESPACE: `seksenbir-e2e${port}`,
    ...extra,
    SEKSENBIR_OPS_TOKENS: ops,
  };
}
