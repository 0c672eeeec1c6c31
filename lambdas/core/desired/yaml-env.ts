/**
 * yaml's Node build reads two debug switches from the environment while it parses; this hides them for the length of
 * one synchronous parse (see withoutYamlDebugVariables for why).
 */

/** The debug switches yaml's Node build reads from the environment while parsing. */
export const YAML_DEBUG_VARIABLES = ['LOG_TOKENS', 'LOG_STREAM'] as const;

/**
 * Runs a synchronous yaml call with `process.env` replaced by a view of the same environment in which yaml's debug
 * switches read as unset, and puts the real `process.env` back before returning or throwing.
 *
 * Why: yaml's parser reads `process.env.LOG_TOKENS` once per token (and its composer `LOG_STREAM` once per document),
 * and each read of the real `process.env` goes through a native lookup of about 200 ns: about 0.65 s of a 6 MB
 * desired state, a quarter of its parse. Set, either variable would also make yaml print every token of the desired
 * state (secret references included) to stdout. The view is a frozen object whose prototype is the real environment,
 * with the two names as its own undefined properties: those reads are plain property reads, every other name still
 * reads through to the real environment. Replacing a global is only safe because `fn` is synchronous: no other code
 * of this process can run until the `finally` restores it (worker threads have their own `process.env`).
 */
export function withoutYamlDebugVariables<T>(fn: () => T): T {
  const real = process.env;
  const hidden = Object.fromEntries(YAML_DEBUG_VARIABLES.map((name) => [name, { value: undefined }]));
  process.env = Object.freeze(Object.create(real, hidden)) as NodeJS.ProcessEnv;
  try {
    return fn();
  } finally {
    process.env = real;
  }
}
