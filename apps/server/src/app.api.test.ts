import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { body, createTestApp, engines, REDIS_URL, type TestApp } from '../test/harness';
import { localWindow } from './plugins/rate-limit';

/** Every call the spec names for the user, message, foundation and order services, as OpenAPI paths. */
const SPEC_PATHS = [
  '/gateway/user/api/v1/user/login',
  '/gateway/user/api/v1/user/register',
  '/gateway/user/api/v1/user/logout',
  '/gateway/user/api/v1/user/password/update',
  '/gateway/user/api/v1/user',
  '/gateway/user/api/v1/user/password/reset',
  '/gateway/user/api/v1/user/code',
  '/gateway/user/api/v1/check_status/user',
  '/gateway/user/api/v1/user/action/update-phone',
  '/gateway/user/api/v1/user/action/bind-email',
  '/gateway/user/api/v1/user/action/upload-avatar',
  '/gateway/user/api/v1/agent/user/get',
  '/gateway/user/api/v1/user/list',
  '/gateway/user/api/v1/user/rsa-key',
  '/gateway/foundation/api/v1/message/query',
  '/gateway/foundation/api/v1/message/unview/count',
  '/gateway/foundation/api/v1/message/view',
  '/gateway/foundation/api/v1/message/view/all',
  '/gateway/foundation/api/v1/sub-centers/action/list',
  '/gateway/foundation/api/v1/dicts/action/query/dict/{dictName}',
  '/gateway/foundation/api/v1/sub-centers/{id}/detail',
  '/gateway/order/api/v1/comp-powers/{userId}',
];

describe.each(engines)('gateway conventions (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { rateLimit: { max: 30, timeWindowMs: 60_000 } });
  });
  afterAll(() => t.close());

  it('serves the OpenAPI document and its explorer at /gateway/docs without a token', async () => {
    const ui = await t.app.inject({ method: 'GET', url: '/gateway/docs' });
    expect([200, 302]).toContain(ui.statusCode);
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/gateway/docs/json' })).body);
    expect(doc.openapi).toMatch(/^3\./);
    const missing = SPEC_PATHS.filter((p) => !doc.paths[p]);
    expect(missing).toEqual([]);
  });

  it('answers malformed JSON with HTTP 400 and the envelope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/user/api/v1/user/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"account":',
    });
    expect(res.statusCode).toBe(400);
    expect(body(res).message.code).toBe(1005);
    expect(body(res).message.message).toBe('请求失败');
  });

  it('answers a body over the limit with HTTP 413 and the envelope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/gateway/user/api/v1/user/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ account: 'x'.repeat(2 * 1024 * 1024), password: 'y' }),
    });
    expect(res.statusCode).toBe(413);
    expect(body(res).message.code).toBe(1310);
  });

  it('rate-limits per IP with HTTP 429, the envelope and a Chinese message', async () => {
    let last = { statusCode: 200, body: '' };
    for (let i = 0; i < 40 && last.statusCode !== 429; i++) {
      last = await t.app.inject({ method: 'GET', url: '/gateway/foundation/api/v1/sub-centers/action/list', remoteAddress: '10.9.8.7' });
    }
    expect(last.statusCode).toBe(429);
    expect(body(last).message).toEqual({ code: 1020, message: '请求过于频繁，请稍后再试' });
    // Another address is not affected.
    const other = await t.app.inject({ method: 'GET', url: '/gateway/foundation/api/v1/sub-centers/action/list', remoteAddress: '10.9.8.8' });
    expect(other.statusCode).toBe(200);
  });

  it('redirects / to the console default route', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/console/training');
  });
});

