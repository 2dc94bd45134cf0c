import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors';
import { userPathOf } from './account-fs';
import { checkName, parseUserPath } from './paths';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as AppError).code;
  }
  return 0;
};

describe('parseUserPath', () => {
  it('treats every path as relative to the home', () => {
    expect(parseUserPath('/')).toEqual([]);
    expect(parseUserPath('')).toEqual([]);
    expect(parseUserPath('/a/b')).toEqual(['a', 'b']);
    expect(parseUserPath('a//b/./c/')).toEqual(['a', 'b', 'c']);
    expect(parseUserPath('/etc/passwd')).toEqual(['etc', 'passwd']);
    expect(userPathOf(parseUserPath('a//b/'))).toBe('/a/b');
  });

  it.each(['..', '../x', 'a/../../x', 'a/..', '/a/b/../c', 'a\0b', 'a\\b', `${'x'.repeat(256)}`])('refuses %j with 1308', (p) => {
    expect(code(() => parseUserPath(p))).toBe(1308);
  });

  it('keeps names that merely contain dots', () => {
    expect(parseUserPath('/a..b/...')).toEqual(['a..b', '...']);
  });
});

describe('checkName', () => {
  it.each(['a/b', '/', '..', '.', '', '  ', 'a\\b', 'a\0', '.suanli-upload-1', 'x'.repeat(256)])('refuses %j', (n) => {
    expect(code(() => checkName(n))).toBe(1308);
  });
  it.each(['报告.pdf', '.bashrc', 'a..b', 'x'.repeat(255)])('accepts %j', (n) => {
    expect(checkName(n)).toBe(n);
  });
  // Found by the black-box probe (issue 7): names with control characters were accepted.
  it.each(['a\rb', 'a\nb', 'tab\there', 'esc\u001b[31m', 'del\u007f', 'c1\u0085', 'x\u0000'])('refuses the control characters in %j', (n) => {
    expect(code(() => checkName(n))).toBe(1308);
  });
  it('answers the NFC spelling of a name sent in NFD (one name, not two look-alikes)', () => {
    const nfd = 'cafe\u0301.txt';
    expect(checkName(nfd)).toBe('caf\u00e9.txt');
    expect(checkName(nfd)).toBe(checkName('caf\u00e9.txt'));
  });
});
