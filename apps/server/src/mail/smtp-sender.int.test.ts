import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness';
import { call, encryptPassword, login, readOutbox, readOutboxCode, requestCode } from '../../test/users';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** The text body of a single-part message, undoing base64 or quoted-printable. */
function textOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split);
  const payload = raw.slice(split + 4);
  const cte = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (cte === 'base64') return Buffer.from(payload.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (cte === 'quoted-printable') {
    const bytes = payload.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return payload;
}

/** RFC 2047 encoded-words in a header. */
function decodeHeader(value: string): string {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_m, enc: string, text: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'),
  );
}

/**
 * Verification codes by real e-mail: a real SMTP server (smtp-server) on loopback with authentication, the
 * gateway configured for SMTP, the code read from the received message and used to register.
 */
describe('verification codes over SMTP', () => {
  const inbox: Received[] = [];
  let refuseAuth = false;
  let server: SMTPServer;
  let t: TestApp;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, cb) {
        if (!refuseAuth && auth.username === 'mailer' && auth.password === 's3cret') return cb(null, { user: 'mailer' });
        return cb(new Error('invalid credentials'));
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          inbox.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('latin1'),
          });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    t = await createTestApp('sqlite', {
      mail: { kind: 'smtp', host: '127.0.0.1', port, secure: false, user: 'mailer', pass: 's3cret', from: 'noreply@suanli.local' },
    });
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('mails a register code that registers the account; nothing goes to the outbox', async () => {
    const email = `smtp_${randomBytes(4).toString('hex')}@test.local`;
    expect((await requestCode(t.app, 'register', email)).message).toEqual({ code: 0, message: '操作成功' });
    const mails = inbox.filter((m) => m.to.includes(email));
    expect(mails).toHaveLength(1);
    expect(mails[0].from).toBe('noreply@suanli.local');
    const subject = decodeHeader(/^subject:\s*(.*(?:\r\n[ \t].*)*)/im.exec(mails[0].raw)![1].replace(/\r\n[ \t]/g, ' '));
    expect(subject).toBe('【算力调度服务平台】验证码');
    const text = textOf(mails[0].raw);
    expect(text).toContain('您正在注册账号');
    const code = /验证码为 (\d{6})/.exec(text)![1];
    expect(readOutbox(t.app).filter((l) => l.target === email)).toEqual([]);

    const username = `smtp_${randomBytes(4).toString('hex')}`;
    const reg = await call(t.app, 'POST', 'user/register', {
      payload: { username, password: await encryptPassword(t.app, 'Passw0rd-smtp'), email, code, agreement: true },
    });
    expect(reg.message.code).toBe(0);
    expect((await login(t.app, email, 'Passw0rd-smtp')).user.username).toBe(username);
  });

  it('answers 1400 when the mail server refuses, without counting it against the resend limit', async () => {
    const email = `smtp_${randomBytes(4).toString('hex')}@test.local`;
    refuseAuth = true;
    try {
      expect((await requestCode(t.app, 'register', email)).message).toEqual({ code: 1400, message: '验证码发送失败，请稍后再试' });
    } finally {
      refuseAuth = false;
    }
    expect((await requestCode(t.app, 'register', email)).message.code).toBe(0);
    expect(inbox.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  it('still sends phone codes to the outbox (no SMS provider configured)', async () => {
    const phone = `1${String(Math.floor(Math.random() * 1e10)).padStart(10, '0')}`;
    expect((await requestCode(t.app, 'register', phone)).message.code).toBe(0);
    expect(await readOutboxCode(t.app, phone, 'register')).toMatch(/^\d{6}$/);
    expect(inbox.some((m) => m.to.includes(phone))).toBe(false);
  });
});
