/**
 * The only two undici classes the client uses, imported from their own files instead of the package root. Why: the
 * root module loads all of undici (fetch, WebSocket, caches, mocks, EventSource), which made up 536 KB of each 1 MB
 * Lambda bundle and most of its import time; these two files and what they need are 303 KB. undici has no `exports`
 * map, so the paths are public to Node and esbuild alike; test/unit/opsman/undici-dispatchers.test.ts checks that
 * they still are the very classes the package exports, so an undici upgrade that moves them fails a test, not a run.
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';

export { Agent, EnvHttpProxyAgent };
