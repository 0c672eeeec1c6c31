/** `opsman-gitops schema`: print the desired-state JSON Schema. */
import type { CommandContext } from '../context.ts';
import { EXIT } from '../errors.ts';
import { desiredModule } from '../wiring.ts';

/** Prints DESIRED_STATE_SCHEMA as indented JSON. */
export async function runSchema(ctx: CommandContext): Promise<number> {
  const { DESIRED_STATE_SCHEMA } = await desiredModule();
  ctx.io.stdout.write(`${JSON.stringify(DESIRED_STATE_SCHEMA, null, 2)}\n`);
  return EXIT.ok;
}
