/**
 * Composition root of the `opsman-gitops` command. The only module that imports both emulator/ and lambdas/, so the
 * emulator and the client can never share Ops Manager code (or a bug); both import only shared/'s small helpers.
 */

/** The words that ask for help, before a command name. */
const HELP_WORDS: ReadonlySet<string> = new Set(['help', '--help', '-h']);

/** Runs the command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    // `help emulator` (or `--help emulator`) is `emulator --help`, as the README says: the emulator's own options,
    // which only it knows.
    const helpOfEmulator = argv.length === 2 && HELP_WORDS.has(argv[0] as string) && argv[1] === 'emulator';
    const emulatorArgs = argv[0] === 'emulator' ? argv.slice(1) : helpOfEmulator ? ['--help'] : undefined;
    if (emulatorArgs !== undefined) {
      const { runEmulatorCommand } = await import('../emulator/cli.ts');
      return await runEmulatorCommand(emulatorArgs);
    }
    const [{ runCli }, { startEmulator }] = await Promise.all([
      import('../lambdas/cli/main.ts'),
      import('../emulator/index.ts'),
    ]);
    return await runCli(argv, { startEmulator });
  } catch (error) {
    // runCli maps its own errors; this catches only a failure to load the program itself. No stack trace.
    process.stderr.write(`opsman-gitops: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}
