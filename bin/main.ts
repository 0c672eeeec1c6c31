/**
 * Composition root of the `opsman-gitops` command. The only module that imports both emulator/ and lambdas/, so the
 * emulator and the client can never share Ops Manager code (or a bug); both import only shared/'s small helpers.
 */
export async function main(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'emulator') {
      const { runEmulatorCommand } = await import('../emulator/cli.ts');
      return await runEmulatorCommand(argv.slice(1));
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
