import { describe, expect, it } from 'vitest';
import { codeMatches, codeState, dayStart, generateCode, hashCode, resendWaitSeconds } from './verification-code.rules';

describe('dayStart (UTC+8)', () => {
  it('is 00:00 in China, i.e. 16:00 UTC of the previous day', () => {
    expect(dayStart(Date.parse('2025-03-10T15:59:59Z'))).toBe(Date.parse('2025-03-09T16:00:00Z'));
    expect(dayStart(Date.parse('2025-03-10T16:00:00Z'))).toBe(Date.parse('2025-03-10T16:00:00Z'));
    expect(dayStart(Date.parse('2025-03-10T03:00:00Z'))).toBe(Date.parse('2025-03-09T16:00:00Z'));
  });
});

describe('resendWaitSeconds', () => {
  it('counts down whole seconds from 60 and is 0 once a minute has passed or nothing was sent', () => {
    expect(resendWaitSeconds(undefined, 1000)).toBe(0);
    expect(resendWaitSeconds(0, 0)).toBe(60);
    expect(resendWaitSeconds(0, 500)).toBe(60);
    expect(resendWaitSeconds(0, 59_001)).toBe(1);
    expect(resendWaitSeconds(0, 60_000)).toBe(0);
  });
});

describe('codes', () => {
  it('are 6 digits, leading zeros kept', () => {
    for (let i = 0; i < 200; i++) expect(generateCode()).toMatch(/^\d{6}$/);
  });

  it('are stored as salt$sha256 and match only the same code', () => {
    const stored = hashCode('012345');
    expect(stored).toMatch(/^[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(stored).not.toContain('012345');
    expect(hashCode('012345')).not.toBe(stored);
    expect(codeMatches(stored, '012345')).toBe(true);
    expect(codeMatches(stored, '012346')).toBe(false);
    expect(codeMatches(stored, '12345')).toBe(false);
    expect(codeMatches('garbage', '012345')).toBe(false);
  });

  it('are usable once, for 5 minutes, until the 5th wrong try', () => {
    const row = { used_at: null, expire_time: 300_000, attempts: 0 };
    expect(codeState(row, 299_999)).toBe('usable');
    expect(codeState(row, 300_000)).toBe('expired');
    expect(codeState({ ...row, attempts: 4 }, 0)).toBe('usable');
    expect(codeState({ ...row, attempts: 5 }, 0)).toBe('exhausted');
    expect(codeState({ ...row, used_at: 1 }, 0)).toBe('used');
  });
});
