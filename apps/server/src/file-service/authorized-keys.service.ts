import { Readable } from 'node:stream';
import { ErrorCode, type AuthorizedKeysEdit } from '@suanli/contracts';
import { AppError, forbidden } from '../errors';
import type { FileUser } from './identity';
import { errCode } from './storage/beneath';
import { KeyedLock } from './storage/keyed-lock';
import type { AccountFs } from './storage/account-fs';
import type { Spaces } from './storage/spaces';

/** Our lines end with this tag and the key's id; a remove takes out exactly those, the account's own lines stay. */
export const TAG_PREFIX = 'suanli:';
const SSH = ['.ssh'];
const FILE = ['.ssh', 'authorized_keys'];
/** A larger file is not one a person keeps by hand: refused rather than read into memory. */
const FILE_MAX = 1024 * 1024;

/**
 * `~/.ssh/authorized_keys` of the caller's cluster account, edited by the file service of the center where
 * the home lives (the gateway's key pairs go through it: `AUTHORIZED_KEYS_PATH`). It is an ordinary write
 * in the account's space — beneath the home, links never followed, as the account where accounts are real
 * users (ADR 0004) — so sshd, which reads it as the account under StrictModes, finds it owned by the account;
 * `.ssh` is made 0700 and the file written 0600 (temp file renamed over the old one).
 */
export class AuthorizedKeysService {
  private readonly lock = new KeyedLock();

  constructor(private readonly spaces: Spaces) {}

  /** Adds (once) or removes the line tagged `tag`; the file's lines afterwards. */
  edit(user: FileUser, e: AuthorizedKeysEdit): Promise<string[]> {
    if (user.platform || user.team) throw forbidden();
    if (e.action === 'add' && !e.line) throw new AppError(ErrorCode.PARAM_INVALID, '参数错误：line 不能为空');
    return this.lock.run(user.account, () =>
      this.spaces.with(user, async (fs) => {
        try {
          const lines = await readLines(fs);
          const kept = lines.filter((l) => !l.trimEnd().endsWith(` ${TAG_PREFIX}${e.tag}`));
          const next = e.action === 'add' ? [...kept, `${e.line} ${TAG_PREFIX}${e.tag}`] : kept;
          // The web shell adds its line on every open: an unchanged file is not rewritten.
          if (next.length === lines.length && next.every((l, i) => l === lines[i])) return next;
          await fs.ensureDir(SSH, 0o700);
          await fs.giveToAccount(SSH);
          await fs.writeFile(FILE, Readable.from([Buffer.from(next.length ? `${next.join('\n')}\n` : '')]), { mode: 0o600 });
          // sshd reads it as the account under StrictModes.
          await fs.giveToAccount(FILE);
          return next;
        } catch (err) {
          if (err instanceof AppError) throw err;
          throw new AppError(ErrorCode.KEY_INSTALL_FAILED, `密钥安装失败：无法写入集群账号的 ~/.ssh/authorized_keys（${errCode(err) ?? '未知错误'}）`);
        }
      }),
    );
  }
}

async function readLines(fs: AccountFs): Promise<string[]> {
  // Null when there is no `.ssh` yet; a link on the way is refused (1308).
  const st = await fs.stat(FILE);
  if (!st) return [];
  if (st.type !== 'file') throw new AppError(ErrorCode.ILLEGAL_PATH, '非法路径：~/.ssh/authorized_keys 不是普通文件');
  if (st.size > FILE_MAX) throw new AppError(ErrorCode.KEY_INSTALL_FAILED, '密钥安装失败：~/.ssh/authorized_keys 超过 1 MiB');
  if (st.size === 0) return [];
  const file = await fs.openFile(FILE);
  try {
    const chunks: Buffer[] = [];
    for await (const piece of file.read(0, st.size - 1)) chunks.push(piece as Buffer);
    return Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l.trim() !== '');
  } finally {
    await file.close();
  }
}
