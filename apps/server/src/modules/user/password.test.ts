import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword, setPasswordCostForTests, verifyPassword } from './password';

/**
 * The production parameters of password hashing. The api test harness lowers them for its apps
 * (setPasswordCostForTests, apps/server/test/harness.ts); this file checks what every gateway uses.
 */
describe('password hashing', () => {
  // Whatever a file before this one in the worker set (files share a worker's modules) is put back after.
  let before: ReturnType<typeof setPasswordCostForTests> = null;
  beforeEach(() => void (before = setPasswordCostForTests(null)));
  afterEach(() => void setPasswordCostForTests(before));

  it('hashes with argon2id at the OWASP parameters (m = 19 MiB, t = 2, p = 1) and verifies only the same password', async () => {
    const stored = await hashPassword('Passw0rd-test');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword(stored, 'Passw0rd-test')).toBe(true);
    expect(await verifyPassword(stored, 'Passw0rd-tesT')).toBe(false);
    expect(await verifyPassword(stored, null)).toBe(false);
    // No stored hash (no such user): checked against the dummy hash, never a match.
    expect(await verifyPassword(null, 'Passw0rd-test')).toBe(false);
    // Each hash has its own salt.
    expect(await hashPassword('Passw0rd-test')).not.toBe(stored);
  });

  it("the tests' cheaper parameters apply only while set; a hash of either verifies, since it records its own", async () => {
    setPasswordCostForTests({ memoryCost: 64, timeCost: 1, parallelism: 1 });
    const cheap = await hashPassword('Passw0rd-test');
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/);
    setPasswordCostForTests(null);
    const production = await hashPassword('Passw0rd-test');
    expect(production).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    setPasswordCostForTests({ memoryCost: 64, timeCost: 1, parallelism: 1 });
    expect(await verifyPassword(production, 'Passw0rd-test')).toBe(true);
    expect(await verifyPassword(cheap, 'Passw0rd-test')).toBe(true);
    expect(await verifyPassword(cheap, 'wrong')).toBe(false);
  });
});