describe('proxy trust', () => {
  it('ignores X-Forwarded-For by default, so a client cannot pick its own address to dodge the per-IP limit', async () => {
    const t = await createTestApp('sqlite', { rateLimit: { max: 5, timeWindowMs: 60_000 } });
    try {
      let last = 200;
      for (let i = 0; i < 10 && last !== 429; i++) {
        last = (
          await t.app.inject({ method: 'GET', url: '/gateway/user/api/v1/user/rsa-key', remoteAddress: '10.1.1.1', headers: { 'x-forwarded-for': `192.0.2.${i}` } })
        ).statusCode;
      }
      expect(last).toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe('file transfer rate limit', () => {
  it('counts file-service calls against their own, larger per-IP budget', async () => {
    const t = await createTestApp('sqlite', { rateLimit: { max: 3, timeWindowMs: 60_000 } });
    try {
      const api = () => t.app.inject({ method: 'GET', url: '/gateway/user/api/v1/user/rsa-key', remoteAddress: '10.2.2.2' });
      const file = () => t.app.inject({ method: 'GET', url: '/file-service/sz-a100/api/v1/usage', remoteAddress: '10.2.2.2' });
      for (let i = 0; i < 3; i++) expect((await api()).statusCode).toBe(200);
      expect((await api()).statusCode).toBe(429);
      // The API budget is spent, the file budget (20×) is not: 10133 (no token) means it got through the limiter.
      for (let i = 0; i < 10; i++) expect(body(await file()).message.code).toBe(10133);
      let last = 0;
      for (let i = 0; i < 60 && last !== 429; i++) last = (await file()).statusCode;
      expect(last).toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe('console static files', () => {
  it('are never counted against the API rate limit; hashed assets are immutable for a year, index.html is revalidated', async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-console-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>算力调度服务平台</title>');
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'assets/index-Bx1y2z3A.js'), 'export {};');
    const t = await createTestApp('sqlite', { consoleDist: dist, rateLimit: { max: 3, timeWindowMs: 60_000 } });
    try {
      const get = (url: string) => t.app.inject({ method: 'GET', url, remoteAddress: '10.3.3.3' });
      // Far more page loads than the API budget allows, each with its HTML and a script.
      for (let i = 0; i < 20; i++) {
        const html = await get(i % 2 ? '/console/storage' : '/console/');
        expect(html.statusCode).toBe(200);
        expect(html.headers['cache-control']).toBe('no-cache');
        expect(html.headers['content-type']).toContain('text/html');
        const js = await get('/console/assets/index-Bx1y2z3A.js');
        expect(js.statusCode).toBe(200);
        expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      }
      // A script of an older release is a 404, not index.html served under a script's name.
      const gone = await get('/console/assets/index-OLD.js');
      expect(gone.statusCode).toBe(404);
      expect(gone.headers['content-type']).toContain('text/plain');
      // The API budget is untouched by all of that.
      const api = () => get('/gateway/user/api/v1/user/rsa-key');
      for (let i = 0; i < 3; i++) expect((await api()).statusCode).toBe(200);
      expect((await api()).statusCode).toBe(429);
    } finally {
      await t.close();
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});

describe('security headers', () => {
  it('are sent on successes, business errors and transport errors alike', async () => {
    const t = await createTestApp('sqlite');
    try {
      for (const url of ['/gateway/user/api/v1/user/rsa-key', '/gateway/foundation/api/v1/sub-centers/action/list', '/gateway/nothing']) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.headers['content-security-policy']).toContain("default-src 'self'");
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        // Plain HTTP here: HSTS only over HTTPS (security-headers.api.test.ts).
        expect(res.headers['strict-transport-security']).toBeUndefined();
        expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      }
    } finally {
      await t.close();
    }
  });
});

describe('rate limit shared through Redis', () => {
  it('counts one address across two gateway processes', async () => {
    const overrides = { redisUrl: REDIS_URL, rateLimit: { max: 4, timeWindowMs: 60_000 } };
    const a = await createTestApp('sqlite', overrides);
    const b = await createTestApp('sqlite', overrides);
    // A fresh address per run: the counters outlive this test in the shared Redis.
    const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    try {
      const get = (t: TestApp) => t.app.inject({ method: 'GET', url: '/gateway/user/api/v1/user/rsa-key', remoteAddress: ip });
      for (const t of [a, b, a, b]) expect((await get(t)).statusCode).toBe(200);
      const refused = await get(a);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await get(b)).statusCode).toBe(429);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('local rate-limit window', () => {
  it('refuses over the limit until the window ends, then counts afresh; sweeping forgets ended windows', () => {
    let now = 1_000_000;
    const { limiter, sweep } = localWindow(2, 60_000, () => now);
    expect([limiter('k', {} as never), limiter('k', {} as never), limiter('k', {} as never)]).toEqual([0, 0, 60]);
    expect(limiter('other', {} as never)).toBe(0);
    now += 30_000;
    expect(limiter('k', {} as never)).toBe(30);
    now += 30_000;
    expect(limiter('k', {} as never)).toBe(0);
    now += 60_000;
    sweep();
    expect(limiter('k', {} as never)).toBe(0);
  });
});
