// Scenario: HTTPS with a self-signed certificate generated at test time (curl verifies it), and the `emulator` command:
// prints a working curl line, stops cleanly on SIGTERM, refuses bad flags (exit 2, with a did-you-mean), bad seeds and
// a busy port (exit 1, naming the address).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { K, W } from '../../helpers/emulator-client.ts';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../../bin/opsman-gitops.mjs');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'emulator-tls-'));
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('HTTPS', () => {
  it('serves the API over TLS with https links', async () => {
    const emu = await startEmulator({
      tls: { cert: await readFile(join(dir, 'cert.pem'), 'utf8'), key: await readFile(join(dir, 'key.pem'), 'utf8') },
    });
    try {
      expect(emu.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0$/);
      const { stdout } = await run('curl', [
        '-sS',
        '--cacert',
        join(dir, 'cert.pem'),
        '--digest',
        '-u',
        `${K.owner.publicKey}:${K.owner.privateKey}`,
        `${emu.url}/groups/${W.paymentsProd}/alertConfigs?itemsPerPage=1`,
      ]);
      expect(JSON.parse(stdout).links[0].href).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0\/groups\//);
    } finally {
      await emu.close();
    }
  });

  it('closes the connection at once for a reset fault over TLS (no hang)', async () => {
    const emu = await startEmulator({
      admin: true,
      tls: { cert: await readFile(join(dir, 'cert.pem'), 'utf8'), key: await readFile(join(dir, 'key.pem'), 'utf8') },
    });
    try {
      await run('curl', [
        '-sS',
        '--cacert',
        join(dir, 'cert.pem'),
        '-X',
        'POST',
        '-H',
        'Content-Type: application/json',
        '--data',
        JSON.stringify({ path: '/groups/*/alertConfigs', reset: true }),
        `${emu.origin}/__emulator/faults`,
      ]);
      const outcome = await run('curl', [
        '-sS',
        '--max-time',
        '10',
        '--cacert',
        join(dir, 'cert.pem'),
        '--digest',
        '-u',
        `${K.owner.publicKey}:${K.owner.privateKey}`,
        `${emu.url}/groups/${W.paymentsProd}/alertConfigs`,
      ]).then(
        () => 0,
        (err: { code?: number }) => err.code,
      );
      // curl exit 28 would be the hang this guards against. curl may retry a reused connection that died, so it can
      // also succeed; what matters is that the reset happened and nothing waited for a timeout.
      expect(outcome).not.toBe(28);
      const log = await run('curl', ['-sS', '--cacert', join(dir, 'cert.pem'), `${emu.origin}/__emulator/requests`]);
      const statuses = (JSON.parse(log.stdout) as { entries: { status: number }[] }).entries.map((e) => e.status);
      expect(statuses).toContain(0);
    } finally {
      await emu.close();
    }
  });
});

function startCli(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'emulator', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = async () => {
    for (let i = 0; i < 300 && !stdout.includes('stop with'); i++) await new Promise((r) => setTimeout(r, 50));
    return stdout;
  };
  return { child, exit, ready, output: () => ({ stdout, stderr }) };
}

