// Scenario: the client authenticates to a real Apache httpd with mod_auth_digest (an independent Digest server): nonce reuse with nc checking on, stale nonces after the lifetime, wrong keys. Runs only where /usr/sbin/apache2 exists.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOpsManagerClient, OpsManagerAuthError } from '../../../lambdas/opsman/index.ts';

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const USER = 'gitopsbt';
const PASSWORD = 'apache-interop-private-key';
const TEAM = { id: 'team1', name: 'dba-oncall', links: [] };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`apache2 exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      }).on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('apache2 did not start listening');
}

function config(dir: string, port: number): string {
  const protectedDir = (path: string, lifetime: number, ncCheck: 'On' | 'Off') => `
<Directory "${dir}/www${path}">
  AuthType Digest
  AuthName "private area"
  AuthDigestProvider file
  AuthUserFile "${dir}/htdigest"
  AuthDigestNonceLifetime ${lifetime}
  AuthDigestNcCheck ${ncCheck}
  Require valid-user
</Directory>`;
  return `
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile "${dir}/httpd.pid"
DefaultRuntimeDir "${dir}"
ErrorLog "${dir}/error.log"
LogLevel warn
User www-data
Group www-data
LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule authn_file_module ${MODULES}/mod_authn_file.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule auth_digest_module ${MODULES}/mod_auth_digest.so
LogFormat "%>s %m %U" short
CustomLog "${dir}/access.log" short
DocumentRoot "${dir}/www"
${protectedDir('/api', 300, 'On')}
${protectedDir('/short', 2, 'On')}
${protectedDir('/parallel', 300, 'Off')}
`;
}

describe.skipIf(!existsSync(APACHE) || !existsSync(`${MODULES}/mod_auth_digest.so`))(
  'Apache httpd mod_auth_digest interop',
  () => {
    let dir: string;
    let port: number;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'opsman-client-apache-'));
      port = await freePort();
      for (const prefix of ['', '/short', '/parallel']) {
        const teamsDir = join(dir, 'www', prefix, 'api/public/v1.0/orgs/o1/teams');
        await mkdir(teamsDir, { recursive: true });
        await writeFile(join(teamsDir, 'team1'), JSON.stringify(TEAM));
      }
      const ha1 = createHash('md5').update(`${USER}:private area:${PASSWORD}`).digest('hex');
      await writeFile(join(dir, 'htdigest'), `${USER}:private area:${ha1}\n`);
      await writeFile(join(dir, 'httpd.conf'), config(dir, port));
      await chmod(dir, 0o755); // the worker processes run as www-data
      const child = spawn(APACHE, ['-f', join(dir, 'httpd.conf'), '-DFOREGROUND'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      try {
        await waitForPort(port, child);
      } catch (error) {
        const log = stderr + (await readFile(join(dir, 'error.log'), 'utf8').catch(() => ''));
        child.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
        throw new Error(`${(error as Error).message}: ${log}`);
      }
      return async () => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
        await rm(dir, { recursive: true, force: true });
      };
    });

    async function logLines(file: 'access.log' | 'error.log'): Promise<string[]> {
      const text = await readFile(join(dir, file), 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line !== '');
    }

    async function accessLog(): Promise<string[]> {
      return logLines('access.log');
    }

    /**
     * The lines `file` gained after its first `from`, once `done` accepts them (or after about two seconds): Apache
     * logs a request just after sending its response, so the client can be done before the last line is written.
     */
    async function linesSince(
      file: 'access.log' | 'error.log',
      from: number,
      done: (lines: string[]) => boolean,
    ): Promise<string[]> {
      for (let attempt = 0; ; attempt++) {
        const lines = (await logLines(file)).slice(from);
        if (done(lines) || attempt === 100) return lines;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    it('N sequential requests cost N+1 exchanges (nonce reused, nc checked by Apache)', async () => {
      const client = createOpsManagerClient({
        baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
        publicKey: USER,
        privateKey: PASSWORD,
      });
      // Other tests under /api/ leave lines of their own: only the ones written from here on are this test's.
      const from = (await accessLog()).length;
      try {
        for (let i = 0; i < 5; i++) expect(await client.getTeam('o1', 'team1')).toEqual(TEAM);
      } finally {
        await client.close();
      }
      const lines = (await linesSince('access.log', from, (all) => all.length >= 6)).filter((line) =>
        line.includes(' /api/'),
      );
      expect(lines.map((line) => line.split(' ')[0])).toEqual(['401', '200', '200', '200', '200', '200']);
    });

    it('re-authenticates transparently when Apache marks the nonce stale', async () => {
      const client = createOpsManagerClient({
        baseUrl: `http://127.0.0.1:${port}/short/api/public/v1.0`,
        publicKey: USER,
        privateKey: PASSWORD,
      });
      try {
        expect(await client.getTeam('o1', 'team1')).toEqual(TEAM);
        await new Promise((resolve) => setTimeout(resolve, 3500)); // past AuthDigestNonceLifetime 2
        expect(await client.getTeam('o1', 'team1')).toEqual(TEAM);
      } finally {
        await client.close();
      }
      const lines = (await accessLog()).filter((line) => line.includes(' /short/'));
      // Apache's workers append their lines as each finishes, so a loaded machine can log a 200 before the 401 that
      // preceded it on another worker: count, not order (one challenge per nonce, one success per call).
      expect(lines.map((line) => line.split(' ')[0]).sort()).toEqual(['200', '200', '401', '401']);
    });

    // Apache's default (AuthDigestNcCheck Off). With the check On, Apache keys the nonce count by `opaque`, which every
    // new challenge to the same client reuses, so parallel requests over several connections race on one counter: no
    // client can satisfy that, and the sequential tests above are where the nc check is exercised.
    it('parallel requests all succeed, sharing one nonce with distinct nc values', async () => {
      const client = createOpsManagerClient({
        baseUrl: `http://127.0.0.1:${port}/parallel/api/public/v1.0`,
        publicKey: USER,
        privateKey: PASSWORD,
      });
      try {
        const teams = await Promise.all(Array.from({ length: 10 }, () => client.getTeam('o1', 'team1')));
        expect(teams).toEqual(Array.from({ length: 10 }, () => TEAM));
      } finally {
        await client.close();
      }
      const lines = (await accessLog()).filter((line) => line.includes(' /parallel/'));
      // One challenge for the whole burst (single flight), then ten answers on the shared nonce.
      expect(lines.filter((line) => line.startsWith('401'))).toHaveLength(1);
      expect(lines.filter((line) => line.startsWith('200'))).toHaveLength(10);
    });

    it('wrong credentials end after one challenge', async () => {
      const client = createOpsManagerClient({
        baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
        publicKey: USER,
        privateKey: 'wrong',
      });
      const from = { access: (await accessLog()).length, errors: (await logLines('error.log')).length };
      try {
        const error = await client.getTeam('o1', 'team1').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpsManagerAuthError);
        expect(error).toMatchObject({ status: 401, method: 'GET', pathTemplate: '/orgs/{orgId}/teams/{teamId}' });
      } finally {
        await client.close();
      }
      // Two exchanges: the challenge, then its answer, refused; no second answer, no loop.
      const lines = (await linesSince('access.log', from.access, (all) => all.length >= 2)).filter((line) =>
        line.includes(' /api/'),
      );
      expect(lines.map((line) => line.split(' ')[0])).toEqual(['401', '401']);
      // The challenge was answered: Apache checked the digest (a wrong key, not a missing one), exactly once.
      const mismatch = (line: string) => line.includes(`user ${USER}: password mismatch`);
      const errors = await linesSince('error.log', from.errors, (all) => all.some(mismatch));
      expect(errors.filter(mismatch)).toHaveLength(1);
    });
  },
);
