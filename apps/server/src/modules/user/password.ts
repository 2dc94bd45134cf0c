import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/**
 * TESTS ONLY: argon2id parameters that replace the production ones, or null (production). The api test harness
 * (apps/server/test/harness.ts) sets them so that the thousands of accounts the api tier registers do not each
 * cost a production hash (~12 CPU-ms a hash or a verify, ~10 % of the api tier's CPU; issue 26). Nothing else
 * sets them: a gateway, the admin CLI and every process a test starts hash with the production parameters,
 * which `password.test.ts` checks. A hash records its own parameters, so `verify` needs no knob.
 */
let testCost: { memoryCost: number; timeCost: number; parallelism: number } | null = null;

/** A hash of a random value nobody knows: verified against when there is no real user or no password. */
let dummy: Promise<string> | null = null;

/**
 * TESTS ONLY (see `testCost`): cheaper argon2id parameters for the hashes made from now on; null restores
 * production. Answers the parameters set before, to put back.
 */
export function setPasswordCostForTests(cost: typeof testCost): typeof testCost {
  const before = testCost;
  testCost = cost;
  dummy = null;
  return before;
}

/**
 * argon2id with the library's defaults (m = 19 MiB, t = 2, p = 1: the OWASP recommendation). Runs on the
 * libuv thread pool, so hashing does not block the event loop.
 */
export function hashPassword(password: string): Promise<string> {
  return testCost ? hash(password, testCost) : hash(password);
}

const dummyHash = () => (dummy ??= hashPassword(randomBytes(24).toString('base64')));

/**
 * Checks a password against a stored hash, or against the dummy hash when there is no user or the
 * ciphertext did not decrypt, so every login failure costs the same time and none can be told apart.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string | null): Promise<boolean> {
  const target = storedHash ?? (await dummyHash());
  let matches = false;
  try {
    matches = await verify(target, password ?? '');
  } catch {
    matches = false;
  }
  return matches && storedHash != null && password != null;
}
