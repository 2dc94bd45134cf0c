import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engines, type TestApp } from '../../../test/harness';
import { readOutboxCode, registerAndLogin, USER_API } from '../../../test/users';

/**
 * The criterion: a standard client interoperates. The key is fetched over real HTTP, the password is
 * encrypted by the openssl CLI (RSAES-PKCS1-v1_5), and the login goes over real HTTP to a listening gateway.
 */
describe.each(engines)('RSA interop with openssl over HTTP (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  let dir: string;
  let keyFile: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = t.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    base = `http://127.0.0.1:${addr.port}${USER_API}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-rsa-'));
    const key = await (await fetch(`${base}/user/rsa-key`)).json();
    keyFile = path.join(dir, 'key.pem');
    fs.writeFileSync(keyFile, key.data.publicKey);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One openssl pkeyutl run per ≤117-byte chunk; the blocks concatenated and base64-encoded. */
  function opensslEncrypt(value: string): string {
    const bytes = Buffer.from(value, 'utf8');
    const blocks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 117) {
      blocks.push(
        execFileSync('openssl', ['pkeyutl', '-encrypt', '-pubin', '-inkey', keyFile, '-pkeyopt', 'rsa_padding_mode:pkcs1'], {
          input: bytes.subarray(i, i + 117),
        }),
      );
    }
    for (const b of blocks) expect(b.length).toBe(128);
    return Buffer.concat(blocks).toString('base64');
  }

  const post = async (url: string, payload: unknown, token?: string) =>
    (await fetch(`${base}/${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { token } : {}) }, body: JSON.stringify(payload) })).json();

  it('serves a key openssl reads as a 1024-bit RSA public key with exponent 65537', () => {
    const text = execFileSync('openssl', ['pkey', '-pubin', '-in', keyFile, '-noout', '-text'], { encoding: 'utf8' });
    expect(text).toMatch(/Public-Key: \(1024 bit\)/);
    expect(text).toMatch(/Exponent: 65537 \(0x10001\)/);
  });

  it('logs in with a password encrypted by openssl, and answers 1024 for a wrong one', async () => {
    const { user, password } = await registerAndLogin(t.app);
    const res = await post('user/login', { account: user.username, password: opensslEncrypt(password) });
    expect(res.message).toEqual({ code: 0, message: '操作成功' });
    expect(res.data.username).toBe(user.username);
    const me = await (await fetch(`${base}/user`, { headers: { token: res.data.token } })).json();
    expect(me.data.id).toBe(user.id);

    const wrong = await post('user/login', { account: user.username, password: opensslEncrypt(`${password}x`) });
    expect(wrong.message).toEqual({ code: 1024, message: '用户名或密码错误' });
  });

  it('round-trips a password longer than 117 bytes in two chunks (register and login)', async () => {
    const password = `Ab1${'密码'.repeat(25)}`; // 53 characters, 153 UTF-8 bytes
    expect(Buffer.byteLength(password)).toBeGreaterThan(117);
    const email = `long_${Date.now()}@test.local`;
    expect((await post('user/code', { scene: 'register', target: email })).message.code).toBe(0);
    const code = await readOutboxCode(t.app, email, 'register');
    const cipher = opensslEncrypt(password);
    expect(Buffer.from(cipher, 'base64').length).toBe(256);
    const username = `long_${Date.now().toString(36)}`;
    const reg = await post('user/register', { username, password: cipher, email, code, agreement: true });
    expect(reg.message.code).toBe(0);
    const res = await post('user/login', { account: username, password: opensslEncrypt(password) });
    expect(res.message.code).toBe(0);
    // Only the first chunk right is not enough.
    const firstChunkOnly = Buffer.from(opensslEncrypt(password), 'base64').subarray(0, 128).toString('base64');
    expect((await post('user/login', { account: username, password: firstChunkOnly })).message.code).toBe(1024);
  });
});
