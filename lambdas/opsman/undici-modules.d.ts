/**
 * Types of the two undici dispatcher files that undici-dispatchers.ts imports one by one: each file's CommonJS export
 * is the class the package exports under the same name, so it takes that class's type. (Named apart from
 * undici-dispatchers.ts: a .d.ts of the same base name would be taken for that file's own declarations and ignored.)
 */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}
