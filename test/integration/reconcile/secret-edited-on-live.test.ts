// Scenario: over real HTTP, jdoekey1 points a managed webhook at another host and pastes another Slack token: the plan shows both as "(secret changed on live)", as drift attributed to jdoekey1, the apply re-sends ours, the next plan is empty; an Ops Manager whose redaction keeps other characters than foreseen is flagged not converging once instead of being rewritten on every run.
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { EmulatorWorld, KEYS, PROJECTS } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
const servers: Server[] = [];
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
  await world.close();
});

const PROD = PROJECTS.paymentsProd;

function pending(report: { plan: { changes: { key: string; action: string; target: { name: string } }[] } }): string[] {
  return report.plan.changes
    .filter((c) => c.action !== 'noop' && !(c.key === 'auditLogRotation' && c.action === 'drift'))
    .map((c) => `${c.target.name}/${c.key}:${c.action}`);
}

/** The request body a person would PUT: the live config with its notifications edited. */
function editedBody(live: AlertConfig, edit: (n: Record<string, unknown>) => void): Record<string, unknown> {
  const notifications = live.notifications.map((n) => {
    const copy = { ...(n as unknown as Record<string, unknown>) };
    delete copy.notifierId;
    edit(copy);
    return copy;
  });
  return { enabled: live.enabled, eventTypeName: live.eventTypeName, matchers: live.matchers, notifications };
}

/**
 * An HTTP proxy in front of the emulator that rewrites every answer's text: an Ops Manager whose redaction keeps
 * other characters than the emulator's. Digest passes through untouched (same paths).
 */
async function rewritingProxy(target: string, rewrite: (text: string) => string): Promise<string> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const out = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const body = Buffer.from(rewrite(Buffer.concat(parts).toString('utf8')));
            const headers = { ...answer.headers, 'content-length': String(body.length) };
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(body);
          });
        },
      );
      out.end(Buffer.concat(chunks));
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The tool's client through a proxy that shows every webhook URL of the emulator's answers under `shown` instead of
 * `https://hooks.example.invalid/` (an Ops Manager redacting URLs its own way).
 */
async function clientRewritingUrls(shown: string) {
  const proxied = await rewritingProxy(world.origin, (text) =>
    text.replaceAll('https://hooks.example.invalid/', shown),
  );
  return createOpsManagerClient({
    baseUrl: `${proxied}/api/public/v1.0`,
    publicKey: 'gitopsbt',
    privateKey: KEYS.gitopsbt,
    retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
  });
}

