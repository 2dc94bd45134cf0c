import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINING_BASE, type TaskDetail } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

/**
 * Develop tasks' IDE behind the gateway on the local executor, both engines (issue 10 item 3; issue 17 items
 * 2 and 3). The "IDE" is a small HTTP server the task starts on the address and port the platform chose; like
 * Jupyter it insists on the token the job was given, which only the proxy adds. Checked: the IDE is served on
 * its own origin (`<task>.ide.localhost`), never under the console's; the single-use ticket hop (an HttpOnly
 * cookie for that host alone, redirect to the IDE's root); streaming both ways with the browser's Host kept;
 * our cookie kept from the IDE; writes from another origin refused; refusals for another user, a forged or
 * reused grant, a logged-out session and a stopped task; and the endpoint file a job (or its user) writes
 * never choosing where the gateway connects.
 */
const IDE = [
  'python3 - <<"PY"',
  'import http.server, json, os',
  'TOKEN = os.environ["SUANLI_IDE_TOKEN"]',
  'class H(http.server.BaseHTTPRequestHandler):',
  '    def reply(self, data):',
  '        if self.headers.get("Authorization") != "token " + TOKEN:',
  '            self.send_response(403); self.end_headers(); self.wfile.write(b"bad token"); return',
  '        body = json.dumps(data).encode()',
  '        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)',
  '    def do_GET(self):',
  '        self.reply({"path": self.path, "host": self.headers.get("Host"), "cookie": self.headers.get("Cookie", "")})',
  '    def do_POST(self):',
  '        n = int(self.headers.get("Content-Length", "0"))',
  '        self.reply({"path": self.path, "echo": self.rfile.read(n).decode()})',
  '    def log_message(self, *a): pass',
  'http.server.ThreadingHTTPServer((os.environ["SUANLI_IDE_HOST"], int(os.environ["SUANLI_IDE_PORT"])), H).serve_forever()',
  'PY',
].join('\n');

