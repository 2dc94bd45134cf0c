import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEVELOP_JUPYTER_COMMAND, TRAINING_BASE, type TaskDetail } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';
import { commandLines, ideRequest, probeAsOtherUser } from '../../../test/ide';

/**
 * Issue 10, criterion 3 on the embedded default: a develop task with the platform's default command starts
 * Debian's Jupyter Notebook; through the gateway's proxy on the IDE's own origin (ticket hop → cookie) the
 * notebook's REST API starts a kernel, and an execute_request for `2+2` over the kernel's WebSocket —
 * tunnelled by the proxy — answers `4`. Without the cookie the socket is refused; after stop the proxy says
 * 开发环境已停止.
 *
 * Issue 17, criterion 1: Jupyter's token is on no process's command line, and another Linux user on the node
 * — reading every /proc/<pid>/cmdline it can, as `ps` does, and calling Jupyter's API directly on its port —
 * is refused.
 */
describe('Jupyter through the develop-task proxy', () => {
  let t: TestApp;
  let token: string;
  let base: string;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { clock: Date.now });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
    // The origin browsers use, known once listening: the IDE origin (`<task>.ide.localhost:<port>`) follows it.
    t.app.ctx.config.publicUrl = `http://127.0.0.1:${port}`;
    base = `http://127.0.0.1:${port}`;
    token = (await t.app.ctx.sessions.create('u-jupyter')).token;
    await t.app.ctx.clusterAccounts.ensure('u-jupyter', 'sz-a100');
  });
  afterAll(() => t.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));
  const ide = (id: string, p: string, init: Parameters<typeof ideRequest>[3] = {}) => ideRequest(port, id, p, init);

  it('runs 2+2 in a kernel over the proxied WebSocket and ends with the task', async () => {
    const created = await api('POST', '/tasks', {
      name: 'Jupyter',
      type: 'develop',
      subCenterId: 'sz-a100',
      cardTypeId: 'a100-80g',
      cardNum: 1,
      nodeNum: 1,
      imageId: 'pytorch-2.3-cuda12',
      command: DEVELOP_JUPYTER_COMMAND,
      workDir: '/',
      env: [],
      maxDurationMinutes: 30,
    });
    expect(created.message.code, created.message.message).toBe(0);
    const id = created.data.id as string;
    await expect.poll(async () => ((await api('GET', `/tasks/${id}`)).data as TaskDetail).state, { timeout: 30_000 }).toBe('RUNNING');
    await expect.poll(async () => (await api('POST', `/tasks/${id}/ide-ticket`)).message.code, { timeout: 30_000, interval: 300 }).toBe(0);
    const ticketUrl = new URL((await api('POST', `/tasks/${id}/ide-ticket`)).data.url as string);
    expect(ticketUrl.host).toBe(`${id}.ide.localhost:${port}`);
    const hop = await ide(id, ticketUrl.pathname + ticketUrl.search);
    expect(hop.status).toBe(303);
    const cookie = String(hop.headers['set-cookie']).split(';')[0];
    const origin = `http://${id}.ide.localhost:${port}`;

    // Jupyter answers through the proxy once it listens (the job reports its port first).
    await expect.poll(async () => (await ide(id, '/api/status', { headers: { cookie } })).status, { timeout: 60_000, interval: 500 }).toBe(200);
    const tree = await ide(id, '/tree', { headers: { cookie } });
    expect(tree.status).toBe(200);
    expect(tree.text).toContain('Jupyter');

    // Its secret is in its environment and a 0600 file, on no command line (world-readable in /proc).
    const account = (await t.app.ctx.clusterAccounts.list('u-jupyter', 'sz-a100'))[0];
    const endpoint = path.join(account.homeDir, `suanli-${id}.endpoint`);
    expect(fs.statSync(endpoint).mode & 0o777).toBe(0o600);
    const [jupyterPort, secret] = fs.readFileSync(endpoint, 'utf8').trim().split(' ');
    expect(secret).toMatch(/^[0-9a-f]{48}$/);
    const argvs = commandLines();
    expect(argvs.some((a) => a.includes('jupyter'))).toBe(true);
    expect(argvs.filter((a) => a.includes(secret))).toEqual([]);
    // Another account on the node does what `ps` + curl would: every token-looking word of every command line
    // it can read, tried against Jupyter's API on its port, and no token at all. Jupyter refuses each.
    const codes = probeAsOtherUser('nobody', '127.0.0.1', Number(jupyterPort));
    expect(codes.length).toBeGreaterThanOrEqual(1);
    expect(codes.every((c) => c === 403)).toBe(true);

    const kernel = JSON.parse((await ide(id, '/api/kernels', { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: '{}' })).text) as { id: string };
    expect(kernel.id).toBeTruthy();
    const wsUrl = `ws://127.0.0.1:${port}/api/kernels/${kernel.id}/channels`;
    const wsHeaders = { host: `${id}.ide.localhost:${port}` };

    // No cookie: the proxy refuses the upgrade.
    const refused = await new Promise<string>((resolve) => {
      const ws = new WebSocket(wsUrl, { headers: { ...wsHeaders, origin } });
      ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      ws.on('open', () => resolve('open'));
      ws.on('error', () => resolve('error'));
    });
    expect(refused).toBe('403');
    // With the cookie but from another origin (a page elsewhere, another task's IDE): refused too.
    const foreign = await new Promise<string>((resolve) => {
      const ws = new WebSocket(wsUrl, { headers: { ...wsHeaders, cookie, origin: base } });
      ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      ws.on('open', () => resolve('open'));
      ws.on('error', () => resolve('error'));
    });
    expect(foreign).toBe('403');

    const result = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { headers: { ...wsHeaders, cookie, origin } });
      const msgId = randomUUID();
      const timer = setTimeout(() => reject(new Error('no execute_result within 60 s')), 60_000);
      ws.on('error', reject);
      ws.on('open', () =>
        ws.send(
          JSON.stringify({
            header: { msg_id: msgId, username: 'test', session: randomUUID(), msg_type: 'execute_request', version: '5.3', date: new Date().toISOString() },
            parent_header: {},
            metadata: {},
            content: { code: 'print(2+2)', silent: false, store_history: true, user_expressions: {}, allow_stdin: false },
            channel: 'shell',
          }),
        ),
      );
      ws.on('message', (data) => {
        const m = JSON.parse(String(data)) as { msg_type: string; parent_header: { msg_id?: string }; content: { name?: string; text?: string } };
        if (m.parent_header?.msg_id === msgId && m.msg_type === 'stream' && m.content.name === 'stdout') {
          clearTimeout(timer);
          ws.close();
          resolve(String(m.content.text).trim());
        }
      });
    });
    expect(result).toBe('4');

    await api('POST', `/tasks/${id}/stop`);
    await expect.poll(async () => ((await api('GET', `/tasks/${id}`)).data as TaskDetail).state, { timeout: 30_000 }).toBe('STOPPED');
    const after = await ide(id, '/api/status', { headers: { cookie } });
    expect(after.status).toBe(503);
    expect(after.text).toContain('开发环境已停止');
  });
});
