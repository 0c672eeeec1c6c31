// Scenario: a PUT whose body is still arriving while a DELETE of the same alert config completes answers 404 and does not
// resurrect it; concurrent creates through one cached nonce all land.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertBody,
  digestHeader,
  type EmulatorHarness,
  K,
  parseChallenge,
  startHarness,
  W,
} from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.emu.close();
});

const BASE = `/groups/${W.searchProd}/alertConfigs`;

describe('concurrency', () => {
  it('a DELETE during a slow PUT body wins', async () => {
    const id = (await h.owner.post(BASE, alertBody())).body.id as string;
    const path = `/api/public/v1.0${BASE}/${id}`;
    const challenge = await fetch(`${h.emu.origin}${path}`);
    const nonce = parseChallenge(challenge.headers.get('www-authenticate')).nonce ?? '';
    const body = JSON.stringify(alertBody({ eventTypeName: 'HOST_RESTARTED' }));
    const url = new URL(h.emu.origin);
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method: 'PUT',
          path,
          headers: {
            authorization: digestHeader(K.owner, 'PUT', path, nonce, '00000001'),
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      h.owner
        .delete(`${BASE}/${id}`)
        .then((del) => {
          expect(del.status).toBe(200);
          req.end(body.slice(10));
        })
        .catch(reject);
    });
    const res = await answer;
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text).errorCode).toBe('ALERT_CONFIG_NOT_FOUND');
    expect((await h.owner.get(`${BASE}/${id}`)).status).toBe(404);
  });

  it('parallel creates all land exactly once', async () => {
    const before = (await h.owner.get(BASE)).body.totalCount as number;
    const clients = Array.from({ length: 4 }, () => h.as(K.owner));
    // Prime each client's nonce, so the parallel requests share it with distinct, out-of-order nc values.
    for (const c of clients) await c.get('/alertConfigs/matchers/fieldNames');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (clients[i % 4] ?? h.owner).post(
          BASE,
          alertBody({ notifications: [{ typeName: 'EMAIL', emailAddress: `p${i}@x.example` }] }),
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(12);
    expect((await h.owner.get(BASE)).body.totalCount).toBe(before + 12);
  });
});
