import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { CODE_LENGTH, CODE_MAX_ATTEMPTS, CODE_RESEND_MS } from '@suanli/contracts';

/** The platform serves mainland China: "per calendar day" means a day in UTC+8 (no daylight saving). */
const DAY_MS = 86_400_000;
const CHINA_OFFSET_MS = 8 * 3_600_000;

/** Epoch ms of 00:00 (UTC+8) of the day containing `now`. */
export function dayStart(now: number): number {
  return Math.floor((now + CHINA_OFFSET_MS) / DAY_MS) * DAY_MS - CHINA_OFFSET_MS;
}

/** Whole seconds still to wait before another code may go to the same target (0 = may send now). */
export function resendWaitSeconds(lastSentAt: number | undefined, now: number): number {
  if (lastSentAt === undefined) return 0;
  const left = lastSentAt + CODE_RESEND_MS - now;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

export function generateCode(): string {
  return String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, '0');
}

/** `salt$sha256(salt:code)`: the table never holds a code that could be typed in as it is. */
export function hashCode(code: string, salt = randomBytes(16).toString('hex')): string {
  return `${salt}$${createHash('sha256').update(`${salt}:${code}`).digest('hex')}`;
}

export function codeMatches(stored: string, code: string): boolean {
  const [salt, digest] = stored.split('$');
  if (!salt || !digest) return false;
  const candidate = hashCode(code, salt).split('$')[1];
  return timingSafeEqual(Buffer.from(candidate, 'hex'), Buffer.from(digest, 'hex'));
}

export type CodeState = 'usable' | 'used' | 'expired' | 'exhausted';

/** A code works once, for 5 minutes, and dies after 5 wrong tries. */
export function codeState(row: { used_at: number | null; expire_time: number; attempts: number }, now: number): CodeState {
  if (row.used_at != null) return 'used';
  if (row.attempts >= CODE_MAX_ATTEMPTS) return 'exhausted';
  if (now >= row.expire_time) return 'expired';
  return 'usable';
}
