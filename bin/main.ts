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
      const [{ runEmulatorCommand }, { guardOutput }] = await Promise.all([
        import('../emulator/cli.ts'),
        import('../lambdas/cli/process-output.ts'),
      ]);
      // The emulator writes to the process streams itself: a reader gone (`help emulator | head -1`) or a full disk
      // (`> /dev/full`) crashed it with a stack trace. Guarded as the other commands are: a reader gone is quiet, lost
      // output is said once and fails the run (also when the write fails after the command returned).
      const output = guardOutput({ stdout: process.stdout, stderr: process.stderr });
      output.onClosed(() => {
        if (output.lost()) process.exitCode = 1;
      });
      const code = await runEmulatorCommand(emulatorArgs);
      return code === 0 && output.lost() ? 1 : code;
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
