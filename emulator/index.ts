/** Placeholder until the emulator lands. */
export async function startEmulator(
  _options: Record<string, unknown>,
): Promise<{ url: string; close(): Promise<void> }> {
  throw new Error('the emulator is not built yet');
}