describe.each(engines)('develop task IDE proxy (%s)', (engine) => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;
  let taskId: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    tokenA = (await t.app.ctx.sessions.create('u-ide-a')).token;
    tokenB = (await t.app.ctx.sessions.create('u-ide-b')).token;
    await t.app.ctx.clusterAccounts.ensure('u-ide-a', 'sz-a100');
  });
  afterAll(() => t.close());

  const api = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    t.app.inject({ method, url: `${TRAINING_BASE}${url}`, payload, headers: { token } }).then((r) => body(r));
  /** A request as a browser on the IDE's origin sends it (Host = the task's IDE host). */
  const proxied = (id: string, url: string, cookie?: string, init: { method?: 'GET' | 'POST'; payload?: string; origin?: string } = {}) =>
    t.app.inject({
      method: init.method ?? 'GET',
      url,
      payload: init.payload,
      headers: { host: `${id}.ide.localhost`, ...(cookie ? { cookie } : {}), ...(init.payload ? { 'content-type': 'text/plain' } : {}), ...(init.origin ? { origin: init.origin } : {}) },
    });
  const develop = (command: string) =>
    api('POST', '/tasks', tokenA, { name: '开发环境', type: 'develop', subCenterId: 'sz-a100', cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1, imageId: 'pytorch-2.3-cuda12', command, workDir: '/', env: [], maxDurationMinutes: 30 });
  const running = (id: string) => expect.poll(async () => ((await api('GET', `/tasks/${id}`, tokenA)).data as TaskDetail).state, { timeout: 20_000 }).toBe('RUNNING');

  async function ticket(token: string, id = taskId): Promise<string> {
    await expect.poll(async () => (await api('POST', `/tasks/${id}/ide-ticket`, token)).message.code, { timeout: 20_000, interval: 200 }).toBe(0);
    return (await api('POST', `/tasks/${id}/ide-ticket`, token)).data.url as string;
  }
  async function openAs(token: string, id = taskId) {
    const url = await ticket(token, id);
    const u = new URL(url);
    return { url, first: await proxied(id, u.pathname + u.search) };
  }

  it('serves the IDE on its own origin through a single-use ticket, then a host-only cookie; requests stream to the IDE with its token', async () => {
    const created = await develop(IDE);
    expect(created.message.code, created.message.message).toBe(0);
    taskId = created.data.id;
    await running(taskId);
    // Where the job runs, as the scheduler says: the proxy's only target.
    const row = await t.app.ctx.db.selectFrom('tasks').select('exec_host').where('id', '=', taskId).executeTakeFirstOrThrow();
    expect(row.exec_host).toBe('127.0.0.1');

    const { url, first } = await openAs(tokenA);
    expect(url).toMatch(new RegExp(`^http://${taskId}\\.ide\\.localhost/__suanli/open\\?ticket=[A-Za-z0-9_-]{43}$`));
    expect(first.statusCode, first.body).toBe(303);
    expect(first.headers.location).toBe('/');
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toContain('Path=/;');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).not.toContain('Domain=');
    const cookie = setCookie.split(';')[0];
    const records = () => t.app.ctx.db.selectFrom('access_sessions').selectAll().where('kind', '=', 'proxy').where('target', '=', taskId).orderBy('start_time').orderBy('id').execute();
    expect(await records()).toEqual([expect.objectContaining({ user_id: 'u-ide-a', sub_center_id: 'sz-a100', account: expect.stringMatching(/^szu/), end_time: null })]);
    // A ticket works once: the same link again (another tab, another client) is refused.
    const again = await proxied(taskId, new URL(url).pathname + new URL(url).search);
    expect(again.statusCode).toBe(403);
    expect(again.body).toContain('访问链接已失效');
    expect(await records()).toHaveLength(1);

    // The IDE may take a moment to listen: 502 with a Chinese "starting" page until then.
    await expect.poll(async () => (await proxied(taskId, '/', cookie)).statusCode, { timeout: 20_000, interval: 200 }).toBe(200);
    const page = await proxied(taskId, '/tree?x=1', `${cookie}; other=1`);
    expect(page.statusCode, page.body).toBe(200);
    // The IDE sees its own path from the root, the browser's Host, never our cookie, and got its token from the proxy.
    expect(JSON.parse(page.body)).toEqual({ path: '/tree?x=1', host: `${taskId}.ide.localhost`, cookie: 'other=1' });
    const origin = `http://${taskId}.ide.localhost`;
    const post = await proxied(taskId, '/api/echo', cookie, { method: 'POST', payload: '你好，内核', origin });
    expect(JSON.parse(post.body)).toEqual({ path: '/api/echo', echo: '你好，内核' });
    // Writes from any other origin — the console, another task's IDE (the same site) — are refused here.
    for (const o of ['http://127.0.0.1', `http://zz${taskId}.ide.localhost`, 'null']) {
      const r = await proxied(taskId, '/api/echo', cookie, { method: 'POST', payload: 'x', origin: o });
      expect(r.statusCode, o).toBe(403);
      expect(r.body).toContain('请求来源不是该开发环境本身');
    }

    // The IDE is nowhere on the console's origin: neither the old path nor the internal route prefix.
    for (const p of [`/gateway/training/proxy/${taskId}/tree`, `/__ide/${taskId}/tree`]) {
      const r = await t.app.inject({ method: 'GET', url: p, headers: { cookie } });
      expect(r.statusCode, p).toBe(404);
      expect(r.body).not.toContain('"path"');
    }

    // Refusals, each a Chinese page: no cookie, a forged one, the ticket replayed as a cookie, the cookie on
    // another task's host, another user.
    // The signature's last character with only its unused low bit changed: the same bytes when decoded.
    const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBytes = cookie.replace(/.$/, (ch) => B64URL[B64URL.indexOf(ch) ^ 1]);
    for (const c of [undefined, cookie.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')), sameBytes, `${cookie}.x`, `suanli_ide=${url.split('ticket=')[1]}`]) {
      const r = await proxied(taskId, '/tree', c);
      expect(r.statusCode).toBe(403);
      expect(r.body).toContain('无权访问该开发环境');
      // The way back for someone who may not see the task: the console (another origin), not the task's page.
      expect(r.body).toContain('<a href="http://127.0.0.1/console/" ');
    }
    // Another task's host (its id differs in the last character) with this task's cookie.
    const otherId = taskId.slice(0, -1) + (taskId.endsWith('a') ? 'b' : 'a');
    expect((await proxied(otherId, '/tree', cookie)).statusCode).toBe(403);
    expect((await api('POST', `/tasks/${taskId}/ide-ticket`, tokenB)).message.code).toBe(1205);
    // SSH into the job is offered on Slurm centers (ide.slurm.int.test.ts); a local one says so, in Chinese.
    const ssh = await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${taskId}/ssh`, headers: { token: tokenA } }).then((r) => body(r));
    expect(ssh.message).toMatchObject({ code: 2251, message: '本地执行的开发环境不提供 SSH 登录，请使用 Shell工具 或 打开 IDE' });
    expect((await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${taskId}/ssh`, headers: { token: tokenB } }).then((r) => body(r))).message.code).toBe(1205);

    // Logged out: the cookie dies with the session.
    const other = (await t.app.ctx.sessions.create('u-ide-a')).token;
    const second = (await openAs(other)).first;
    const cookie2 = String(second.headers['set-cookie']).split(';')[0];
    expect((await proxied(taskId, '/tree', cookie2)).statusCode).toBe(200);
    await t.app.ctx.sessions.revokeToken(other, 'logout');
    expect((await proxied(taskId, '/tree', cookie2)).statusCode).toBe(403);
    expect((await records()).map((r) => r.end_reason).sort()).toEqual(['', 'revoked']);

    // Stopped: the IDE is gone and the proxy says so.
    await api('POST', `/tasks/${taskId}/stop`, tokenA);
    await expect.poll(async () => ((await api('GET', `/tasks/${taskId}`, tokenA)).data as TaskDetail).state, { timeout: 30_000 }).toBe('STOPPED');
    const gone = await proxied(taskId, '/tree', cookie);
    expect(gone.statusCode).toBe(503);
    expect(gone.body).toContain('开发环境已停止');
    expect(gone.body).toContain(`<a href="http://127.0.0.1/console/training/detail/develop/${taskId}" `);
    expect(gone.body).toContain('返回任务详情');
    expect((await api('POST', `/tasks/${taskId}/ide-ticket`, tokenA)).message.code).toBe(2011);
    // Every proxy session is recorded and ended (criterion 5).
    const ended = await records();
    expect(ended.map((r) => r.end_reason).sort()).toEqual(['revoked', 'stopped']);
    expect(ended.every((r) => r.end_time !== null)).toBe(true);
  });

  it('never connects where the endpoint file points: another host or a privileged port', async () => {
    // Listeners the gateway must never reach: a port on another loopback address, and a privileged one.
    const hits: string[] = [];
    const listen = (host: string, port: number) =>
      new Promise<net.Server>((resolve, reject) => {
        const srv = net.createServer((c) => {
          hits.push(`${host}:${port}`);
          c.destroy();
        });
        srv.once('error', reject).listen(port, host, () => resolve(srv));
      });
    const elsewhere = await listen('127.0.0.2', 0);
    const elsewherePort = (elsewhere.address() as net.AddressInfo).port;
    // Any free port below 1024 (the tests run as root).
    let privileged: net.Server | null = null;
    for (let p = 1023; p > 900 && !privileged; p--) privileged = await listen('127.0.0.1', p).catch(() => null);
    if (!privileged) throw new Error('no free privileged port');
    const privilegedPort = (privileged.address() as net.AddressInfo).port;
    try {
      const created = await develop('sleep 600');
      expect(created.message.code, created.message.message).toBe(0);
      const id = created.data.id as string;
      await running(id);
      const url = await ticket(tokenA, id);
      const u = new URL(url);
      const cookie = String((await proxied(id, u.pathname + u.search)).headers['set-cookie']).split(';')[0];
      // The user rewrites the job's endpoint file (it is in their home, writable through the file service).
      const account = (await t.app.ctx.clusterAccounts.list('u-ide-a', 'sz-a100'))[0];
      const file = path.join(account.homeDir, `suanli-${id}.endpoint`);
      const token = 'a'.repeat(48);
      for (const [text, what] of [
        [`127.0.0.2 ${elsewherePort} ${token}`, 'a host of their choosing (the old three-field format)'],
        [`${elsewherePort} ${token} 127.0.0.2`, 'a host after the port'],
        [`${privilegedPort} ${token}`, 'a privileged port'],
        [`0 ${token}`, 'port 0'],
        [`70000 ${token}`, 'a port out of range'],
      ] as const) {
        fs.writeFileSync(file, `${text}\n`);
        const r = await proxied(id, '/api/terminals', cookie);
        expect(r.statusCode, what).toBe(503);
        expect(r.body, what).toContain('开发环境');
      }
      // A valid port: the gateway goes to the allocated node (loopback here), not to 127.0.0.2.
      fs.writeFileSync(file, `${elsewherePort} ${token}\n`);
      const r = await proxied(id, '/api/terminals', cookie);
      expect([502, 200, 403, 404]).toContain(r.statusCode);
      expect(hits).toEqual([]);
      await api('POST', `/tasks/${id}/stop`, tokenA);
    } finally {
      elsewhere.close();
      privileged.close();
    }
  });
});
