import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, createTestApp, engines, type TestApp } from '../../../test/harness';
import { call, registerAndLogin } from '../../../test/users';

/** Real images (the server decodes and re-encodes what it stores). */
const picture = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } });
const [PNG, JPEG, WEBP] = await Promise.all([picture(32, 32).png().toBuffer(), picture(32, 32).jpeg().toBuffer(), picture(32, 32).webp().toBuffer()]);

/** A multipart/form-data body with one file part (and optional text fields). */
function multipart(file: { field?: string; name: string; type: string; bytes: Buffer } | null, fields: Record<string, string> = {}) {
  const boundary = `----suanli${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe.each(engines)('avatar (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine);
  });
  afterAll(() => t.close());

  const upload = async (token: string | undefined, file: Parameters<typeof multipart>[0], fields?: Record<string, string>) => {
    const { payload, headers } = multipart(file, fields);
    const res = await t.app.inject({ method: 'POST', url: '/gateway/user/api/v1/user/action/upload-avatar', payload, headers: { ...headers, ...(token ? { token } : {}) } });
    return { status: res.statusCode, ...body(res) };
  };

  it('stores a PNG, shows it in UserInfo and serves it publicly with its type and nosniff', async () => {
    const a = await registerAndLogin(t.app);
    const res = await upload(a.token, { name: 'me.png', type: 'image/png', bytes: PNG });
    expect(res.message.code).toBe(0);
    expect(res.data.headImage).toMatch(/^\/gateway\/user\/api\/v1\/avatar\/[0-9a-f]{32}\.png$/);
    expect((await call(t.app, 'GET', 'user', { token: a.token })).data.headImage).toBe(res.data.headImage);
    const file = path.join(t.dataDir, 'avatars', path.basename(res.data.headImage));
    const stored = fs.readFileSync(file);
    expect(await sharp(stored).metadata()).toMatchObject({ format: 'png', width: 32, height: 32 });

    const served = await t.app.inject({ method: 'GET', url: res.data.headImage });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.rawPayload).toEqual(stored);
  });

  it('takes the type from the content, not the name or declared type', async () => {
    const a = await registerAndLogin(t.app);
    const jpegNamedPng = await upload(a.token, { name: 'photo.png', type: 'image/png', bytes: JPEG });
    expect(jpegNamedPng.message.code).toBe(0);
    expect(jpegNamedPng.data.headImage).toMatch(/\.jpg$/);
    const served = await t.app.inject({ method: 'GET', url: jpegNamedPng.data.headImage });
    expect(served.headers['content-type']).toBe('image/jpeg');

    const webp = await upload(a.token, { name: 'x.bin', type: 'application/octet-stream', bytes: WEBP });
    expect(webp.data.headImage).toMatch(/\.webp$/);
    expect((await t.app.inject({ method: 'GET', url: webp.data.headImage })).headers['content-type']).toBe('image/webp');
  });

  it('refuses content that is not PNG/JPEG/WebP (1311) whatever it is called, and keeps the old avatar', async () => {
    const a = await registerAndLogin(t.app);
    const first = await upload(a.token, { name: 'ok.png', type: 'image/png', bytes: PNG });
    for (const bytes of [Buffer.from('<html><script>alert(1)</script></html>'), Buffer.from('GIF89a-not-allowed'), Buffer.alloc(0), Buffer.from([0x89, 0x50])]) {
      const res = await upload(a.token, { name: 'evil.png', type: 'image/png', bytes });
      expect(res.status).toBe(200);
      expect(res.message).toEqual({ code: 1311, message: '不支持的文件类型，头像仅支持 PNG、JPEG、WebP 图片' });
    }
    expect((await call(t.app, 'GET', 'user', { token: a.token })).data.headImage).toBe(first.data.headImage);
    expect(fs.readdirSync(path.join(t.dataDir, 'avatars')).filter((n) => !n.startsWith('.')).length).toBeGreaterThan(0);
  });

  it('refuses more than 2 MiB (1310) and accepts exactly 2 MiB', async () => {
    const a = await registerAndLogin(t.app);
    const exact = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024 - PNG.length)]);
    const accepted = await upload(a.token, { name: 'big.png', type: 'image/png', bytes: exact });
    expect(accepted.message.code).toBe(0);
    // What is stored is the image, not the 2 MiB sent.
    expect(fs.statSync(path.join(t.dataDir, 'avatars', path.basename(accepted.data.headImage))).size).toBeLessThan(10_000);
    const over = Buffer.concat([exact, Buffer.alloc(1)]);
    const res = await upload(a.token, { name: 'big.png', type: 'image/png', bytes: over });
    expect(res.status).toBe(200);
    expect(res.message).toEqual({ code: 1310, message: '文件过大，头像不能超过 2 MB' });
  });

  it('answers 1005 naming file when there is no file part, another field name, or no multipart at all', async () => {
    const a = await registerAndLogin(t.app);
    const none = await upload(a.token, null, { note: 'x' });
    expect(none.message.code).toBe(1005);
    expect(none.message.message).toContain('file');
    const other = await upload(a.token, { field: 'avatar', name: 'a.png', type: 'image/png', bytes: PNG });
    expect(other.message.code).toBe(1005);
    expect(other.message.message).toContain('file');
    const json = await call(t.app, 'POST', 'user/action/upload-avatar', { token: a.token, payload: { file: 'x' } });
    expect(json.message.code).toBe(1005);
    expect(json.message.message).toContain('file');
  });

  it("replaces the caller's avatar only, deleting the previous file", async () => {
    const a = await registerAndLogin(t.app);
    const b = await registerAndLogin(t.app);
    const bAvatar = (await upload(b.token, { name: 'b.png', type: 'image/png', bytes: PNG })).data.headImage;
    const first = (await upload(a.token, { name: 'a.png', type: 'image/png', bytes: PNG })).data.headImage;
    const second = (await upload(a.token, { name: 'a.jpg', type: 'image/jpeg', bytes: JPEG })).data.headImage;
    expect(second).not.toBe(first);
    expect((await t.app.inject({ method: 'GET', url: first })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: second })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', 'user', { token: b.token })).data.headImage).toBe(bAvatar);
    expect((await t.app.inject({ method: 'GET', url: bAvatar })).statusCode).toBe(200);
  });

  it('serves nothing for unknown or malformed names', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: `/gateway/user/api/v1/avatar/${'0'.repeat(32)}.png` });
    expect(unknown.statusCode).toBe(404);
    expect(body(unknown).message.code).toBe(1205);
    for (const name of ['..%2F..%2Fsuanli.db', 'x.html', `${'0'.repeat(32)}.svg`]) {
      const res = await t.app.inject({ method: 'GET', url: `/gateway/user/api/v1/avatar/${name}` });
      expect(res.headers['content-type']).toContain('application/json');
      expect(body(res).message.code).not.toBe(0);
    }
  });

  /** Issue 7's probe: avatars were stored byte for byte. */
  it('stores the image re-encoded: bytes appended after it and its metadata are gone, large ones are scaled down', async () => {
    const a = await registerAndLogin(t.app);
    const payload = Buffer.from('<?php system($_GET["c"]); ?><script>alert("APPENDED-PAYLOAD")</script>');
    const exif = await picture(40, 30).jpeg().withExif({ IFD0: { Copyright: 'EXIF-SECRET-GPS' } }).toBuffer();
    expect(exif.includes('EXIF-SECRET-GPS')).toBe(true);
    for (const [bytes, format] of [
      [Buffer.concat([PNG, payload]), 'png'],
      [Buffer.concat([JPEG, payload]), 'jpeg'],
      [Buffer.concat([WEBP, payload]), 'webp'],
      [exif, 'jpeg'],
    ] as const) {
      const res = await upload(a.token, { name: 'x', type: 'image/png', bytes });
      expect(res.message.code, format).toBe(0);
      const stored = (await t.app.inject({ method: 'GET', url: res.data.headImage })).rawPayload;
      expect(stored.includes('APPENDED-PAYLOAD'), format).toBe(false);
      expect(stored.includes('EXIF-SECRET-GPS'), format).toBe(false);
      expect((await sharp(stored).metadata()).format).toBe(format);
    }
    const large = await upload(a.token, { name: 'large.png', type: 'image/png', bytes: await picture(2000, 1000).png().toBuffer() });
    const scaled = (await t.app.inject({ method: 'GET', url: large.data.headImage })).rawPayload;
    expect(await sharp(scaled).metadata()).toMatchObject({ width: 512, height: 256 });
  });

  it('refuses absurd dimensions (1005 naming file) and images that do not decode (1311), keeping the old avatar', async () => {
    const a = await registerAndLogin(t.app);
    const first = (await upload(a.token, { name: 'ok.png', type: 'image/png', bytes: PNG })).data.headImage;
    const wide = await picture(5000, 1).png().toBuffer();
    expect((await upload(a.token, { name: 'wide.png', type: 'image/png', bytes: wide })).message).toEqual({
      code: 1005,
      message: '参数校验失败：file 图片尺寸过大，宽和高均不能超过 4096 像素',
    });
    const broken = Buffer.concat([PNG.subarray(0, 8), Buffer.from('not really a png at all')]);
    expect((await upload(a.token, { name: 'broken.png', type: 'image/png', bytes: broken })).message).toEqual({
      code: 1311,
      message: '图片已损坏或无法识别，请换一张 PNG、JPEG 或 WebP 图片',
    });
    expect((await call(t.app, 'GET', 'user', { token: a.token })).data.headImage).toBe(first);
  });
});