describe('secrets replaced by hand in Ops Manager', () => {
  it('shows a webhook URL and a Slack token replaced by jdoekey1 as drift, re-sends them once, then plans nothing', async () => {
    await world.run('apply');
    const ownerClient = world.client();
    const id = (await ownerClient.listAlertConfigs(PROD)).find(
      (c) => c.eventTypeName === 'NO_PRIMARY' && c.notifications.some((n) => n.typeName === 'WEBHOOK'),
    )?.id as string;
    const human = world.client('jdoekey1');
    const live = await human.getAlertConfig(PROD, id);
    await human.updateAlertConfig(
      PROD,
      id,
      editedBody(live, (n) => {
        if (n.typeName === 'WEBHOOK') {
          n.webhookUrl = 'https://elsewhere.example.invalid/hook/FAKE-HUMAN-0001';
          n.webhookSecret = 'fake-human-webhook-secret-0001';
        }
        if (n.typeName === 'SLACK') n.apiToken = 'xoxb-FAKE-HUMAN-0000-not-a-real-tokzz';
      }) as never,
    );

    const plan = await world.run('plan');
    expect(pending(plan)).toEqual(['payments-prod/no-primary:update']);
    const change = plan.plan.changes.find((c) => c.target.id === PROD && c.key === 'no-primary');
    expect(change?.fields).toEqual([
      { path: 'notifications[SLACK:#payments-alerts].apiToken', secret: true, note: 'changed on live' },
      { path: 'notifications[WEBHOOK].webhookUrl', secret: true, note: 'changed on live' },
    ]);
    expect(change?.drift?.detected).toBe(true);
    expect(change?.drift?.attribution?.[0]).toMatchObject({
      actor: 'jdoekey1',
      eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
    });
    expect(JSON.stringify(plan)).not.toContain('FAKE-HUMAN');

    await world.admin('DELETE', 'requests');
    const applied = await world.run('apply');
    expect(applied.results.map((r) => `${r.change.key}:${r.status}`)).toEqual(['no-primary:applied']);
    expect((await world.writes()).map((w) => `${w.method} ${w.route}`)).toEqual([
      'PUT /groups/{groupId}/alertConfigs/{alertConfigId}',
    ]);
    const after = await ownerClient.getAlertConfig(PROD, id);
    const hook = after.notifications.find((n) => n.typeName === 'WEBHOOK') as unknown as Record<string, string>;
    expect(hook.webhookUrl?.startsWith('https://hooks.example.invalid/')).toBe(true);
    expect(pending(await world.run('plan'))).toEqual([]);
  });

  it('flags a secret whose redaction never agrees as not converging once, then leaves it alone', async () => {
    // This Ops Manager shows every webhook URL under a host of its own: the mask can never agree.
    const api = await clientRewritingUrls('https://redacted.example.invalid/');
    try {
      const first = await world.run('apply', {}, world.deps(api));
      const created = first.results.find((r) => r.change.target.id === PROD && r.change.key === 'no-primary');
      expect(created?.status).toBe('not-converging');
      expect(created?.message).toContain('notifications[WEBHOOK].webhookUrl (secret)');

      const plan = await world.run('plan', {}, world.deps(api));
      const change = plan.plan.changes.find((c) => c.target.id === PROD && c.key === 'no-primary');
      expect(change?.action).toBe('blocked');
      await world.admin('DELETE', 'requests');
      await world.run('apply', {}, world.deps(api));
      expect(await world.writes()).toEqual([]);
    } finally {
      await api.close();
    }
  });
  it('takes a URL redaction that writes the host in upper case with the default port as the same secret', async () => {
    // Another spelling of the same origin is not another secret: the apply converges and the next plan is empty.
    const api = await clientRewritingUrls('https://HOOKS.example.invalid:443/');
    try {
      const first = await world.run('apply', {}, world.deps(api));
      const created = first.results.find((r) => r.change.target.id === PROD && r.change.key === 'no-primary');
      expect(created?.status).toBe('applied');
      expect(first.results.filter((r) => r.status === 'not-converging')).toEqual([]);
      expect(pending(await world.run('plan', {}, world.deps(api)))).toEqual([]);
    } finally {
      await api.close();
    }
  });
  it('sees webhook URLs swapped between two WEBHOOKs of different intervals, re-sends them once, then plans nothing', async () => {
    const hook2 = 'https://second.example.invalid/hook/FAKE-0002';
    await world.editSecrets((secrets) => {
      (secrets['opsman/notify'] as Record<string, string>)['second-webhook-url'] = hook2;
    });
    await world.editDesired('projects/payments.yaml', (text) =>
      text.replace(
        '          webhookSecret: { secretRef: "opsman/notify#payments-webhook-secret" }\n',
        '          webhookSecret: { secretRef: "opsman/notify#payments-webhook-secret" }\n' +
          '        - typeName: WEBHOOK\n' +
          '          webhookUrl: { secretRef: "opsman/notify#second-webhook-url" }\n' +
          '          intervalMin: 45\n' +
          '          delayMin: 0\n',
      ),
    );
    await world.run('apply');
    expect(pending(await world.run('plan'))).toEqual([]);
    const ownerClient = world.client();
    const id = (await ownerClient.listAlertConfigs(PROD)).find(
      (c) => c.eventTypeName === 'NO_PRIMARY' && c.notifications.filter((n) => n.typeName === 'WEBHOOK').length === 2,
    )?.id as string;
    const hook1 = 'https://hooks.example.invalid/FAKE-SWAPPED-0001';
    const human = world.client('jdoekey1');
    // The person points the 45-minute webhook at the first host, the other one at the second host.
    await human.updateAlertConfig(
      PROD,
      id,
      editedBody(await human.getAlertConfig(PROD, id), (n) => {
        if (n.typeName !== 'WEBHOOK') return;
        n.webhookUrl = n.intervalMin === 45 ? hook1 : hook2;
        if (n.webhookSecret !== undefined) n.webhookSecret = 'fake-human-webhook-secret-0002';
      }) as never,
    );

    const plan = await world.run('plan');
    expect(pending(plan)).toEqual(['payments-prod/no-primary:update']);
    const change = plan.plan.changes.find((c) => c.target.id === PROD && c.key === 'no-primary');
    expect(change?.fields?.map((f) => `${f.path} ${f.note}`)).toEqual([
      'notifications[WEBHOOK#2].webhookUrl changed on live',
      'notifications[WEBHOOK].webhookUrl changed on live',
    ]);
    expect(JSON.stringify(plan)).not.toContain('FAKE');
    await world.run('apply');
    expect(pending(await world.run('plan'))).toEqual([]);
  });
});
