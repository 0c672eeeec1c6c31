// Scenario: clients that misbehave on the connection itself. A body streamed without end past the limit gets its 413
// and the connection closed at once (not held until requestTimeoutMs while the rest is read and dropped); so does an
// endless body the answer never needed (a 401 to an unauthenticated POST). A client that goes away mid-body is the
// client's doing, never reported as an unexpected error of the emulator. A Transfer-Encoding that does not end with
// chunked is 400 and the connection closed (Node would read such a body to the end of the connection), a coding it
// does not decode 501: never a client left waiting, never a request after it swallowed as body. What Node cannot parse
// (smuggling attempts, control characters) gets the five-field body naming the fault, not a bare status line.
// Expect: 100-continue invites the body only of a request the emulator goes on to read. CONNECT is a 405, not a
// connection closed without a word.
import { connect } from 'node:net';
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

const LIMIT = 4096;
const TIMEOUT = 20_000;
let h: EmulatorHarness;
let port: number;
const unexpected: string[] = [];
beforeAll(async () => {
  h = await startHarness({ maxBodyBytes: LIMIT, requestTimeoutMs: TIMEOUT, onError: (m) => unexpected.push(m) });
  port = Number(new URL(h.emu.origin).port);
});
afterAll(async () => {
  await h.emu.close();
});

const PATH = `/api/public/v1.0/groups/${W.paymentsProd}/alertConfigs`;

async function authorization(method: string): Promise<string> {
  const challenge = await fetch(`${h.emu.origin}${PATH}`, { method });
  await challenge.text();
  const { nonce = '' } = parseChallenge(challenge.headers.get('www-authenticate'));
  return digestHeader(K.owner, method, PATH, nonce, '00000001');
}

/** Sends `head`, then a 256-byte chunk every 10 ms until the server closes; answers what came back and when. */
function streamEndlessly(head: string): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let text = '';
    let beat: NodeJS.Timeout | undefined;
    // The chunks start once the head is written: a beat queued before it would be read as the request line (a 400).
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      beat = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(`100\r\n${'a'.repeat(256)}\r\n`);
      }, 10);
    });
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(beat);
      resolve({ text, ms: Date.now() - started });
    });
    setTimeout(() => {
      clearInterval(beat);
      socket.destroy();
      reject(new Error(`connection still open after 8 s; got ${JSON.stringify(text.slice(0, 200))}`));
    }, 8000).unref();
  });
}

describe('endless request bodies', () => {
  it('a chunked body past maxBodyBytes gets 413 with Connection: close, and the connection is closed at once', async () => {
    const auth = await authorization('POST');
    const { text, ms } = await streamEndlessly(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(text).toContain('"errorCode":"PAYLOAD_TOO_LARGE"');
    expect(ms).toBeLessThan(5000);
  }, 15_000);

  it('an unauthenticated POST streaming without end gets its 401 and the connection closed past maxBodyBytes', async () => {
    const { text, ms } = await streamEndlessly(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(ms).toBeLessThan(5000);
  }, 15_000);

  it('a small unread body is still drained: the connection serves the next request', async () => {
    const text = await new Promise<string>((resolve) => {
      let out = '';
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}` +
            'GET /api/public/v1.0/unauth/versionManifest HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        ),
      );
      socket.on('data', (chunk) => {
        out += chunk.toString('latin1');
      });
      socket.on('close', () => resolve(out));
    });
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).toContain('HTTP/1.1 200 OK');
  });
});

describe('a client that goes away mid-body', () => {
  it('is not reported as an unexpected error, and the emulator keeps serving', async () => {
    const auth = await authorization('POST');
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":1`,
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });
    const auth2 = await authorization('POST');
    // A chunk Node cannot parse ends the request the same way (answered 400 INVALID_HTTP_REQUEST).
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth2}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
        ),
      );
      socket.on('error', () => undefined);
      socket.resume();
      socket.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await h.owner.get(`/groups/${W.paymentsProd}/alertConfigs`)).status).toBe(200);
    expect(unexpected).toEqual([]);
  });
});

