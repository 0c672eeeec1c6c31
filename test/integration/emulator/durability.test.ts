// Scenario: with a data file every mutation is on disk before its response; a restart loses nothing; a corrupt or foreign
// data file is refused with a clear message and left byte-for-byte untouched.
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataFileError, EmulatorError, startEmulator } from '../../../emulator/index.ts';
import { alertBody, startHarness, W } from '../../helpers/emulator-client.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'emulator-data-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('data file', () => {
  it('keeps every mutation across a restart', async () => {
    const file = join(dir, 'data.json');
    const first = await startHarness({ dataFile: file });
    let id: string;
    try {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      id = (
        await first.owner.post(
          `/groups/${W.paymentsProd}/alertConfigs`,
          alertBody({ notifications: [{ typeName: 'SLACK', apiToken: 'xoxb-keep-me-1234', channelName: '#x' }] }),
        )
      ).body.id;
      await first.owner.put(`/usage/groups/${W.paymentsProd}/defaultServerType`, {
        serverType: { name: 'PRODUCTION_SERVER' },
      });
      await first.owner.request('PUT', '/versionManifest', undefined, '{"updated":1,"versions":[]}');
      await first.owner.delete(`/groups/${W.ledgerProd}/alertConfigs/6c0500000000000000000001`);
    } finally {
      await first.emu.close();
    }
    const second = await startHarness({ dataFile: file });
    try {
      const cfg = await second.owner.get(`/groups/${W.paymentsProd}/alertConfigs/${id}`);
      expect(cfg.status).toBe(200);
      expect(cfg.body.notifications[0].apiToken).toBe('*************1234');
      expect((await second.owner.get(`/usage/groups/${W.paymentsProd}/defaultServerType`)).body.name).toBe(
        'PRODUCTION_SERVER',
      );
      expect(await (await fetch(`${second.emu.url}/unauth/versionManifest`)).text()).toBe(
        '{"updated":1,"versions":[]}',
      );
      expect((await second.owner.get(`/groups/${W.ledgerProd}/alertConfigs/6c0500000000000000000001`)).status).toBe(
        404,
      );
      const events = (await second.owner.get(`/groups/${W.paymentsProd}/events?eventType=ALERT_CONFIG_ADDED_AUDIT`))
        .body;
      expect(events.results[0].alertConfigId).toBe(id);
      // The PUT with the mask after the restart still keeps the real secret.
      const read = cfg.body;
      await second.owner.put(`/groups/${W.paymentsProd}/alertConfigs/${id}`, {
        eventTypeName: read.eventTypeName,
        notifications: read.notifications,
      });
    } finally {
      await second.emu.close();
    }
    expect(await readFile(file, 'utf8')).toContain('xoxb-keep-me-1234');
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('persists an ambiguous write (fault after the operation) before the connection dies', async () => {
    const file = join(dir, 'data.json');
    const h = await startHarness({ dataFile: file });
    try {
      await h.admin('POST', '/faults', { method: 'POST', path: '/groups/*/alertConfigs', reset: true, phase: 'after' });
      await expect(
        h.owner.post(`/groups/${W.searchProd}/alertConfigs`, alertBody({ eventTypeName: 'HOST_RESTARTED' })),
      ).rejects.toThrow();
    } finally {
      await h.emu.close();
    }
    const again = await startHarness({ dataFile: file });
    try {
      const list = (await again.owner.get(`/groups/${W.searchProd}/alertConfigs`)).body.results;
      expect(list.map((c: { eventTypeName: string }) => c.eventTypeName)).toContain('HOST_RESTARTED');
    } finally {
      await again.emu.close();
    }
  });

  it('reset goes back to the seed and persists it', async () => {
    const file = join(dir, 'data.json');
    const h = await startHarness({ dataFile: file });
    const one = `/groups/${W.paymentsProd}/alertConfigs/6c0100000000000000000001`;
    try {
      await h.owner.delete(one);
      await h.admin('POST', '/reset');
    } finally {
      await h.emu.close();
    }
    // Read back by a new emulator from the file alone: the config is there again and the delete's event is gone (the
    // file holding the id proves nothing: the delete's audit event names it too).
    const again = await startHarness({ dataFile: file });
    try {
      expect((await again.owner.get(one)).status).toBe(200);
      const deletions = await again.owner.get(`/groups/${W.paymentsProd}/events?eventType=ALERT_CONFIG_DELETED_AUDIT`);
      expect(deletions.body.results).toEqual([]);
    } finally {
      await again.emu.close();
    }
  });

  it('creates a missing directory of the data file, owner-only (docs: --data-file .emulator/data.json)', async () => {
    const file = join(dir, '.emulator', 'data.json');
    const emu = await startEmulator({ port: 0, dataFile: file });
    try {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, '.emulator'))).mode & 0o777).toBe(0o700);
    } finally {
      await emu.close();
    }
  });

  it('says clearly when the data file cannot be created', async () => {
    // A dangling symbolic link as the directory: nothing to read, and no directory can be made there.
    await symlink(join(dir, 'gone', 'deeper'), join(dir, 'link'));
    const file = join(dir, 'link', 'data.json');
    // Which part of the path is missing, as the other path messages say it, not a bare code.
    await expect(startEmulator({ dataFile: file })).rejects.toThrow(
      `cannot create data file ${file}: ${join(dir, 'link')} does not exist (ENOENT)`,
    );
  });

  it('says the data file path is a directory instead of refusing it as a broken data file to move away or fix', async () => {
    const err = await startEmulator({ dataFile: dir }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeInstanceOf(DataFileError);
    expect((err as EmulatorError).code).toBe('DATA_FILE_PATH_INVALID');
    expect((err as Error).message).toBe(`cannot use data file ${dir}: ${dir} is a directory (EISDIR)`);
  });

  it('says which part of the path is a file when the data file is asked for inside one (not "refusing" a file)', async () => {
    const blocker = join(dir, 'somefile');
    await writeFile(blocker, 'not a directory');
    const file = join(blocker, 'data.json');
    const err = await startEmulator({ dataFile: file }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EmulatorError);
    expect(err).not.toBeInstanceOf(DataFileError);
    expect((err as EmulatorError).code).toBe('DATA_FILE_PATH_INVALID');
    expect((err as Error).message).toBe(
      `cannot use data file ${file}: ${blocker} is a file, not a directory (ENOTDIR)`,
    );
    expect(await readFile(blocker, 'utf8')).toBe('not a directory');
  });

  it.each([
    ['not JSON', '{"format": "opsman-gitops-emulator-data", "sta', /not valid JSON \(at line 1, column 47\)\./],
    ['empty', '', /not valid JSON \(the file is empty\)\./],
    // V8's own message would quote the text here, and the data file holds secrets in clear.
    [
      'not JSON around a secret',
      '{"state": {"apiKeys": [{"privateKey": s3cr3t}]}}',
      /not valid JSON \(at line 1, column 39\)\./,
    ],
    ['another format', '{"hello":"world"}', /not an emulator data file/],
    [
      'an unsupported version',
      '{"format":"opsman-gitops-emulator-data","formatVersion":9,"state":{}}',
      /unsupported formatVersion 9/,
    ],
    [
      'an invalid state',
      '{"format":"opsman-gitops-emulator-data","formatVersion":1,"state":{"projects":[{"id":"x"}]}}',
      /its state is invalid: projects\[0\]\.id/,
    ],
  ])('refuses a data file that is %s and leaves it untouched', async (_name, content, message) => {
    const file = join(dir, 'data.json');
    await writeFile(file, content);
    const err = await startEmulator({ dataFile: file }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DataFileError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('left untouched');
    expect((err as Error).message).not.toContain('s3cr3t');
    expect(await readFile(file, 'utf8')).toBe(content);
  });
});
