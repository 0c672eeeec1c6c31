/**
 * The fixed facts of the example world the demo runs against (the emulator's example seed and desired-state/ use the
 * same ids and keys). These keys are the emulator's published fake keys, not secrets.
 */
import { fileURLToPath } from 'node:url';

/** payments-prod: the project the demo's "someone edited it by hand" happens in. */
export const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

/** The tool's own key (GLOBAL_OWNER in the seed). */
export const TOOL_KEY = { publicKey: 'gitopsbt', privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c' } as const;

/** A human's key (GROUP_OWNER on payments-prod): the drift the demo makes is attributed to it. */
export const HUMAN_KEY = { publicKey: 'jdoekey1', privateKey: '0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f' } as const;

/** A read-only key (GLOBAL_READ_ONLY in the seed): the one the demo's copy-paste curl line uses, so neither the
 * tool's key nor the human's is ever printed. */
export const READ_ONLY_KEY = { publicKey: 'roviewer', privateKey: '3b4c5d6e-7f80-4192-a3b4-c5d6e7f80912' } as const;

/** The repository root (where desired-state/ and emulator/ live). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
