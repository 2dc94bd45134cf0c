import { sql } from 'kysely';
import type { Db } from '../../db/db';

/** Failed-login counters per subject (see migration 0002_user); every write is one atomic statement. */
export class LoginFailureRepository {
  constructor(private readonly db: Db) {}

  find(subject: string) {
    return this.db.selectFrom('login_failures').select(['failures', 'locked_until']).where('subject', '=', subject).executeTakeFirst();
  }

  /**
   * Counts one attempt and answers how many the subject has made in the current window. The window
   * restarts when the first counted attempt is at or before `windowStart`. Attempts are counted before the
   * password is checked, so a burst of parallel guesses cannot get past the limit.
   */
  async countAttempt(subject: string, now: number, windowStart: number): Promise<number> {
    const { rows } = await sql<{ failures: number }>`
      insert into login_failures (subject, failures, first_failed_at, locked_until)
      values (${subject}, 1, ${now}, null)
      on conflict (subject) do update set
        failures = case when login_failures.first_failed_at is null or login_failures.first_failed_at <= ${windowStart}
          then 1 else login_failures.failures + 1 end,
        first_failed_at = case when login_failures.first_failed_at is null or login_failures.first_failed_at <= ${windowStart}
          then ${now} else login_failures.first_failed_at end
      returning failures`.execute(this.db);
    return Number(rows[0].failures);
  }

  /**
   * Locks until `until`. The count is left alone: resetting it here would hand fresh tries to parallel
   * requests already past the lock check. The window restarts by itself, because the lock ends at least
   * 15 minutes after the window's first failure.
   */
  lock(subject: string, until: number) {
    return this.db.updateTable('login_failures').set({ locked_until: until }).where('subject', '=', subject).execute();
  }

  clear(subject: string) {
    return this.db.deleteFrom('login_failures').where('subject', '=', subject).execute();
  }

  /** Every counter of an account: the account-wide one (`base`) and those per address (`base@ip`). */
  clearAccount(base: string) {
    const prefix = `${base}@`;
    return this.db
      .deleteFrom('login_failures')
      .where((eb) => eb.or([eb('subject', '=', base), eb(sql<string>`substr(${eb.ref('subject')}, 1, ${prefix.length})`, '=', prefix)]))
      .execute();
  }

  /** Drops counters that no longer matter, so guesses at made-up accounts do not pile up rows forever. */
  prune(now: number, windowStart: number) {
    return this.db
      .deleteFrom('login_failures')
      .where((eb) => eb.or([eb('first_failed_at', 'is', null), eb('first_failed_at', '<=', windowStart)]))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .execute();
  }
}
