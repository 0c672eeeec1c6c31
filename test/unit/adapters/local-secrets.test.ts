// Scenario: the file and environment secret resolvers resolve id#key references and fail with clear, value-free errors.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvSecretResolver, secretEnvName } from '../../../lambdas/adapters/local/secrets-env.ts';
import { FileSecretResolver, SecretResolutionError } from '../../../lambdas/adapters/local/secrets-file.ts';

const VALUE = 'very-secret-value-0001';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'secrets-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fileResolver(content: string): Promise<FileSecretResolver> {
  const file = path.join(dir, 'secrets.json');
  await writeFile(file, content);
  return new FileSecretResolver(file);
}

async function failure(promise: Promise<unknown>): Promise<SecretResolutionError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecretResolutionError);
  return error as SecretResolutionError;
}

describe('FileSecretResolver', () => {
  const good = JSON.stringify({ 'opsman/notify': { url: VALUE, n: 5, empty: '' }, flat: 'not-an-object' });

  it('resolves id#key', async () => {
    expect(await (await fileResolver(good)).resolve('opsman/notify#url')).toBe(VALUE);
  });

  it.each([
    ['opsman/notify#missing', 'SECRET_KEY_NOT_FOUND', 'has no key "missing"'],
    ['other#url', 'SECRET_NOT_FOUND', 'secret "other" (for other#url) is not in the secrets file'],
    ['opsman/notify#n', 'SECRET_NOT_STRING', 'is a number, not a string'],
    ['opsman/notify#empty', 'SECRET_NOT_STRING', 'is empty'],
    ['flat#x', 'SECRETS_FILE_INVALID', 'must be a JSON object of keys'],
    ['no-hash', 'INVALID_REF', 'is not of the form <secret id>#<json key>'],
    // Names every object inherits are not in the file: missing, not "a function" or "not an object".
    ['constructor#url', 'SECRET_NOT_FOUND', 'secret "constructor" (for constructor#url) is not in the secrets file'],
    ['__proto__#url', 'SECRET_NOT_FOUND', 'secret "__proto__" (for __proto__#url) is not in the secrets file'],
    ['opsman/notify#toString', 'SECRET_KEY_NOT_FOUND', 'has no key "toString"'],
    ['opsman/notify#__proto__', 'SECRET_KEY_NOT_FOUND', 'has no key "__proto__"'],
  ])('refuses %s with %s', async (ref, code, message) => {
    const error = await failure((await fileResolver(good)).resolve(ref));
    expect(error).toMatchObject({ code, ref, name: 'SecretResolutionError' });
    expect(error.message).toContain(message);
    expect(error.message).not.toContain(VALUE);
  });

  it('names a missing file', async () => {
    const error = await failure(new FileSecretResolver(path.join(dir, 'absent.json')).resolve('a#b'));
    expect(error.code).toBe('SECRETS_FILE_NOT_FOUND');
    expect(error.message).toContain('(ENOENT)');
  });

  it('refuses invalid JSON without quoting the file', async () => {
    const error = await failure((await fileResolver(`{"a": {"b": "${VALUE}"`)).resolve('a#b'));
    expect(error.code).toBe('SECRETS_FILE_INVALID');
    expect(error.message).toMatch(/is not valid JSON \(at line 1, column 37\)$/);
    expect(JSON.stringify(error) + error.message + String(error.cause)).not.toContain(VALUE);
  });

  it.each([
    // V8 gives these a position...
    ['a trailing comma', `{\n  "a": {"b": "${VALUE}",}\n}\n`, 'line 2, column 39'],
    ['a missing comma', `{\n  "a": {"b": "${VALUE}"}\n  "c": {}\n}\n`, 'line 3, column 3'],
    // ...and these none: its message quotes the text instead, which must not be passed on.
    ['a value not quoted', `{\n  "a": {"b": ${VALUE}}\n}\n`, 'line 2, column 14'],
    ['single quotes', `{\n  "a": {"b": '${VALUE}'}\n}\n`, 'line 2, column 14'],
    ['a comment', `// secrets\n{"a": {"b": "${VALUE}"}}\n`, 'line 1, column 1'],
  ])('says where invalid JSON broke, never what is there: %s', async (_case, content, where) => {
    const error = await failure((await fileResolver(content)).resolve('a#b'));
    expect(error.code).toBe('SECRETS_FILE_INVALID');
    expect(error.message).toBe(`secrets file ${path.join(dir, 'secrets.json')} is not valid JSON (at ${where})`);
    expect(JSON.stringify(error) + String(error.cause)).not.toContain(VALUE);
  });

  it('refuses a file that is not an object', async () => {
    const error = await failure((await fileResolver('["x"]')).resolve('a#b'));
    expect(error.code).toBe('SECRETS_FILE_INVALID');
  });
});

describe('EnvSecretResolver', () => {
  it.each([
    ['opsman/notify', 'payments-webhook-url', 'OPSMAN_SECRET_OPSMAN_NOTIFY_PAYMENTS_WEBHOOK_URL'],
    ['a.b@c', 'k_1', 'OPSMAN_SECRET_A_B_C_K_1'],
  ])('maps %s#%s to %s', (id, key, name) => {
    expect(secretEnvName(id, key)).toBe(name);
  });

  it('resolves from the given environment', async () => {
    const resolver = new EnvSecretResolver({ OPSMAN_SECRET_OPSMAN_NOTIFY_URL: VALUE });
    expect(await resolver.resolve('opsman/notify#url')).toBe(VALUE);
  });

  it.each([
    ['opsman/notify#other', {}, 'SECRET_NOT_FOUND', 'set the environment variable OPSMAN_SECRET_OPSMAN_NOTIFY_OTHER'],
    ['opsman/notify#url', { OPSMAN_SECRET_OPSMAN_NOTIFY_URL: '' }, 'SECRET_NOT_STRING', 'is empty'],
    ['bad ref', {}, 'INVALID_REF', 'is not of the form'],
  ])('refuses %s', async (ref, env, code, message) => {
    const error = await failure(new EnvSecretResolver(env).resolve(ref));
    expect(error).toMatchObject({ code, ref });
    expect(error.message).toContain(message);
  });
});
