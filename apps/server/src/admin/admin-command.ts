import os from 'node:os';
import type { Config } from '../config';
import { migrate, openDb, sqliteFileIn } from '../db/db';
import { createAccessModule } from '../modules/access/access.module';
import type { AccessService } from '../modules/access/access.service';
import { createAuditModule } from '../modules/audit/audit.module';
import type { AuditActor, AuditTrail } from '../modules/audit/audit.service';
import type { RsaKeyService } from '../modules/user/rsa-key.service';
import type { UserDirectory } from '../modules/user/user-directory';
import { createRsaKeyService, createUserDirectory } from '../modules/user/user.module';

/**
 * `npm run admin -- operator add|remove|list` (README "Operators"): what someone at the server does before
 * there is an operator to do it in the console — make the first one. `npm run admin -- rsa rotate|list|retire`
 * (docs/operations/deploy.md): rotating the login RSA key without editing the database. It goes through the same modules as the
 * gateway (roles through the access module, the audit entry through the audit trail, in the transaction of
 * the change), against the database the gateway's environment names.
 */
export interface AdminTools {
  users: Pick<UserDirectory, 'named' | 'names'>;
  access: Pick<AccessService, 'grant' | 'revoke' | 'holders'>;
  audit: AuditTrail;
  rsa: Pick<RsaKeyService, 'list' | 'rotate' | 'retire'>;
}

export interface AdminOutput {
  out(line: string): void;
  err(line: string): void;
}

export const ADMIN_USAGE = [
  '用法：',
  '  npm run admin -- operator add <用户名>      将该用户设为运营人员',
  '  npm run admin -- operator remove <用户名>   撤销该用户的运营人员角色',
  '  npm run admin -- operator list             列出全部运营人员',
  '  npm run admin -- rsa rotate                 生成新的登录 RSA 密钥并立即下发（旧密钥仍可解密）',
  '  npm run admin -- rsa list                   列出全部 RSA 密钥（编号、指纹、状态）',
  '  npm run admin -- rsa retire <编号>          停用一把不再下发的 RSA 密钥',
  '读取与网关相同的环境变量（DATABASE_URL、DATA_DIR…），每次变更写入审计日志。',
];

/** Who ran the command, as the audit log names them: the OS account and the host. */
export function commandActor(): AuditActor {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers): the host still says where it was run.
  }
  return { kind: 'command', id: null, name: `${user}@${os.hostname()}`, ip: null };
}

/** Runs one command; answers the exit code (0 done or nothing to do, 1 refused, 2 usage). */
export async function runAdminCommand(args: readonly string[], tools: AdminTools, io: AdminOutput, actor: AuditActor = commandActor()): Promise<number> {
  const [group, verb, name, ...rest] = args;
  if (group === 'rsa' && !rest.length) return rsa(verb, name, tools, io, actor);
  if (group !== 'operator' || rest.length) return usage(io);
  if (verb === 'list' && name === undefined) return list(tools, io);
  if ((verb !== 'add' && verb !== 'remove') || !name) return usage(io);

  const [user] = await tools.users.named([name]);
  if (!user) {
    io.err(`没有用户名为 ${name} 的账号（请先在控制台注册）`);
    return 1;
  }
  const grant = verb === 'add';
  const change = await (grant ? tools.access.grant : tools.access.revoke).call(tools.access, user.id, 'operator', (tx, c) =>
    tools.audit.record(tx, {
      actor,
      action: grant ? 'role.grant' : 'role.revoke',
      target: { type: 'user', id: user.id, name: user.username },
      before: { roles: c.before },
      after: { roles: c.after },
    }),
  );
  if (!change) {
    io.out(grant ? `${user.username} 已是运营人员，未做更改` : `${user.username} 不是运营人员，未做更改`);
    return 0;
  }
  io.out(grant ? `已将 ${user.username} 设为运营人员（已写入审计日志）` : `已撤销 ${user.username} 的运营人员角色（已写入审计日志）`);
  if (grant && user.status === 'disabled') io.out(`注意：账号 ${user.username} 当前已被禁用，启用后才能登录`);
  return 0;
}

