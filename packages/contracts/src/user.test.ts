import { describe, expect, it } from 'vitest';
import { passwordProblem, PASSWORD_RULE_TEXT, PASSWORD_SPACE_TEXT, targetKind } from './user';

describe('passwordProblem', () => {
  it('accepts 8–64 characters with letters and digits', () => {
    expect(passwordProblem('abcdefg1')).toBeNull();
    expect(passwordProblem('Demo@123456')).toBeNull();
    expect(passwordProblem(`a1${'x'.repeat(62)}`)).toBeNull();
    // Counted in characters, not bytes: 53 CJK-heavy characters are fine.
    expect(passwordProblem(`Ab1${'密码'.repeat(25)}`)).toBeNull();
  });

  it('refuses too short, too long, letters only, digits only', () => {
    for (const p of ['abc1234', `a1${'x'.repeat(63)}`, 'abcdefgh', '12345678', '密码密码密码密码1']) {
      expect(passwordProblem(p), p).toBe(PASSWORD_RULE_TEXT);
    }
  });

  it('refuses leading or trailing blanks (inner ones are fine)', () => {
    for (const p of [' Qiyue-2046', 'Qiyue-2046 ', '\tQiyue-2046', 'Qiyue-2046\u3000']) expect(passwordProblem(p), JSON.stringify(p)).toBe(PASSWORD_SPACE_TEXT);
    expect(passwordProblem('Qiyue 2046 x')).toBeNull();
  });
});

describe('targetKind', () => {
  it('tells mainland mobile numbers from e-mail addresses', () => {
    expect(targetKind('13800000000')).toBe('phone');
    expect(targetKind('a@b.cn')).toBe('email');
    expect(targetKind('23800000000')).toBeNull();
    expect(targetKind('1380000000')).toBeNull();
    expect(targetKind('not-an-address')).toBeNull();
    expect(targetKind(`${'a'.repeat(130)}@b.cn`)).toBeNull();
  });
});
