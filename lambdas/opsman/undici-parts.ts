/**
 * The parts of undici the client uses (Agent, EnvHttpProxyAgent, Pool), loaded from their own modules rather than from
 * undici's root module. Why: the root also loads fetch, WebSocket, EventSource, the cache stores, the mocks and the
 * interceptors, which the client never uses: about 215 KB of a Lambda bundle that must stay under 1.1 MB, parsed on
 * every cold start (infra/bundle-metrics.ts lists the inputs).
 *
 * The root module does one more thing that the dispatchers rely on: it installs the request API (`request`, `stream`,
 * `pipeline`, `upgrade`, `connect`) on `Dispatcher.prototype`. The client calls `request`, and undici's ProxyAgent
 * opens its CONNECT tunnels with `connect`, so this module installs the same API the same way before anything can be
 * dispatched (a process that also loads the root module gets the very same functions: undici's own modules are
 * shared). `test/unit/opsman/transport.test.ts` fails without it (requests and proxy tunnels), and the architecture
 * test keeps every other module to `import type` from undici.
 */
import type * as Undici from 'undici';
import requestApi from 'undici/lib/api/index.js';
import AgentModule from 'undici/lib/dispatcher/agent.js';
import DispatcherModule from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgentModule from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import PoolModule from 'undici/lib/dispatcher/pool.js';

Object.assign(DispatcherModule.prototype, requestApi);

/** undici's Agent: a keep-alive pool per origin. */
export const Agent: typeof Undici.Agent = AgentModule;
/** undici's EnvHttpProxyAgent: Agent or ProxyAgent per HTTP_PROXY / HTTPS_PROXY / NO_PROXY. */
export const EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent = EnvHttpProxyAgentModule;
/** undici's Pool: connections to one origin. */
export const Pool: typeof Undici.Pool = PoolModule;
