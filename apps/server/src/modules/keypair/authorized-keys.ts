import { randomBytes } from 'node:crypto';
import { constants as O } from 'node:fs';
import fsp from 'node:fs/promises';
import { ErrorCode } from '@suanli/contracts';
import { AppError } from '../../errors';
import { Beneath, WalkError, errCode, openFileAt, type DirHandle } from '../../file-service/storage/beneath';
import { KeyedLock } from '../../file-service/storage/keyed-lock';

/** Our lines end with this tag and the key's id; uninstall removes exactly those, the user's own lines stay. */
export const TAG_PREFIX = 'suanli:';

/**
 * Writes `~/.ssh/authorized_keys` of a cluster account whose home the gateway reaches on the center's
 * storage (the embedded default and the harness; a remote center would put the same edit behind its file
 * service). The home is untrusted: `.ssh` and the file are reached beneath it without following links, the
 * new file replaces the old by rename inside the held directory, and `.ssh` and the file belong to the
 * home's owner (sshd reads them as the account; StrictModes wants them private: 0700 / 0600).
 */
export class AuthorizedKeys {
  private readonly lock = new KeyedLock();

  /** Makes `line` (an OpenSSH public key without comment) present once, tagged with `tag`. */
  add(home: string, tag: string, line: string): Promise<void> {
    return this.edit(home, (lines) => [...lines.filter((l) => !hasTag(l, tag)), `${line} ${TAG_PREFIX}${tag}`]);
  }

  /** Removes our line tagged `tag`; lines the user wrote stay as they are. */
  remove(home: string, tag: string): Promise<void> {
    return this.edit(home, (lines) => lines.filter((l) => !hasTag(l, tag)));
  }

  /** The lines now in the file (tests, diagnostics). */
  async read(home: string): Promise<string[]> {
    try {
      return await new Beneath(home).withDir(['.ssh'], (dir) => readLines(dir));
    } catch (e) {
      if (e instanceof WalkError && e.reason === 'missing') return [];
      throw e;
    }
  }

  private edit(home: string, change: (lines: string[]) => string[]): Promise<void> {
    return this.lock.run(home, async () => {
      try {
        const owner = await fsp.stat(home);
        await new Beneath(home).withDir(
          ['.ssh'],
          async (dir) => {
            await fsp.chmod(dir.at(), 0o700);
            await fsp.chown(dir.at(), owner.uid, owner.gid);
            const next = change(await readLines(dir));
            const tmp = `.authorized_keys.${randomBytes(6).toString('hex')}`;
            const fh = await fsp.open(dir.at(tmp), O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o600);
            try {
              await fh.writeFile(next.length ? `${next.join('\n')}\n` : '');
              await fh.chown(owner.uid, owner.gid);
              await fh.sync();
            } finally {
              await fh.close();
            }
            await fsp.rename(dir.at(tmp), dir.at('authorized_keys')).catch(async (e: unknown) => {
              await fsp.unlink(dir.at(tmp)).catch(() => undefined);
              throw e;
            });
          },
          { create: true },
        );
      } catch (e) {
        if (e instanceof WalkError) throw new AppError(ErrorCode.ILLEGAL_PATH, '非法路径：~/.ssh 不是目录或是符号链接');
        if (e instanceof AppError) throw e;
        throw new AppError(ErrorCode.KEY_INSTALL_FAILED, `密钥安装失败：无法写入集群账号的 ~/.ssh/authorized_keys（${errCode(e) ?? '未知错误'}）`);
      }
    });
  }
}

function hasTag(line: string, tag: string) {
  return line.trimEnd().endsWith(` ${TAG_PREFIX}${tag}`);
}

async function readLines(dir: DirHandle): Promise<string[]> {
  let fh;
  try {
    fh = await openFileAt(dir, 'authorized_keys');
  } catch (e) {
    if (e instanceof WalkError && e.reason === 'missing') return [];
    throw e;
  }
  try {
    return (await fh.readFile('utf8')).split('\n').filter((l) => l.trim() !== '');
  } finally {
    await fh.close();
  }
}
