import { ErrorCode, KEYPAIRS_PER_USER, type KeyPair, type KeyPairGenerate, type KeyPairGenerated, type KeyPairImport } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError, invalid, notFound } from '../../errors';
import { newId } from '../../lib/id';
import type { Principal } from '../access/principal';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { ShellKeySource } from '../eshell/eshell.service';
import type { ShellLogin } from '../eshell/ssh-transport';
import type { AuthorizedKeysClient } from './authorized-keys.client';
import type { KeyPairRepository } from './keypair.repository';
import type { KeyVault } from './key-vault';
import { generateKeyPair, parsePublicKey } from './ssh-key';

type KeyRow = NonNullable<Awaited<ReturnType<KeyPairRepository['findOwned']>>>;

/** The tag of the per-user platform key's line in authorized_keys. */
const PLATFORM_TAG = 'platform';

/**
 * Key pairs: the user's public keys, installed into (and removed from) `~/.ssh/authorized_keys` of their
 * cluster accounts; and the per-user platform key the web shell logs in with (`loginFor`, the eshell
 * module's ShellKeySource). Every call acts on the caller's own keys only; another user's key answers 1205
 * exactly like a missing one. The file is edited by the file service of the center (`keysOn`), with the
 * caller's session token, so it is written where the home is and as the account.
 */
export class KeyPairService implements ShellKeySource {
  constructor(
    private readonly repo: KeyPairRepository,
    private readonly keysOn: (centerId: string) => AuthorizedKeysClient,
    private readonly vault: KeyVault,
    private readonly accounts: ClusterAccountService,
    private readonly centers: CenterConfig[],
    private readonly clock: () => number,
  ) {}

  async list(p: Principal): Promise<KeyPair[]> {
    const rows = await this.repo.listOfUser(p.userId);
    const installs = await this.repo.installsOf(rows.map((r) => r.id));
    return rows.map((r) => this.view(r, installs));
  }

  async generate(p: Principal, body: KeyPairGenerate): Promise<KeyPairGenerated> {
    const name = this.cleanName(body.name);
    await this.checkLimit(p);
    const keys = await generateKeyPair(body.type, name);
    const row = await this.store(p, name, keys.publicKey, 'generated');
    return { keyPair: row, privateKey: keys.privateKey };
  }

  async import(p: Principal, body: KeyPairImport): Promise<KeyPair> {
    const name = this.cleanName(body.name);
    await this.checkLimit(p);
    return this.store(p, name, body.publicKey, 'imported');
  }

  async install(p: Principal, token: string, id: string, subCenterIds: string[]): Promise<KeyPair> {
    const row = await this.owned(p, id);
    const key = parsePublicKey(row.public_key);
    for (const centerId of new Set(subCenterIds)) {
      const center = this.center(centerId);
      const account = await this.accounts.ensure(p.userId, center.id);
      await this.keysOn(center.id).edit(token, { action: 'add', tag: row.id, line: key.line });
      await this.repo.recordInstall(row.id, center.id, account.account, this.clock());
    }
    return this.one(row);
  }

  async uninstall(p: Principal, token: string, id: string, subCenterIds: string[]): Promise<KeyPair> {
    const row = await this.owned(p, id);
    const installs = await this.repo.installsOf([row.id]);
    for (const centerId of new Set(subCenterIds)) {
      const center = this.center(centerId);
      const inst = installs.find((i) => i.sub_center_id === center.id);
      if (!inst) continue;
      await this.keysOn(center.id).edit(token, { action: 'remove', tag: row.id });
      await this.repo.recordUninstall(row.id, center.id);
    }
    return this.one(row);
  }

  /** Uninstalls from every center first, so a deleted key never keeps a door open. */
  async remove(p: Principal, token: string, id: string): Promise<null> {
    const row = await this.owned(p, id);
    const installs = await this.repo.installsOf([row.id]);
    if (installs.length) await this.uninstall(p, token, id, installs.map((i) => i.sub_center_id));
    await this.repo.remove(p.userId, row.id);
    return null;
  }

