/** A recording CliIo for in-process CLI tests: captured stdout/stderr, a chosen environment, scripted prompt answers. */
import type { CliIo } from '../../lambdas/cli/io.ts';

/** A CliIo plus what it captured. */
export interface RecordingIo extends CliIo {
  out(): string;
  err(): string;
  /** Questions the prompt was asked. */
  questions: string[];
}

/** Builds a recording io. `answers` are returned by successive prompts (null once exhausted: input closed). */
export function recordingIo(
  options: { env?: Record<string, string | undefined>; interactive?: boolean; tty?: boolean; answers?: string[] } = {},
): RecordingIo {
  let stdout = '';
  let stderr = '';
  const answers = [...(options.answers ?? [])];
  const questions: string[] = [];
  return {
    stdout: {
      write: (text: string) => {
        stdout += text;
        return true;
      },
      isTTY: options.tty ?? false,
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
      isTTY: options.tty ?? false,
    },
    interactive: options.interactive ?? false,
    env: options.env ?? {},
    prompt: async (question: string) => {
      questions.push(question);
      return answers.shift() ?? null;
    },
    out: () => stdout,
    err: () => stderr,
    questions,
  };
}

/** A startEmulator that must not be called (commands that never start one). */
export async function noEmulator(): Promise<{ url: string; close(): Promise<void> }> {
  throw new Error('this test does not start an emulator');
}
