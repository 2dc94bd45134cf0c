import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDE_PROXY_BASE, TRAINING_BASE, type TaskDetail } from '@suanli/contracts';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';

/**
 * Develop tasks' IDE behind the gateway (issue 10 item 3) on the local executor, both engines. The "IDE" is a
 * small HTTP server the task starts on the port the platform chose; like Jupyter it insists on the token the
 * job was given, which only the proxy adds. Checked: the ticket hop (cookie scoped to the task's path,
 * redirect to a clean URL), streaming both ways, our cookie kept from the IDE, refusals for another user, a
 * forged or reused grant, a logged-out session and a stopped task.
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
  '        self.reply({"path": self.path, "cookie": self.headers.get("Cookie", "")})',
  '    def do_POST(self):',
  '        n = int(self.headers.get("Content-Length", "0"))',
  '        self.reply({"path": self.path, "echo": self.rfile.read(n).decode()})',
  '    def log_message(self, *a): pass',
  'http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ["SUANLI_IDE_PORT"])), H).serve_forever()',
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
  const proxied = (url: string, cookie?: string, init: { method?: 'GET' | 'POST'; payload?: string } = {}) =>
    t.app.inject({ method: init.method ?? 'GET', url, payload: init.payload, headers: { ...(cookie ? { cookie } : {}), ...(init.payload ? { 'content-type': 'text/plain' } : {}) } });

  async function openAs(token: string) {
    const res = await expect
      .poll(async () => (await api('POST', `/tasks/${taskId}/ide-ticket`, token)).message.code, { timeout: 20_000, interval: 200 })
      .toBe(0)
      .then(() => api('POST', `/tasks/${taskId}/ide-ticket`, token));
    const first = await proxied(res.data.url);
    return { url: res.data.url as string, first };
  }

  it('opens the IDE through a ticket hop, then a path-scoped cookie; requests stream to the IDE with its token', async () => {
    const created = await api('POST', '/tasks', tokenA, {
      name: '开发环境',
      type: 'develop',
      subCenterId: 'sz-a100',
      cardTypeId: 'a100-80g',
      cardNum: 1,
      nodeNum: 1,
      imageId: 'pytorch-2.3-cuda12',
      command: IDE,
      workDir: '/',
      env: [],
      maxDurationMinutes: 30,
    });
    expect(created.message.code, created.message.message).toBe(0);
    taskId = created.data.id;
    await expect.poll(async () => ((await api('GET', `/tasks/${taskId}`, tokenA)).data as TaskDetail).state, { timeout: 20_000 }).toBe('RUNNING');

    const { url, first } = await openAs(tokenA);
    expect(url).toBe(`${IDE_PROXY_BASE}/${taskId}/?ticket=${url.split('ticket=')[1]}`);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(`${IDE_PROXY_BASE}/${taskId}/`);
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toContain(`Path=${IDE_PROXY_BASE}/${taskId}/`);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    const cookie = setCookie.split(';')[0];
    const records = () => t.app.ctx.db.selectFrom('access_sessions').selectAll().where('kind', '=', 'proxy').where('target', '=', taskId).orderBy('start_time').orderBy('id').execute();
    expect(await records()).toEqual([expect.objectContaining({ user_id: 'u-ide-a', sub_center_id: 'sz-a100', account: expect.stringMatching(/^szu/), end_time: null })]);

    // The job reports its address before the IDE listens: 502 with a Chinese "starting" page until then.
    await expect.poll(async () => (await proxied(`${IDE_PROXY_BASE}/${taskId}/`, cookie)).statusCode, { timeout: 20_000, interval: 200 }).toBe(200);
    const page = await proxied(`${IDE_PROXY_BASE}/${taskId}/tree?x=1`, `${cookie}; other=1`);
    expect(page.statusCode, page.body).toBe(200);
    // The IDE sees its full path (Jupyter's base_url), never our cookie, and got its token from the proxy.
    expect(JSON.parse(page.body)).toEqual({ path: `${IDE_PROXY_BASE}/${taskId}/tree?x=1`, cookie: 'other=1' });
    const post = await proxied(`${IDE_PROXY_BASE}/${taskId}/api/echo`, cookie, { method: 'POST', payload: '你好，内核' });
    expect(JSON.parse(post.body)).toEqual({ path: `${IDE_PROXY_BASE}/${taskId}/api/echo`, echo: '你好，内核' });

    // Refusals, each a Chinese page: no cookie, a forged one, the ticket replayed as a cookie, another user.
    // The signature's last character with only its unused low bit changed: the same bytes when decoded.
    const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBytes = cookie.replace(/.$/, (ch) => B64URL[B64URL.indexOf(ch) ^ 1]);
    for (const c of [undefined, cookie.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')), sameBytes, `${cookie}.x`, `suanli_ide=${url.split('ticket=')[1]}`]) {
      const r = await proxied(`${IDE_PROXY_BASE}/${taskId}/tree`, c);
      expect(r.statusCode).toBe(403);
      expect(r.body).toContain('无权访问该开发环境');
      // The way back for someone who may not see the task: the console, not the task's page.
      expect(r.body).toContain('<a href="/console/" ');
    }
    expect((await api('POST', `/tasks/${taskId}/ide-ticket`, tokenB)).message.code).toBe(1205);
    // SSH into the job is offered on Slurm centers (ide.slurm.int.test.ts); a local one says so, in Chinese.
    const ssh = await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${taskId}/ssh`, headers: { token: tokenA } }).then((r) => body(r));
    expect(ssh.message).toMatchObject({ code: 2251, message: '本地执行的开发环境不提供 SSH 登录，请使用 Shell工具 或 打开 IDE' });
    expect((await t.app.inject({ method: 'GET', url: `${TRAINING_BASE}/tasks/${taskId}/ssh`, headers: { token: tokenB } }).then((r) => body(r))).message.code).toBe(1205);

    // Logged out: the cookie dies with the session.
    const other = (await t.app.ctx.sessions.create('u-ide-a')).token;
    const second = (await openAs(other)).first;
    const cookie2 = String(second.headers['set-cookie']).split(';')[0];
    expect((await proxied(`${IDE_PROXY_BASE}/${taskId}/tree`, cookie2)).statusCode).toBe(200);
    await t.app.ctx.sessions.revokeToken(other, 'logout');
    expect((await proxied(`${IDE_PROXY_BASE}/${taskId}/tree`, cookie2)).statusCode).toBe(403);
    expect((await records()).map((r) => r.end_reason).sort()).toEqual(['', 'revoked']);

    // Stopped: the IDE is gone and the proxy says so.
    await api('POST', `/tasks/${taskId}/stop`, tokenA);
    await expect.poll(async () => ((await api('GET', `/tasks/${taskId}`, tokenA)).data as TaskDetail).state, { timeout: 30_000 }).toBe('STOPPED');
    const gone = await proxied(`${IDE_PROXY_BASE}/${taskId}/tree`, cookie);
    expect(gone.statusCode).toBe(503);
    expect(gone.body).toContain('开发环境已停止');
    expect(gone.body).toContain(`<a href="/console/training/detail/develop/${taskId}" `);
    expect(gone.body).toContain('返回任务详情');
    expect((await api('POST', `/tasks/${taskId}/ide-ticket`, tokenA)).message.code).toBe(2011);
    // Every proxy session is recorded and ended (criterion 5).
    const ended = await records();
    expect(ended.map((r) => r.end_reason).sort()).toEqual(['revoked', 'stopped']);
    expect(ended.every((r) => r.end_time !== null)).toBe(true);
  });
});