describe('opsman-gitops emulator', () => {
  it('prints a working curl line and stops on SIGTERM', async () => {
    const dataFile = join(dir, 'cli-data.json');
    const cli = startCli(['--port', '0', '--admin', '--data-file', dataFile]);
    try {
      const out = await cli.ready();
      expect(out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0/);
      const line = /try: curl --digest -u (\S+) '([^']+)'/.exec(out);
      // The seed's read-only key, as the demo prints: a copied line cannot write.
      expect(line?.[1]).toBe(`${K.viewer.publicKey}:${K.viewer.privateKey}`);
      const { stdout } = await run('curl', ['-sS', '--digest', '-u', line?.[1] ?? '', line?.[2] ?? '']);
      expect(JSON.parse(stdout).totalCount).toBe(4);
    } finally {
      cli.child.kill('SIGTERM');
    }
    expect(await cli.exit).toBe(0);
    expect(cli.output().stdout).toContain('received SIGTERM, stopping');
    expect(JSON.parse(await readFile(dataFile, 'utf8')).format).toBe('opsman-gitops-emulator-data');
  });

  it('warns when --admin listens on an interface other machines reach, not on 127.0.0.1', async () => {
    const exposed = startCli(['--port', '0', '--admin', '--host', '0.0.0.0']);
    const local = startCli(['--port', '0', '--admin']);
    try {
      await Promise.all([exposed.ready(), local.ready()]);
    } finally {
      exposed.child.kill('SIGTERM');
      local.child.kill('SIGTERM');
    }
    expect(await exposed.exit).toBe(0);
    expect(await local.exit).toBe(0);
    expect(exposed.output().stderr).toContain(
      'WARNING: opsman-gitops emulator: --admin on --host 0.0.0.0: the admin API has no authentication',
    );
    expect(local.output().stderr).toBe('');
  });

  it('refuses a bad flag with exit code 2', async () => {
    const cli = startCli(['--port', 'http']);
    expect(await cli.exit).toBe(2);
    expect(cli.output().stderr).toContain('--port must be 0..65535, got "http"');
    expect(cli.output().stderr).toContain('Usage: opsman-gitops emulator');
  });

  it('suggests the flag that was meant', async () => {
    const cli = startCli(['--prot', '1']);
    expect(await cli.exit).toBe(2);
    expect(cli.output().stderr).toContain('unknown option "--prot" (did you mean --port?)');
  });

  it('names a busy address and how to pick another port', async () => {
    const busy = createNetServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const cli = startCli(['--port', String(port)]);
      expect(await cli.exit).toBe(1);
      expect(cli.output().stderr).toBe(
        `opsman-gitops emulator: cannot start: 127.0.0.1:${port} is already in use (EADDRINUSE); ` +
          'choose another --port, or --port 0 for any free port\n',
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  it('says plainly that an address is not on this machine, without repeating the code Node prefixes', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    const cli = startCli(['--host', '192.0.2.1', '--port', '0']);
    expect(await cli.exit).toBe(1);
    expect(cli.output().stderr).toBe(
      'opsman-gitops emulator: cannot start: cannot listen on 192.0.2.1:0: ' +
        'no network interface of this machine has that address (EADDRNOTAVAIL)\n',
    );
  });

  it('refuses an invalid seed with exit code 1 and every problem', async () => {
    const seed = join(dir, 'bad-seed.yaml');
    await writeFile(seed, 'organizations:\n  - id: nope\n    name: acme\nprojects: 3\n');
    const cli = startCli(['--port', '0', '--seed', seed]);
    expect(await cli.exit).toBe(1);
    const { stderr } = cli.output();
    expect(stderr).toContain('organizations[0].id: expected a 24-character lower-case hex id, found "nope"');
    expect(stderr).toContain('projects: expected a list');
  });

  it('refuses a TLS file it cannot read as a start failure (exit 1) naming it, without the usage', async () => {
    const missing = join(dir, 'no-such-cert.pem');
    const cli = startCli(['--port', '0', '--tls-cert', missing, '--tls-key', missing]);
    expect(await cli.exit).toBe(1);
    expect(cli.output().stderr).toBe(
      `opsman-gitops emulator: cannot start: cannot read the TLS certificate ${missing}: ${missing} does not exist (ENOENT)\n`,
    );
  });

  it('names both files when they are not a PEM certificate and key', async () => {
    const notPem = join(dir, 'not-pem.txt');
    await writeFile(notPem, 'not a certificate\n');
    const cli = startCli(['--port', '0', '--tls-cert', notPem, '--tls-key', notPem]);
    expect(await cli.exit).toBe(1);
    const { stderr } = cli.output();
    expect(stderr).toContain(
      `cannot start: --tls-cert ${notPem} and --tls-key ${notPem} are not a usable PEM certificate and key (`,
    );
    expect(stderr).not.toContain('Usage:');
  });

  it('prints its help', async () => {
    const cli = startCli(['--help']);
    expect(await cli.exit).toBe(0);
    expect(cli.output().stdout).toContain('--data-file FILE');
  });
});
