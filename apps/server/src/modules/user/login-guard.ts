import { LOGIN_LOCK_MS, LOGIN_MAX_FAILURES } from '@suanli/contracts';
import { AppError } from '../../errors';
import type { LoginFailureRepository } from './login-failure.repository';
import { verifyPassword } from './password';
import type { RsaKeyService } from './rsa-key.service';

/** Failures are counted over the same 15 minutes the lock lasts. */
const FAILURE_WINDOW_MS = LOGIN_LOCK_MS;
/** Failures from all addresses together that lock an account for the addresses that are not the user's own. */
export const ACCOUNT_MAX_FAILURES = 20;

/** Whose counters a password check uses: the account (`u:<id>` or `a:<field>:<value>`) and the address. */
export interface Guard {
  account: string;
  ip: string;
  /** The user signed in from this address recently (or holds a session): the account-wide lock spares it. */
  ownAddress: boolean;
}

function lockedError(code: number, msLeft: number): AppError {
  const minutes = Math.max(1, Math.ceil(msLeft / 60_000));
  return new AppError(code, `密码错误次数过多，账号已锁定，请${minutes}分钟后再试`);
}

/**
 * The password lockout (ADR 0005), shared by login and the old-password check of a password change: its
 * own counters, its own rules, nothing of the account itself.
 */
export class LoginGuard {
  constructor(
    private readonly failures: LoginFailureRepository,
    private readonly rsa: RsaKeyService,
    private readonly clock: () => number,
  ) {}

  /**
   * Checks an encrypted password under the lockout (ADR 0005): at most LOGIN_MAX_FAILURES tries per account
   * and address per 15 minutes, then that address is locked out of the account for 15 minutes; and at most
   * ACCOUNT_MAX_FAILURES tries per account from all addresses together, then the account is locked for
   * 15 minutes except from the user's own addresses — so a stranger's guesses never lock the user out of
   * where they sign in. Each try is counted before checking, so parallel guesses cannot exceed the limits,
   * and the decrypt + argon2 work is the same whether the account exists, the ciphertext decrypts or not.
   */
  async verify(g: Guard, storedHash: string | null, enc: string, lockCode: number, wrong: () => AppError): Promise<void> {
    const now = this.clock();
    const pair = `${g.account}@${g.ip}`;
    for (const subject of g.ownAddress ? [pair] : [pair, g.account]) {
      const state = await this.failures.find(subject);
      if (state?.locked_until != null && state.locked_until > now) throw lockedError(lockCode, state.locked_until - now);
    }
    const windowStart = now - FAILURE_WINDOW_MS;
    const tries = await this.failures.countAttempt(pair, now, windowStart);
    const accountTries = await this.failures.countAttempt(g.account, now, windowStart);
    const over = tries > LOGIN_MAX_FAILURES ? pair : !g.ownAddress && accountTries > ACCOUNT_MAX_FAILURES ? g.account : null;
    if (over) {
      await this.failures.lock(over, now + LOGIN_LOCK_MS);
      throw lockedError(lockCode, LOGIN_LOCK_MS);
    }
    const password = await this.rsa.decrypt(enc);
    if (await verifyPassword(storedHash, password)) {
      // Only this address's counter: the account-wide one keeps counting a stranger's guesses.
      await this.failures.clear(pair);
      return;
    }
    await this.failures.prune(now, windowStart);
    if (accountTries >= ACCOUNT_MAX_FAILURES) await this.failures.lock(g.account, now + LOGIN_LOCK_MS);
    if (tries >= LOGIN_MAX_FAILURES) await this.failures.lock(pair, now + LOGIN_LOCK_MS);
    if (tries >= LOGIN_MAX_FAILURES || (!g.ownAddress && accountTries >= ACCOUNT_MAX_FAILURES)) throw lockedError(lockCode, LOGIN_LOCK_MS);
    throw wrong();
  }

  /** Counts a failure outside a password check (an undecryptable new password) toward the same lockout. */
  async countFailure(subject: string): Promise<void> {
    const now = this.clock();
    if ((await this.failures.countAttempt(subject, now, now - FAILURE_WINDOW_MS)) >= LOGIN_MAX_FAILURES) {
      await this.failures.lock(subject, now + LOGIN_LOCK_MS);
    }
  }

  /** Proving control of the phone/e-mail lifts the account-wide lock (password reset). */
  clearAccount(account: string): Promise<unknown> {
    return this.failures.clearAccount(account);
  }
}