async function list(tools: AdminTools, io: AdminOutput): Promise<number> {
  const holders = await tools.access.holders('operator');
  if (!holders.length) {
    io.out('还没有运营人员。设置第一位：npm run admin -- operator add <用户名>');
    return 0;
  }
  const names = await tools.users.names(holders.map((h) => h.userId));
  io.out(`运营人员（${holders.length} 名）：`);
  for (const h of holders) {
    const n = names.get(h.userId);
    io.out(`  ${n?.username ?? h.userId}\t${n?.nickname ?? ''}\t自 ${new Date(h.since).toISOString()}`);
  }
  return 0;
}

/** `rsa rotate|list|retire <id>`: exit codes as for `operator` (0 done or nothing to do, 1 refused, 2 usage). */
async function rsa(verb: string | undefined, id: string | undefined, tools: AdminTools, io: AdminOutput, actor: AuditActor): Promise<number> {
  if (verb === 'list' && id === undefined) {
    const keys = await tools.rsa.list();
    if (!keys.length) {
      io.out('还没有 RSA 密钥（网关首次启动时生成），或用 npm run admin -- rsa rotate 生成');
      return 0;
    }
    io.out(`RSA 密钥（${keys.length} 把，最新的在前）：`);
    for (const k of keys) {
      const state = k.served ? '下发中' : k.retired ? '已停用' : '未下发，仍可解密';
      io.out(`  ${k.id}\t${k.fingerprint}\t创建于 ${new Date(k.createTime).toISOString()}\t${state}`);
    }
    return 0;
  }
  if (verb === 'rotate' && id === undefined) {
    const key = await tools.rsa.rotate((tx, c) =>
      tools.audit.record(tx, {
        actor,
        action: 'rsaKey.rotate',
        target: { type: 'rsaKey', id: c.created.id, name: c.created.fingerprint },
        // Field names 审计日志 shows in words (admin-view.tsx: 下发的密钥, 密钥状态).
        before: { servedKey: c.previous?.id ?? null },
        after: { servedKey: c.created.id },
      }),
    );
    io.out(`已生成新的 RSA 密钥 ${key.id}（指纹 ${key.fingerprint}），网关从现在起下发它（已写入审计日志）`);
    io.out('旧密钥仍可解密已打开登录页的客户端提交的密码；不再需要时用 npm run admin -- rsa retire <编号> 停用');
    return 0;
  }
  if (verb !== 'retire' || !id) return usage(io);
  const r = await tools.rsa.retire(id, (tx, key) =>
    tools.audit.record(tx, {
      actor,
      action: 'rsaKey.retire',
      target: { type: 'rsaKey', id: key.id, name: key.fingerprint },
      before: { keyState: 'active' },
      after: { keyState: 'retired' },
    }),
  );
  if (r.outcome === 'missing') {
    io.err(`没有编号为 ${id} 的 RSA 密钥（npm run admin -- rsa list 列出全部）`);
    return 1;
  }
  if (r.outcome === 'served') {
    io.err(`RSA 密钥 ${id} 正在下发，不能停用：请先用 npm run admin -- rsa rotate 生成新密钥`);
    return 1;
  }
  if (r.outcome === 'already') {
    io.out(`RSA 密钥 ${id} 已停用，未做更改`);
    return 0;
  }
  io.out(`已停用 RSA 密钥 ${id}：用它加密的密码不再能解密（已写入审计日志）`);
  return 0;
}

function usage(io: AdminOutput): number {
  for (const line of ADMIN_USAGE) io.err(line);
  return 2;
}

/**
 * The modules the command needs, built by their own factories on the database the configuration names
 * (migrated first, as the gateway does at start).
 */
export async function openAdminTools(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'clock'>): Promise<{ tools: AdminTools; close: () => Promise<void> }> {
  const handle = openDb({ databaseUrl: config.databaseUrl, sqliteFile: sqliteFileIn(config.dataDir) });
  try {
    await migrate(handle.db);
  } catch (err) {
    await handle.close();
    throw err;
  }
  const infra = { db: handle.db, clock: config.clock };
  const users = createUserDirectory(infra);
  const access = createAccessModule(infra, (id) => users.status(id));
  const audit = createAuditModule(infra, access.service, users);
  return { tools: { users, access: access.service, audit: audit.service, rsa: createRsaKeyService(infra) }, close: handle.close };
}
