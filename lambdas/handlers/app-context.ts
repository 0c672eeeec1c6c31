/**
 * Module-scope wiring shared by the handlers: logger, metrics, and the runtime built from the environment. A bad
 * configuration does not crash the container: it is kept and reported by every invocation.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { createOpsManagerClient } from '../opsman/client.ts';
import { readConfig } from './config.ts';
import { ConfigError } from './errors.ts';
import { createLogger } from './logging.ts';
import { createMetrics } from './metrics.ts';
import { retryLog } from './retry-log.ts';
import { type ApiFactory, Runtime } from './runtime.ts';
import { stallLog } from './stall-log.ts';

/**
 * The production Ops Manager client factory; its messages name the function's environment variables. No variable sets
 * the request deadline, so its messages give the value only (never the client's internal `retry.deadlineMs`).
 */
export const createApi: ApiFactory = (options) =>
  createOpsManagerClient({
    ...options,
    settingNames: {
      baseUrl: 'OPSMAN_BASE_URL',
      caFile: 'OPSMAN_CA_FILE',
      requestDeadline: '',
      apiKey: 'the publicKey and privateKey of the secret OPSMAN_CREDENTIALS_SECRET_ID names',
    },
  });

/** What a handler module holds at module scope. */
export interface AppContext {
  logger: Logger;
  metrics: Metrics;
  /** The runtime, or why it could not be built. */
  runtime: Runtime | ConfigError;
}

/** Builds logger, metrics and runtime from `process.env`. */
export function createAppContext(createApiFn: ApiFactory = createApi): AppContext {
  const logger = createLogger();
  const metrics = createMetrics();
  let runtime: Runtime | ConfigError;
  try {
    runtime = new Runtime(readConfig(), createApiFn, { onStall: stallLog(logger), onRetryWait: retryLog(logger) });
  } catch (error) {
    runtime = error instanceof ConfigError ? error : new ConfigError([`cannot build the runtime: ${String(error)}`]);
    logger.error('configuration invalid', { error: { code: runtime.code, message: runtime.message } });
  }
  return { logger, metrics, runtime };
}
