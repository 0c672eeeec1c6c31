/** Placeholder until the CLI lands: the composition root in bin/main.ts calls this. */
export interface CliDependencies {
  /** Starts the Ops Manager emulator in-process (injected so lambdas/ never imports emulator/). */
  startEmulator: (options: Record<string, unknown>) => Promise<{ url: string; close(): Promise<void> }>;
}

/** Runs the `opsman-gitops` command; resolves to the exit code. */
export async function runCli(argv: string[], _deps: CliDependencies): Promise<number> {
  process.stderr.write(`opsman-gitops: '${argv[0] ?? ''}' is not available yet\n`);
  return 1;
}
