import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id with the library's defaults (m = 19 MiB, t = 2, p = 1: the OWASP recommendation). Runs on the
 * libuv thread pool, so hashing does not block the event loop.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** A hash of a random value nobody knows: verified against when there is no real user or no password. */
let dummy: Promise<string> | null = null;
const dummyHash = () => (dummy ??= hash(randomBytes(24).toString('base64')));

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
