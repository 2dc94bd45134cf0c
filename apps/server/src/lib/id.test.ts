import { describe, expect, it } from 'vitest';
import { newId } from './id';

describe('newId', () => {
  it('sorts in creation order even when the clocks it is given go back (a frozen test clock beside Date.now)', () => {
    const frozen = 1_700_000_000_000;
    const ids = [newId(frozen), newId(Date.now()), newId(frozen), newId(frozen), newId(Date.now() - 5_000), newId(frozen)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{20}$/);
  });
});
