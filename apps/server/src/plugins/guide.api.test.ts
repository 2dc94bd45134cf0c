import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGuide, GUIDE_SRC } from '../../../../scripts/build-guide.mjs';
import { createTestApp, engines, type TestApp } from '../../test/harness';

/** Every asset a page refers to (stylesheet, screenshots), as URLs under /guide/. */
const assetsOf = (html: string) => [...html.matchAll(/(?:href|src)="(assets\/[^"]+)"/g)].map((m) => `/guide/${m[1]}`);

describe.each(engines)('user guide at /guide (%s)', (engine) => {
  let t: TestApp;
  let out: string;
  const RATE_MAX = 8;
  beforeAll(async () => {
    // The real guide, rendered from docs/guide the way `npm run build` does, into a folder of this test.
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-guide-'));
    buildGuide({ outDir: out });
    t = await createTestApp(engine, { guideDist: out, rateLimit: { max: RATE_MAX, timeWindowMs: 60_000 } });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('serves the index and every feature page without a token: 200, Chinese HTML, revalidated on each visit', async () => {
    const index = await t.app.inject({ method: 'GET', url: '/guide/' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers.etag).toBeTruthy();
    expect(index.body).toContain('<html lang="zh-CN">');
    expect(index.body).toContain('<h1>用户指南</h1>');
    expect(index.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');

    // The page the header's 剩余算力 links to (apps/console/src/app/config.ts COMP_POWER_URL).
    const power = await t.app.inject({ method: 'GET', url: '/guide/compute-power.html' });
    expect(power.statusCode).toBe(200);
    expect(power.body).toContain('<h1>算力</h1>');
    expect(power.body).toContain('1 张加速卡运行 1 小时 = 1 卡时');
    expect(power.body).toContain('<h2 id="卡时">卡时</h2>');
    // 购买算力 / 订单明细 / 费用明细 open the console's pages (issue 19: they pointed at /pay outside it).
    for (const page of ['pay', 'order', 'expense']) expect(power.body).toContain(`href="/console/${page}"`);
    expect(power.body).not.toMatch(/href="\/(?:pay|order|expense)"/);

    for (const [page, heading] of [
      ['account', '登录与注册'],
      ['profile', '个人信息'],
      ['messages', '消息中心'],
      ['storage', '存储管理'],
      ['centers', '算力分中心'],
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `/guide/${page}.html` });
      expect(res.statusCode, page).toBe(200);
      expect(res.body, page).toContain(`<h1>${heading}</h1>`);
      // The navigation links every page, and links between pages point at the rendered .html.
      expect(res.body).toContain('href="compute-power.html"');
      expect(res.body).not.toMatch(/href="[^"]*\.md[#"]/);
    }
    const storage = await t.app.inject({ method: 'GET', url: '/guide/storage.html' });
    expect(storage.body).toContain('断点续传');

    // An unchanged page costs a 304.
    const again = await t.app.inject({ method: 'GET', url: '/guide/', headers: { 'if-none-match': String(index.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('pages carry no script, and the security headers forbid any inline one', async () => {
    for (const file of fs.readdirSync(out).filter((f) => f.endsWith('.html'))) {
      const html = (await t.app.inject({ method: 'GET', url: `/guide/${file}` })).body;
      expect(html, file).not.toMatch(/<script|javascript:|\son[a-z]+=/i);
    }
    const res = await t.app.inject({ method: 'GET', url: '/guide/' });
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves the stylesheet and the screenshots as immutable, content-hashed files', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/guide/storage.html' })).body;
    const assets = assetsOf(html);
    expect(assets.some((a) => /\/guide\/assets\/guide\.[0-9a-f]{10}\.css$/.test(a))).toBe(true);
    expect(assets.filter((a) => a.endsWith('.png')).length).toBeGreaterThanOrEqual(3);
    for (const url of assets) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type'], url).toMatch(url.endsWith('.css') ? /^text\/css/ : /^image\/png/);
    }
  });

  it('never counts guide pages and assets against the per-IP API limit', async () => {
    const ip = '10.7.7.7';
    const html = (await t.app.inject({ method: 'GET', url: '/guide/storage.html', remoteAddress: ip })).body;
    const urls = ['/guide/', '/guide/index.html', '/guide/compute-power.html', ...assetsOf(html)];
    // Far more than the API budget of this app: a reader clicking through the guide with its images.
    for (let round = 0; round < 3; round++) {
      for (const url of urls) expect((await t.app.inject({ method: 'GET', url, remoteAddress: ip })).statusCode, url).toBe(200);
    }
    expect(urls.length * 3).toBeGreaterThan(RATE_MAX);
    // The API budget of that address is untouched...
    const api = () => t.app.inject({ method: 'GET', url: '/gateway/user/api/v1/user/rsa-key', remoteAddress: ip });
    for (let i = 0; i < RATE_MAX; i++) expect((await api()).statusCode).toBe(200);
    // ...and still enforced.
    expect((await api()).statusCode).toBe(429);
  });

  it('redirects /guide to /guide/ and answers an unknown page with a Chinese page, not the API envelope', async () => {
    const bare = await t.app.inject({ method: 'GET', url: '/guide' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/guide/');

    for (const url of ['/guide/no-such-page.html', '/guide/assets/']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toContain('您访问的指南页面不存在');
    }
    // Nothing outside the built guide is reachable through it.
    for (const url of ['/guide/../package.json', '/guide/%2e%2e/%2e%2e/package.json', '/guide/..%2f..%2fpackage.json']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('workspaces');
    }
  });
});

describe('guide build (scripts/build-guide.mjs)', () => {
  let src: string;
  let out: string;
  beforeAll(() => {
    src = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-guide-src-'));
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-guide-out-'));
    fs.copyFileSync(path.join(GUIDE_SRC, 'guide.css'), path.join(src, 'guide.css'));
  });
  afterAll(() => {
    fs.rmSync(src, { recursive: true, force: true });
    fs.rmSync(out, { recursive: true, force: true });
  });
  const write = (pages: Record<string, string>) => {
    for (const f of fs.readdirSync(src)) if (f.endsWith('.md')) fs.rmSync(path.join(src, f));
    for (const [name, text] of Object.entries(pages)) fs.writeFileSync(path.join(src, name), text);
  };

  it('escapes HTML written in the Markdown and drops script links: a page can never run a script', async () => {
    write({
      'index.md': [
        '# 首页 <script>alert(1)</script>',
        '',
        '<script>alert(2)</script>',
        '',
        '<img src="x" onerror="alert(3)">',
        '',
        '[点我](javascript:alert(4)) [数据](data:text/html;base64,PHNjcmlwdD4=) [下一页](next.md)',
        '',
        '<a href="javascript:alert(5)">链接</a>',
      ].join('\n'),
      'next.md': '# 下一页\n\n正文',
    });
    buildGuide({ srcDir: src, outDir: out });
    const t = await createTestApp('sqlite', { guideDist: out });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/guide/' });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toMatch(/<script|<img|<a href="(?:javascript|data):|\son[a-z]+="/i);
      expect(res.body).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
      expect(res.body).toContain('&lt;img src=&quot;x&quot; onerror=&quot;alert(3)&quot;&gt;');
      // The title is escaped in <title> too.
      expect(res.body).toContain('<title>算力调度服务平台 用户指南</title>');
      expect(res.body).toContain('<h1>首页 &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
      expect(res.body).toContain('<a href="next.html">下一页</a>');
      expect((await t.app.inject({ method: 'GET', url: '/guide/next.html' })).body).toContain('<title>下一页 - 算力调度服务平台 用户指南</title>');
    } finally {
      await t.close();
    }
  });

  it('refuses a broken guide: a page missing from the index, a dead link, a missing image', () => {
    write({ 'index.md': '# 首页', 'lost.md': '# 孤立页面' });
    expect(() => buildGuide({ srcDir: src, outDir: out })).toThrow(/not linked from index\.md: lost\.md/);
    write({ 'index.md': '# 首页\n\n[去](gone.md)' });
    expect(() => buildGuide({ srcDir: src, outDir: out })).toThrow(/does not exist: gone\.md/);
    write({ 'index.md': '# 首页\n\n[去](next.md#不存在)', 'next.md': '# 下一页\n\n## 存在' });
    expect(() => buildGuide({ srcDir: src, outDir: out })).toThrow(/sections that do not exist/);
    write({ 'index.md': '# 首页\n\n![图](images/none.png)' });
    expect(() => buildGuide({ srcDir: src, outDir: out })).toThrow(/image not found/);
    // A console page outside /console/ (the gateway answers JSON 1205 there, not the page).
    write({ 'index.md': '# 首页\n\n[购买算力](/pay)' });
    expect(() => buildGuide({ srcDir: src, outDir: out })).toThrow(/must start with \/console\/ or \/guide\/: \/pay/);
  });
});
