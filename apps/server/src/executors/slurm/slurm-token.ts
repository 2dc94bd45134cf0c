import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';

/**
 * Per-account tokens for slurmrestd (`X-SLURM-USER-NAME` + `X-SLURM-USER-TOKEN`, docs/operations/slurm-center.md
 * "JWT and slurmrestd"): minted here with the cluster's HS256 key (`jwtKeyFile`), or printed by the site's
 * `tokenCommand` (the account appended as its last argument). Cached per account until shortly before expiry.
 */

export interface SlurmTokenConfig {
  jwtKeyFile?: string;
  tokenCommand?: string[];
}

export interface SlurmTokenOptions {
  /** Lifetime of a minted token (seconds); default 10 minutes. */
  ttlSeconds?: number;
  /** A cached token is replaced this long before it expires (seconds); default 60. */
  renewBeforeSeconds?: number;
  /** Time limit of one `tokenCommand` run (ms); default 10 s. */
  commandTimeoutMs?: number;
  /** Unix seconds; tests move it. */
  now?: () => number;
}

/** POSIX user names only: the account ends up in a header and on a command line. */
const ACCOUNT = /^[a-z_][a-z0-9_.-]{0,31}$/i;

/** HS256 over `{exp, iat, sun}`: the token slurmctld/slurmdbd accept for `user` (auth/jwt). */
export function mintSlurmJwt(key: Buffer, user: string, ttlSeconds: number, now: number): string {
  const head = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(JSON.stringify({ exp: now + ttlSeconds, iat: now, sun: user })).toString('base64url');
  const sig = createHmac('sha256', key).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** The `exp` claim of a JWT (unix seconds), if it has a readable one. */
export function jwtExpiry(token: string): number | undefined {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp : undefined;
  } catch {
    return undefined;
  }
}

/** `scontrol token` prints `SLURM_JWT=<token>`; other commands may print the bare token. */
export function parseTokenOutput(out: string): string {
  const m = /SLURM_JWT=(\S+)/.exec(out);
  const token = (m ? m[1] : out.trim().split(/\s+/).pop()) ?? '';
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) throw new Error('Slurm tokenCommand printed no JWT');
  return token;
}

export class SlurmTokens {
  private readonly cache = new Map<string, { token: string; renewAt: number }>();
  private readonly inflight = new Map<string, Promise<string>>();
  private key: Buffer | undefined;
  private readonly ttl: number;
  private readonly renewBefore: number;
  private readonly now: () => number;

  constructor(
    private readonly config: SlurmTokenConfig,
    private readonly options: SlurmTokenOptions = {},
  ) {
    if (!config.jwtKeyFile && !config.tokenCommand?.length) throw new Error('Slurm tokens need jwtKeyFile or tokenCommand');
    this.ttl = options.ttlSeconds ?? 600;
    this.renewBefore = options.renewBeforeSeconds ?? 60;
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** A valid token for `account` (from the cache while it has more than `renewBeforeSeconds` left). */
  async token(account: string): Promise<string> {
    if (!ACCOUNT.test(account)) throw new Error(`not a cluster account name: ${JSON.stringify(account)}`);
    const hit = this.cache.get(account);
    if (hit && hit.renewAt > this.now()) return hit.token;
    const running = this.inflight.get(account);
    if (running) return running;
    const p = this.fresh(account).finally(() => this.inflight.delete(account));
    this.inflight.set(account, p);
    return p;
  }

  /** Forget a token slurmrestd refused (the next call makes a new one). */
  invalidate(account: string): void {
    this.cache.delete(account);
  }

  private async fresh(account: string): Promise<string> {
    const now = this.now();
    let token: string;
    let exp: number;
    if (this.config.jwtKeyFile) {
      // Read once: the key is a root-equivalent credential, kept in memory only.
      this.key ??= fs.readFileSync(this.config.jwtKeyFile);
      token = mintSlurmJwt(this.key, account, this.ttl, now);
      exp = now + this.ttl;
    } else {
      token = parseTokenOutput(await this.run(account));
      // A token without a readable expiry is used for 5 minutes.
      exp = jwtExpiry(token) ?? now + 300;
    }
    this.cache.set(account, { token, renewAt: exp - Math.min(this.renewBefore, Math.floor((exp - now) / 2)) });
    return token;
  }

  private run(account: string): Promise<string> {
    const [cmd, ...args] = this.config.tokenCommand!;
    return new Promise((resolve, reject) => {
      execFile(cmd, [...args, account], { timeout: this.options.commandTimeoutMs ?? 10_000, maxBuffer: 64 * 1024 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`Slurm tokenCommand failed for ${account}: ${(stderr || err.message).trim().slice(0, 300)}`));
        else resolve(stdout);
      });
    });
  }
}
