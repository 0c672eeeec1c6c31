/**
 * What the process writes to stdout and stderr while a function runs (the handlers log through Powertools, which writes
 * to the process streams): captured, not shown, and the streams given back whatever the function does.
 */

/** Runs `fn` with stdout and stderr captured; resolves to the text written, and what `fn` returned or threw. */
export async function captureProcessOutput<T>(
  fn: () => T | Promise<T>,
): Promise<{ text: string; result?: T; thrown?: unknown }> {
  const chunks: string[] = [];
  const original = { out: process.stdout.write, err: process.stderr.write };
  const grab = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = grab;
  process.stderr.write = grab;
  try {
    const result = await fn();
    return { text: chunks.join(''), result };
  } catch (thrown) {
    return { text: chunks.join(''), thrown };
  } finally {
    process.stdout.write = original.out;
    process.stderr.write = original.err;
  }
}

/** A JSON log line of the handlers (Powertools): its level and message, and whatever else it carries. */
export type LogLine = Record<string, unknown> & { level: string; message: string };

/**
 * The JSON documents of captured output, in order (`emf: true`: the EMF metric documents, `_aws`, only; else the log
 * lines without them). Lines that are not JSON objects (a plain print) are left out.
 */
export function jsonLogLines(text: string, options: { emf?: boolean } = {}): LogLine[] {
  return text
    .split('\n')
    .filter((raw) => raw.startsWith('{'))
    .map((raw) => JSON.parse(raw) as LogLine)
    .filter((doc) => '_aws' in doc === (options.emf === true));
}