/** Sends `bytes` and answers everything read until the server closes (rejects after 5 s: the server never did). */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 5 s; got ${JSON.stringify(text.slice(0, 200))}`));
    }, 5000).unref();
  });
}

describe('Transfer-Encoding (RFC 9112 section 6)', () => {
  const NEXT = 'GET /api/public/v1.0/unauth/versionManifest HTTP/1.1\r\nHost: x\r\n\r\n';

  it.each(['gzip', 'identity', 'xchunked', 'chunked;q=1'])(
    '%s (chunked not last) is 400 INVALID_TRANSFER_ENCODING and the connection closed, nothing after it read as a request',
    async (te) => {
      const text = await exchange(`POST ${PATH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${te}\r\n\r\n{}${NEXT}`);
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(text).toMatch(/\r\nConnection: close\r\n/i);
      expect(text).toContain('"errorCode":"INVALID_TRANSFER_ENCODING"');
      expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    },
  );

  it('gzip before chunked is 501 UNSUPPORTED_TRANSFER_ENCODING, not gzip bytes read as JSON', async () => {
    const text = await exchange(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n/);
    expect(text).toContain('"errorCode":"UNSUPPORTED_TRANSFER_ENCODING","parameters":["gzip"]');
  });

  it('chunked alone, in any case, is read as usual', async () => {
    const text = await exchange(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:  Chunked \r\n\r\n2\r\n{}\r\n0\r\n\r\n${NEXT.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).toContain('HTTP/1.1 200 OK');
  });
});

describe('requests Node cannot parse (request smuggling included)', () => {
  /** The status line and the JSON body of a raw answer. */
  function parse(text: string): { status: string; body: Record<string, unknown>; headers: string } {
    const [head = '', body = ''] = text.split('\r\n\r\n');
    return { status: head.split('\r\n')[0] ?? '', headers: head, body: JSON.parse(body) as Record<string, unknown> };
  }

  it.each([
    [
      'Content-Length twice',
      'Content-Length: 4\r\nContent-Length: 5\r\n',
      'Duplicate Content-Length',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    [
      'Content-Length with Transfer-Encoding',
      'Content-Length: 4\r\nTransfer-Encoding: chunked\r\n',
      "Transfer-Encoding can't be present with Content-Length",
      'HPE_INVALID_TRANSFER_ENCODING',
    ],
    [
      'a control character in a header value',
      'X-A: a\x01b\r\n',
      'Invalid header value char',
      'HPE_INVALID_HEADER_TOKEN',
    ],
    ['a control character in a header name', 'X\x01A: b\r\n', 'Invalid header token', 'HPE_INVALID_HEADER_TOKEN'],
  ])(
    '%s is 400 INVALID_HTTP_REQUEST with the five-field body naming the fault',
    async (_name, headers, reason, code) => {
      const text = await exchange(
        `POST ${PATH} HTTP/1.1\r\nHost: x\r\n${headers}\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\n\r\n`,
      );
      const answer = parse(text);
      expect(answer.status).toBe('HTTP/1.1 400 Bad Request');
      expect(answer.headers).toMatch(/\r\nContent-Type: application\/json\r\n/);
      expect(answer.headers).toMatch(/\r\nConnection: close\r\n/);
      expect(answer.body).toEqual({
        detail: `The request is not valid HTTP/1.1: ${reason}.`,
        error: 400,
        errorCode: 'INVALID_HTTP_REQUEST',
        parameters: [code],
        reason: 'Bad Request',
      });
      expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    },
  );

  it('the HTTP/2 preface is 505 HTTP_VERSION_NOT_SUPPORTED, not Node’s “Pause on PRI/Upgrade”', async () => {
    const answer = parse(await exchange('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    expect(answer.status).toBe('HTTP/1.1 505 HTTP Version Not Supported');
    expect(answer.body).toMatchObject({
      errorCode: 'HTTP_VERSION_NOT_SUPPORTED',
      detail: 'HTTP/2 is not supported; send HTTP/1.1.',
    });
  });

  it('garbage pipelined behind a request still being answered: that answer first, then the 400', async () => {
    expect(
      (await h.admin('POST', '/faults', { method: 'GET', path: '/unauth/versionManifest', latencyMs: 200, times: 1 }))
        .status,
    ).toBe(200);
    const text = await exchange('GET /api/public/v1.0/unauth/versionManifest HTTP/1.1\r\nHost: x\r\n\r\nHELLO\r\n\r\n');
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(text).toContain('"versions":');
    expect((await h.admin('DELETE', '/faults')).status).toBe(200);
  });

  it('headers too large are 431 with the five-field body', async () => {
    const answer = parse(await exchange(`GET ${PATH} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer.status).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(answer.body).toMatchObject({
      errorCode: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      error: 431,
      parameters: [16384],
    });
  });
});

describe('CONNECT', () => {
  it('is 405 METHOD_NOT_ALLOWED with the five-field body, not a connection closed without a word', async () => {
    const text = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(text).toMatch(/\r\nAllow: \r\n/);
    expect(text).toContain('"errorCode":"METHOD_NOT_ALLOWED","parameters":["CONNECT","example.com:443"]');
  });
});

describe('Expect: 100-continue (RFC 9110 section 10.1.1)', () => {
  /** Sends the head, waits for the first answer bytes, then (if asked) the body; answers all read until close. */
  function expecting(head: string, body?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(head));
      socket.on('data', (chunk) => {
        const first = text === '';
        text += chunk.toString('latin1');
        if (first && body !== undefined && text.startsWith('HTTP/1.1 100 ')) socket.write(body);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
      setTimeout(() => {
        socket.destroy();
        reject(new Error(`no close within 5 s; got ${JSON.stringify(text.slice(0, 300))}`));
      }, 5000).unref();
    });
  }

  it('an unauthenticated request gets its 401 without 100 Continue, and the connection closed', async () => {
    const text = await expecting(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(text).not.toContain('100 Continue');
  });

  it('a declared body over maxBodyBytes gets 413 without 100 Continue', async () => {
    const auth = await authorization('POST');
    const text = await expecting(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).not.toContain('100 Continue');
  });

  it('an authenticated request gets 100 Continue, then its answer once the body is sent', async () => {
    const auth = await authorization('POST');
    const body = JSON.stringify(alertBody());
    const text = await expecting(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      body,
    );
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    const id = /"id":"([0-9a-f]{24})"/.exec(text)?.[1];
    expect((await h.owner.delete(`/groups/${W.paymentsProd}/alertConfigs/${id}`)).status).toBe(200);
  });

  it('another expectation is 417 with the five-field body', async () => {
    const text = await exchange(
      `GET /api/public/v1.0/unauth/versionManifest HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 417 Expectation Failed\r\n/);
    expect(text).toContain('"errorCode":"EXPECTATION_FAILED","parameters":["200-ok"]');
  });
});