  /**
   * ShellKeySource: the user's platform key (made on first use, kept encrypted, never handed out), installed
   * in the account's authorized_keys on every call (cheap, and repairs a line the user deleted).
   */
  async loginFor(userId: string, token: string, centerId: string): Promise<ShellLogin> {
    const center = this.center(centerId);
    const account = await this.accounts.ensure(userId, center.id);
    let key = await this.repo.platformKey(userId);
    if (!key) {
      const made = await generateKeyPair('ed25519', `suanli-platform-${userId}`);
      await this.repo.insertPlatformKey({ user_id: userId, public_key: made.publicKey, private_key_enc: this.vault.seal(made.privateKey), create_time: this.clock() });
      key = (await this.repo.platformKey(userId))!;
    }
    await this.keysOn(center.id).edit(token, { action: 'add', tag: PLATFORM_TAG, line: parsePublicKey(key.public_key).line });
    return { host: center.loginHost, port: center.loginPort, username: account.account, privateKey: this.vault.open(key.private_key_enc) };
  }

  // ---- helpers ----------------------------------------------------------------------------------------

  private async store(p: Principal, name: string, publicKey: string, source: 'generated' | 'imported'): Promise<KeyPair> {
    const info = parsePublicKey(publicKey);
    const row = {
      id: newId(this.clock()),
      user_id: p.userId,
      name,
      type: info.type,
      bits: info.bits,
      public_key: `${info.line} ${name.replace(/\s+/g, '_')}`,
      fingerprint: info.fingerprint,
      source,
      create_time: this.clock(),
    };
    if (!(await this.repo.insert(row))) throw new AppError(ErrorCode.DUPLICATE, '该公钥已添加过（指纹相同）');
    return this.view(row, []);
  }

  private cleanName(raw: string) {
    const name = raw.trim();
    if (!name) throw invalid('name', '不能为空');
    if (/[\p{Cc}\p{Cf}]/u.test(name)) throw invalid('name', '不能包含控制字符');
    return name;
  }

  private async checkLimit(p: Principal) {
    if ((await this.repo.countOfUser(p.userId)) >= KEYPAIRS_PER_USER) throw new AppError(ErrorCode.KEY_LIMIT, `密钥对数量已达上限（${KEYPAIRS_PER_USER} 个）`);
  }

  private async owned(p: Principal, id: string): Promise<KeyRow> {
    const row = await this.repo.findOwned(p.userId, id);
    if (!row) throw notFound('密钥对');
    return row;
  }

  private center(id: string): CenterConfig {
    const c = this.centers.find((x) => x.id === id);
    if (!c) throw notFound('算力分中心');
    return c;
  }

  private async one(row: KeyRow): Promise<KeyPair> {
    return this.view(row, await this.repo.installsOf([row.id]));
  }

  private view(r: KeyRow, installs: Awaited<ReturnType<KeyPairRepository['installsOf']>>): KeyPair {
    return {
      id: r.id,
      name: r.name,
      type: r.type as KeyPair['type'],
      bits: Number(r.bits),
      fingerprint: r.fingerprint,
      publicKey: r.public_key,
      source: r.source === 'generated' ? 'generated' : 'imported',
      createTime: Number(r.create_time),
      installs: installs
        .filter((i) => i.key_id === r.id)
        .map((i) => {
          const center = this.centers.find((c) => c.id === i.sub_center_id);
          return {
            subCenterId: i.sub_center_id,
            subCenterName: center?.name ?? i.sub_center_id,
            account: i.account,
            installTime: Number(i.install_time),
            sshCommand: center ? `ssh ${center.loginPort === 22 ? '' : `-p ${center.loginPort} `}${i.account}@${center.loginHost}` : '',
          };
        }),
    };
  }
}
