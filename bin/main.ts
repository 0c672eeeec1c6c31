/**
 * Composition root of the `opsman-gitops` command. The only module that imports both emulator/ and lambdas/, so the
 * emulator and the client can never share code (or a bug).
 */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'emulator') {
    const { runEmulatorCommand } = await import('../emulator/cli.ts');
    return runEmulatorCommand(argv.slice(1));
  }
  const [{ runCli }, { startEmulator }] = await Promise.all([
    import('../lambdas/cli/main.ts'),
    import('../emulator/index.ts'),
  ]);
  return runCli(argv, { startEmulator });
}
