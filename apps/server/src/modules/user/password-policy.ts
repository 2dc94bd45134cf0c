import { Worker } from 'node:worker_threads';
import { passwordProblem } from '@suanli/contracts';
import { verifyPassword } from './password';

/**
 * zxcvbn's estimate, 0–4 (guesses < 10³, 10⁶, 10⁸, 10¹⁰, more). 2 refuses what falls to an online guess
 * list — dictionary words with a digit, repeats, keyboard walks (`aaaaaaa1`, `Passw0rd`, `Abcd1234`) — while
 * a word, symbols and digits mixed (the demo's `Demo@123456`) still pass. Levenshtein matching is off: it
 * adds ~100 ms of CPU per check for little.
 */
export const PASSWORD_MIN_SCORE = 2;
export const PASSWORD_WEAK_TEXT = '过于简单，容易被猜中：请避免常见单词、姓名、重复或连续的字符，可加长并混合字母、数字和符号';
export const PASSWORD_REUSED_TEXT = '不能与当前密码相同';
/** Words of this deployment an attacker tries first. */
const SITE_WORDS = ['suanli', 'suanli.local'];

/**
 * One thread per process runs the estimator (a few ms to ~200 ms of CPU for a long password with symbols),
 * so register/update/reset never stall the event loop. Started on first use, never keeps the process alive;
 * if it dies, pending checks fail and the next check starts a new one.
 */
class StrengthThread {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (score: number) => void; reject: (e: Error) => void }>();

  score(password: string, userInputs: string[]): Promise<number> {
    const worker = this.worker ?? this.start();
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      worker.postMessage({ seq, password, userInputs });
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./password-strength-worker.mjs', import.meta.url), { execArgv: [], workerData: { siteWords: SITE_WORDS } });
    worker.unref();
    worker.on('message', (m: { seq: number; score?: number; error?: string }) => {
      const p = this.pending.get(m.seq);
      this.pending.delete(m.seq);
      if (m.error !== undefined || m.score === undefined) p?.reject(new Error(m.error ?? 'no score'));
      else p?.resolve(m.score);
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`password strength thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

const strength = new StrengthThread();

/**
 * The one password policy of register, update and reset: the shape shared with the console (length,
 * letters and digits, no leading/trailing blanks), the strength estimate (the account's own names and
 * addresses count as known words), and — for an existing account — not the current password. Null when
 * acceptable, otherwise the Chinese reason for a 1005 naming the field.
 */
export async function passwordPolicyProblem(
  password: string,
  account: { userInputs: (string | null | undefined)[]; currentHash?: string | null },
): Promise<string | null> {
  const shape = passwordProblem(password);
  if (shape) return shape;
  const inputs = account.userInputs.filter((v): v is string => !!v).flatMap((v) => [v, ...v.split(/[@._-]/).filter((p) => p.length >= 3)]);
  if ((await strength.score(password, inputs)) < PASSWORD_MIN_SCORE) return PASSWORD_WEAK_TEXT;
  if (account.currentHash && (await verifyPassword(account.currentHash, password))) return PASSWORD_REUSED_TEXT;
  return null;
}
