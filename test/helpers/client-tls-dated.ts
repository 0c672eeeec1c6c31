/** Signs a server certificate for 127.0.0.1 / localhost with a test CA and chosen validity dates (expired, not yet valid). */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestPki } from './client-tls.ts';

const run = promisify(execFile);

/**
 * A leaf certificate valid from `startDate` to `endDate` (OpenSSL's `YYYYMMDDHHMMSSZ`), signed by `pki`'s CA with
 * `openssl ca`, the one OpenSSL 3.0 command that takes explicit dates. Files go into a fresh sub-directory of pki.dir.
 */
export async function signDatedLeaf(
  pki: TestPki,
  name: string,
  startDate: string,
  endDate: string,
): Promise<{ cert: string; key: string }> {
  const dir = join(pki.dir, name);
  await run('mkdir', ['-p', dir]);
  const file = (f: string) => join(dir, f);
  await writeFile(file('index.txt'), '');
  await writeFile(file('serial'), '01\n');
  await writeFile(
    file('ca.cnf'),
    [
      '[ca]',
      'default_ca = test',
      '[test]',
      `database = ${file('index.txt')}`,
      `new_certs_dir = ${dir}`,
      `serial = ${file('serial')}`,
      'default_md = sha256',
      'policy = any',
      'x509_extensions = leaf',
      '[any]',
      'commonName = supplied',
      '[leaf]',
      'subjectAltName = IP:127.0.0.1,DNS:localhost',
      'basicConstraints = CA:FALSE',
      'extendedKeyUsage = serverAuth',
      '',
    ].join('\n'),
  );
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', ['req', ...ec, '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/CN=127.0.0.1']);
  await run('openssl', [
    'ca',
    '-batch',
    '-config',
    file('ca.cnf'),
    '-cert',
    pki.caFile,
    '-keyfile',
    join(pki.dir, 'ca.key'),
    '-in',
    file('leaf.csr'),
    '-out',
    file('leaf.pem'),
    '-startdate',
    startDate,
    '-enddate',
    endDate,
  ]);
  const [cert, key] = await Promise.all([readFile(file('leaf.pem'), 'utf8'), readFile(file('leaf.key'), 'utf8')]);
  return { cert, key };
}
