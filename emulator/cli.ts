/** Placeholder until the emulator lands: `opsman-gitops emulator`. */
export async function runEmulatorCommand(_argv: string[]): Promise<number> {
  process.stderr.write('opsman-gitops emulator: not built yet\n');
  return 1;
}
