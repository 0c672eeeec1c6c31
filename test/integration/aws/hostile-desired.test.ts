// Scenario: the reconcile handler over desired-state objects in S3 that are not YAML documents it can use (empty,
// binary, broken YAML): the run fails DESIRED_STATE_INVALID, writes nothing, and its answer names each problem with
// file, line and message (the Lambda's caller has no `validate` output to read), at most MAX_LISTED_ISSUES of them.
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_LISTED_ISSUES } from '../../../lambdas/handlers/summary.ts';
import { WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

type Issue = { file: string; line: number; column: number; path: string; message: string };

describe('the reconcile handler over unusable desired-state objects', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const added: string[] = [];
  const put = (path: string, body: string | Buffer, options?: { contentEncoding?: string }) => {
    added.push(`desired-state/${path}`);
    h.world.s3.putDirect(WORLD.desiredBucket, `desired-state/${path}`, body, options);
  };

  // The objects a test added to the desired state go before the next test (the data bucket is emptied by the helper).
  beforeEach(() => {
    for (const key of added.splice(0)) h.world.s3.buckets.get(WORLD.desiredBucket)?.delete(key);
  });

  it.each([
    ['an empty', ''],
    ['a binary', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x81])],
    ['a broken YAML', '{{{: ['],
  ])('%s file: DESIRED_STATE_INVALID naming the file and the problem, nothing written', async (_name, body) => {
    put('projects/hostile.yaml', body);
    const summary = await h.reconcile({ mode: 'apply' }, h.ctx());
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'DESIRED_STATE_INVALID', retryable: false } });
    const issues = summary.issues as Issue[];
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(issue).toMatchObject({ file: 'projects/hostile.yaml', message: expect.any(String) });
      expect(issue.line).toBeGreaterThanOrEqual(1);
    }
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/state.json')).toBeUndefined();
  });

  it('an object stored gzip-encoded is read as its text; one with an encoding that cannot be undone fails S3_CONTENT_ENCODING naming it, not retried', async () => {
    const key = 'desired-state/projects/payments.yaml';
    const yaml = h.world.s3.getText(WORLD.desiredBucket, key) ?? '';
    try {
      h.world.s3.putDirect(WORLD.desiredBucket, key, gzipSync(yaml), { contentEncoding: 'gzip' });
      const plan = await h.reconcile({ mode: 'plan' }, h.ctx());
      expect(plan.error).toBeUndefined();
      h.world.s3.putDirect(WORLD.desiredBucket, key, brotliCompressSync(yaml), { contentEncoding: 'br' });
      const summary = await h.reconcile({ mode: 'apply' }, h.ctx());
      expect(summary).toMatchObject({
        status: 'failed',
        error: {
          code: 'S3_CONTENT_ENCODING',
          retryable: false,
          message: expect.stringContaining(`s3://${WORLD.desiredBucket}/${key} is stored with Content-Encoding "br"`),
        },
      });
      expect(h.world.s3.getText(WORLD.dataBucket, 'state/state.json')).toBeUndefined();
    } finally {
      h.world.s3.putDirect(WORLD.desiredBucket, key, yaml);
    }
  });

  it('a secret written as a literal: the problem is listed without the value', async () => {
    const literal = 'literal-webhook-secret-0123456789';
    const yaml = h.world.s3.getText(WORLD.desiredBucket, 'desired-state/projects/payments.yaml') ?? '';
    const edited = yaml.replace('{ secretRef: "opsman/notify#payments-webhook-secret" }', `"${literal}"`);
    expect(edited).not.toBe(yaml);
    put('projects/payments.yaml', edited);
    try {
      const summary = await h.reconcile({ mode: 'apply' }, h.ctx());
      expect(summary.error).toMatchObject({ code: 'DESIRED_STATE_INVALID' });
      expect((summary.issues as Issue[]).map((i) => i.path)).toContain(
        'spec.alertConfigs[0].notifications[1].webhookSecret',
      );
      expect(JSON.stringify(summary)).not.toContain(literal);
    } finally {
      h.world.s3.putDirect(WORLD.desiredBucket, 'desired-state/projects/payments.yaml', yaml);
      added.pop();
    }
  });

  it(`lists at most ${MAX_LISTED_ISSUES} problems, and says how many there are`, async () => {
    for (let i = 0; i < MAX_LISTED_ISSUES + 5; i++) put(`projects/empty-${String(i).padStart(2, '0')}.yaml`, '');
    const summary = await h.reconcile({ mode: 'apply' }, h.ctx());
    expect((summary.issues as Issue[]).length).toBe(MAX_LISTED_ISSUES);
    expect((summary.error as { message: string }).message).toMatch(/has 25 problem\(s\)/);
  });
});
