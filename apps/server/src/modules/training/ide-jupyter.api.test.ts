import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEVELOP_JUPYTER_COMMAND, IDE_PROXY_BASE, TRAINING_BASE, type TaskDetail } from '@suanli/contracts';
import { body, createTestApp, type TestApp } from '../../../test/harness';

/**
 * Issue 10, criterion 3 on the embedded default: a develop task with the platform's default command starts
 * Debian's Jupyter Notebook; through the gateway's proxy (ticket hop → cookie) the notebook's REST API starts
 * a kernel, and an execute_request for `2+2` over the kernel's WebSocket — tunnelled by the proxy — answers
 * `4`. Without the cookie the socket is refused; after stop the proxy says 开发环境已停止.
 */
describe('Jupyter through the develop-task proxy', () => {
  let t: TestApp;
  let token: string;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { clock: Date.now });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    token = (await t.app.ctx.sessions.create('u-jupyter')).token;
    await t.app.ctx.clusterAccounts.ensure('u-jupyter', 'sz-a100');
  });
  afterAll(() => t.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));

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
    const hop = await fetch(base + (await api('POST', `/tasks/${id}/ide-ticket`)).data.url, { redirect: 'manual' });
    expect(hop.status).toBe(303);
    const cookie = String(hop.headers.get('set-cookie')).split(';')[0];
    const root = `${base}${IDE_PROXY_BASE}/${id}/`;

    // Jupyter answers through the proxy once it listens (the job reports its port first).
    await expect.poll(async () => (await fetch(`${root}api/status`, { headers: { cookie } })).status, { timeout: 60_000, interval: 500 }).toBe(200);
    const tree = await fetch(`${root}tree`, { headers: { cookie } });
    expect(tree.status).toBe(200);
    expect(await tree.text()).toContain('Jupyter');

    const kernel = (await (await fetch(`${root}api/kernels`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' })).json()) as { id: string };
    expect(kernel.id).toBeTruthy();
    const wsUrl = `${root.replace(/^http/, 'ws')}api/kernels/${kernel.id}/channels`;

    // No cookie: the proxy refuses the upgrade.
    const refused = await new Promise<string>((resolve) => {
      const ws = new WebSocket(wsUrl);
      ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
      ws.on('open', () => resolve('open'));
      ws.on('error', () => resolve('error'));
    });
    expect(refused).toBe('403');

    const result = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { headers: { cookie, origin: base } });
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
    const after = await fetch(`${root}api/status`, { headers: { cookie } });
    expect(after.status).toBe(503);
    expect(await after.text()).toContain('开发环境已停止');
  });
});
