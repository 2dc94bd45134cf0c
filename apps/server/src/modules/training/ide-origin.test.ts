import { describe, expect, it } from 'vitest';
import { parseIdeEndpoint } from '../task/task-files';
import { checkIdeOrigin, defaultIdeOrigin, IdeOrigin } from './ide-origin';

describe('IDE origin (ADR 0014)', () => {
  it('derives an origin per task from the console address', () => {
    expect(defaultIdeOrigin('http://localhost:8080')).toBe('http://{task}.ide.localhost:8080');
    expect(defaultIdeOrigin('http://127.0.0.1:41234')).toBe('http://{task}.ide.localhost:41234');
    expect(defaultIdeOrigin('https://suanli.example.cn')).toBe('https://{task}.ide.suanli.example.cn');
    expect(defaultIdeOrigin('http://[::1]:8080')).toBe('http://{task}.ide.localhost:8080');
  });

  it('knows its hosts and nothing else', () => {
    const o = new IdeOrigin(() => 'https://{task}.ide.example.cn');
    expect(o.of('0abc123')).toBe('https://0abc123.ide.example.cn');
    expect(o.secure).toBe(true);
    expect(o.taskOf('0abc123.ide.example.cn')).toBe('0abc123');
    expect(o.taskOf('0ABC123.IDE.example.cn:443')).toBe('0abc123');
    for (const h of [undefined, '', 'ide.example.cn', 'example.cn', 'a.b.ide.example.cn', 'x.ide.example.cn.evil.cn', 'x.ide-example.cn', 'x_y.ide.example.cn', 'suanli.example.cn']) {
      expect(o.taskOf(h), String(h)).toBeNull();
    }
    // The template is read on every use (tests learn their port after listening).
    let port = 1;
    const live = new IdeOrigin(() => `http://{task}.ide.localhost:${port}`);
    expect(live.of('t1')).toBe('http://t1.ide.localhost:1');
    port = 2;
    expect(live.of('t1')).toBe('http://t1.ide.localhost:2');
    expect(live.taskOf('t1.ide.localhost:2')).toBe('t1');
    expect(live.secure).toBe(false);
  });

  it('checks IDE_ORIGIN', () => {
    expect(checkIdeOrigin('https://{task}.ide.example.cn/')).toBe('https://{task}.ide.example.cn');
    expect(checkIdeOrigin('http://{task}.ide.localhost:8080')).toBe('http://{task}.ide.localhost:8080');
    for (const bad of ['https://ide.example.cn', 'https://x{task}.ide.example.cn', 'https://{task}.ide.example.cn/path', 'ftp://{task}.a.cn', '{task}.ide.example.cn']) {
      expect(() => checkIdeOrigin(bad), bad).toThrow(/IDE_ORIGIN/);
    }
  });
});

describe("a develop job's endpoint file", () => {
  const token = '0123456789abcdef0123456789abcdef0123456789abcdef';
  it('names a port and a token, nothing else', () => {
    expect(parseIdeEndpoint(`8888 ${token}\n`)).toEqual({ port: 8888, token });
    expect(parseIdeEndpoint(`1024 ${token}`)).toEqual({ port: 1024, token });
    expect(parseIdeEndpoint(`65535 ${token}`)).toEqual({ port: 65535, token });
  });
  it('is not an endpoint when it names a host, a privileged port or anything else', () => {
    for (const bad of [
      `10.0.0.9 8888 ${token}`,
      `8888 ${token} 10.0.0.9`,
      `169.254.169.254:80 ${token}`,
      `22 ${token}`,
      `1023 ${token}`,
      `0 ${token}`,
      `65536 ${token}`,
      `8888`,
      `8888 short`,
      `8888 ${token}\n127.0.0.2`,
      '',
    ]) {
      expect(parseIdeEndpoint(bad), bad).toBeNull();
    }
  });
});
