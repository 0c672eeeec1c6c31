/** Generates a throw-away CA and a server certificate for 127.0.0.1 with openssl, in a temp dir removed by cleanup(). */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM material of one test PKI. */
export interface TestPki {
  dir: string;
  caFile: string;
  caPem: string;
  cert: string;
  key: string;
  cleanup(): Promise<void>;
}

/** Creates the CA (EC P-256, 2 days) and a leaf for IP 127.0.0.1 / localhost signed by it. */
export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'opsman-client-tls-'));
  const file = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=opsman-gitops test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', [
    'req',
    ...ec,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  ]);
  await writeFile(
    file('ext.cnf'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.pem'),
    '-days',
    '2',
    '-extfile',
    file('ext.cnf'),
  ]);
  const [caPem, cert, key] = await Promise.all([
    readFile(file('ca.pem'), 'utf8'),
    readFile(file('server.pem'), 'utf8'),
    readFile(file('server.key'), 'utf8'),
  ]);
  return { dir, caFile: file('ca.pem'), caPem, cert, key, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
