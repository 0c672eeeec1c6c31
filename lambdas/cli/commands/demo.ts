/**
 * `opsman-gitops demo` (what `npm start` runs): the whole product in a few seconds against an in-process emulator on
 * the example seed, with a fresh temporary state directory. Every step runs the real command code.
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { errorCode } from '../../core/concurrency.ts';
import type { CommandContext } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import type { CliIo, TextSink } from '../io.ts';
import type { CliOptions } from '../options.ts';
import { apiClient, localStores } from '../wiring.ts';
import { runApply } from './apply.ts';
import { shellWord } from './apply-command.ts';
import { runArchive } from './archive.ts';
import { editAsHuman } from './demo-edit.ts';
import { HUMAN_KEY, PACKAGE_ROOT, PAYMENTS_PROD, READ_ONLY_KEY, TOOL_KEY } from './demo-world.ts';
import { runPlan } from './plan.ts';
import { runValidate } from './validate.ts';

/** A stdout that also remembers what the current section printed (the demo checks its own output). */
class TeeSink implements TextSink {
  text = '';
  constructor(private readonly inner: TextSink) {}
  get isTTY(): boolean | undefined {
    return this.inner.isTTY;
  }
  write(text: string): unknown {
    this.text += text;
    return this.inner.write(text);
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Runs the demo; resolves to the exit code. */
export async function runDemo(ctx: CommandContext): Promise<number> {
  const out = ctx.io.stdout;
  const { style } = ctx;
  let step = 0;
  const section = (title: string) => out.write(`\n${style.bold(`== ${++step}. ${title} ==`)}\n\n`);
  const note = (text: string) => out.write(`${style.dim(text)}\n`);
  const check = (ok: boolean, text: string): boolean => {
    out.write(ok ? `${style.ok('ok')}: ${text}\n` : `${style.error('UNEXPECTED')}: ${text}\n`);
    return ok;
  };
  // A step stopped by Ctrl-C (its command answered 130) ends the demo there, with the same exit: the steps after it
  // build on it, and whoever pressed Ctrl-C wants the demo to stop, not to go on and report failures.
  const unlessStopped = (code: number): number => {
    if (code !== EXIT.interrupted) return code;
    throw new CliError('INTERRUPTED', `the demo was stopped at step ${step}`, EXIT.interrupted);
  };

  const work = await mkdtemp(join(tmpdir(), 'opsman-gitops-demo-'));
  const desired = join(PACKAGE_ROOT, 'desired-state');
  const stateDir = join(work, 'state');
  const archiveDir = join(stateDir, 'archive');
  const emulator = await ctx.startEmulator({ port: 0, host: '127.0.0.1', dataFile: join(work, 'emulator-data.json') });
  const tee = new TeeSink(out);
  const env = {
    ...ctx.io.env,
    OPSMAN_BASE_URL: emulator.url,
    OPSMAN_PUBLIC_KEY: TOOL_KEY.publicKey,
    OPSMAN_PRIVATE_KEY: TOOL_KEY.privateKey,
  };
  const io: CliIo = { ...ctx.io, stdout: tee, env, interactive: false };
  const options: CliOptions = {
    ...ctx.options,
    desired,
    baseUrl: emulator.url,
    caFile: undefined,
    insecureSkipVerify: false,
    secretsFile: join(desired, 'local-secrets.json'),
    stateDir,
    archiveDir,
    projects: [],
    mode: undefined,
    autoApprove: true,
    json: false,
    markdown: false,
    detailedExitcode: false,
    out: undefined,
    planFile: undefined,
    maxDeletes: undefined,
    allowEmpty: false,
    leaseWaitSeconds: 0,
  };
  const sub: CommandContext = { ...ctx, io, options };
  let healthy = true;
  try {
    out.write(
      `${style.bold('opsman-gitops demo')}: GitOps for MongoDB Ops Manager, end to end, against an emulator.\n\n`,
    );
    out.write(`Ops Manager emulator (example seed): ${emulator.url}\n`);
    out.write(`Working directory (state, archive, emulator data): ${work}\n`);
    out.write(
      `Read it while the demo runs (a read-only key of the example seed): curl --digest -u ${READ_ONLY_KEY.publicKey}:${READ_ONLY_KEY.privateKey} '${emulator.url}/groups/${PAYMENTS_PROD}/alertConfigs'\n`,
    );

    section(`Validate the desired state (${relative(process.cwd(), desired) || desired})`);
    if (!check(unlessStopped(await runValidate(sub)) === EXIT.ok, 'the example desired state is valid'))
      return EXIT.error;
    section('Plan: what apply would change (unmanaged default alerts are left alone)');
    unlessStopped(await runPlan(sub, 'plan'));

    section('Apply (auto-approved): the plan above, executed');
    healthy = check(unlessStopped(await runApply(sub, false)) === EXIT.ok, 'apply succeeded') && healthy;

    section('Plan again: nothing left to do');
    tee.text = '';
    const second = unlessStopped(await runPlan({ ...sub, options: { ...options, detailedExitcode: true } }, 'plan'));
    healthy =
      check(second === EXIT.ok && tee.text.includes('0 to create, 0 to update, 0 to delete'), 'zero changes') &&
      healthy;

    section(`Someone edits payments-prod by hand (API key ${HUMAN_KEY.publicKey})`);
    const { state } = await localStores(stateDir, archiveDir, env);
    const owned = Object.entries((await state.read()).state?.projects[PAYMENTS_PROD]?.alertConfigs ?? {})
      .filter((e): e is [string, { id: string }] => typeof e[1].id === 'string')
      .map(([key, record]) => ({ key, id: record.id }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    const human = await apiClient({ baseUrl: emulator.url, ...HUMAN_KEY });
    try {
      const edits = await editAsHuman(human, PAYMENTS_PROD, owned);
      for (const edit of edits) out.write(`${HUMAN_KEY.publicKey} ${edit}\n`);
      healthy = check(edits.length > 0, 'made the edits through the Public API') && healthy;
    } finally {
      await human.close();
    }

    section('Observe: the drift, and who made it');
    tee.text = '';
    unlessStopped(await runPlan({ ...sub, options: { ...options, projects: [PAYMENTS_PROD] } }, 'observe'));
    healthy =
      check(tee.text.includes(`changed by ${HUMAN_KEY.publicKey}`), `drift attributed to ${HUMAN_KEY.publicKey}`) &&
      healthy;

    section('Apply again: the drift is corrected');
    healthy = check(unlessStopped(await runApply(sub)) === EXIT.ok, 'corrective apply succeeded') && healthy;

    section('Archive: version manifest and usage');
    healthy = check(unlessStopped(await runArchive(sub)) === EXIT.ok, 'archive written') && healthy;

    section('Where everything is');
    out.write(`State:   ${join(stateDir, 'state.json')}\n`);
    out.write(`Archive: ${archiveDir}\n`);
    for (const file of await listFiles(join(archiveDir, 'reports'))) out.write(`Report:  ${file}\n`);
    // Quoted: a TMPDIR with a space (or a quote) would otherwise turn this into `rm -rf` of other paths.
    note(`\nRemove it all with: rm -rf ${shellWord(work)}`);
    note('Keep an emulator running to try the commands yourself: npx opsman-gitops emulator --port 8080');
    out.write(
      `\n${healthy ? style.ok('Demo complete.') : style.error('Demo finished with unexpected results (see above).')}\n`,
    );
    return healthy ? EXIT.ok : EXIT.error;
  } catch (error) {
    if (error instanceof CliError) throw error;
    // A step stopped while planning throws its own INTERRUPTED error (exit 130): not called a failure, and said as any
    // stop of the demo is, with the step it ended.
    if (errorCode(error) === 'INTERRUPTED')
      throw new CliError(
        'INTERRUPTED',
        `the demo was stopped at step ${step}: ${(error as Error).message}`,
        EXIT.interrupted,
        {
          cause: error,
        },
      );
    throw new CliError('CLI_DEMO_FAILED', `the demo failed at step ${step}: ${(error as Error).message}`, EXIT.error, {
      cause: error,
    });
  } finally {
    await emulator.close();
  }
}
