import {
  ErrorCode,
  type AdminUser,
  type AdminUserDetail,
  type AdminUserPage,
  type AdminUserPageQuery,
  type AdminUserStatusBody,
  type AdminUserTask,
  type ClusterAccount,
  type JobState,
  type Role,
  type TaskKind,
} from '@suanli/contracts';
import { AppError } from '../../errors';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { AuditTrail } from '../audit/audit.service';
import type { SessionService } from '../auth/session.service';
import type { UserRepository } from './user.repository';

type AdminRow = NonNullable<Awaited<ReturnType<UserRepository['findForAdmin']>>>;

/** A task holding cards now, as the task module's usage port reads it. */
export interface RunningTaskRow {
  id: string;
  kind: string;
  type: string;
  name: string;
  state: string;
  sub_center_id: string;
  card_type_id: string;
  card_num: number;
  node_num: number;
  start_time: number | null;
}

export interface UserAdminDeps {
  users: UserRepository;
  access: Pick<AccessService, 'require' | 'found' | 'rolesOf' | 'rolesOfMany'>;
  audit: AuditTrail;
  /** Ends every session of the account on every gateway (sockets and shells close with them). */
  sessions: Pick<SessionService, 'revokeAllOfUser'>;
  /** The account's cluster accounts as the user sees them (UserService.agentUsers). */
  clusterAccounts: (userId: string) => Promise<ClusterAccount[]>;
  /** The account's tasks holding cards now (the task module's usage port, read-only). */
  runningTasks: (userId: string) => Promise<RunningTaskRow[]>;
  clock: () => number;
}

/**
 * 运营管理 › 用户 (issue 20): operators find any account, read its detail, and disable or enable it. Every
 * method asks the access module first; each change writes its audit entry in the transaction of the status
 * change. Disabling ends the account's sessions on every gateway at once (the revocation travels on the bus,
 * so sockets and web shells close everywhere), and the account can no longer log in (1027).
 */
export class UserAdminService {
  constructor(private readonly d: UserAdminDeps) {}

  async page(p: Principal, q: AdminUserPageQuery): Promise<AdminUserPage> {
    this.d.access.require(p, 'user.readAll');
    const { rows, total } = await this.d.users.adminPage({ keyword: q.keyword?.trim() || undefined, status: q.status }, (q.pageNum - 1) * q.pageSize, q.pageSize);
    const roles = await this.d.access.rolesOfMany(rows.map((r) => r.id));
    return { list: rows.map((r) => toAdminUser(r, roles.get(r.id) ?? ['user'])), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async detail(p: Principal, id: string): Promise<AdminUserDetail> {
    const row = await this.find(p, id);
    const [roles, clusterAccounts, running] = await Promise.all([this.d.access.rolesOf(id), this.d.clusterAccounts(id), this.d.runningTasks(id)]);
    return { ...toAdminUser(row, roles), clusterAccounts, runningTasks: running.map(toTask) };
  }

  disable(p: Principal, id: string, body: AdminUserStatusBody, ip: string | null): Promise<AdminUser> {
    return this.move(p, id, 'disabled', body, ip);
  }

  enable(p: Principal, id: string, body: AdminUserStatusBody, ip: string | null): Promise<AdminUser> {
    return this.move(p, id, 'active', body, ip);
  }

  private async move(p: Principal, id: string, to: 'active' | 'disabled', body: AdminUserStatusBody, ip: string | null): Promise<AdminUser> {
    this.d.access.require(p, 'user.manage');
    const row = await this.find(p, id);
    // An operator locking themselves out would need someone at the server to undo it.
    if (row.id === p.userId) throw new AppError(ErrorCode.ADMIN_SELF);
    const from = to === 'disabled' ? 'active' : 'disabled';
    const actor = await this.d.audit.operator(p, ip);
    const moved = await this.d.users.setStatus(id, from, to, this.d.clock(), (tx) =>
      this.d.audit.record(tx, {
        actor,
        action: to === 'disabled' ? 'user.disable' : 'user.enable',
        target: { type: 'user', id, name: row.username },
        before: { status: from },
        after: { status: to },
        reason: body.reason,
      }),
    );
    if (!moved) throw new AppError(ErrorCode.ADMIN_USER_STATE, to === 'disabled' ? '该账号已被禁用' : '该账号未被禁用');
    // After the commit: from here on no gateway verifies the account's tokens (the status alone already
    // refuses them within SESSION_CACHE_MS; the revocation makes it immediate and closes the connections).
    if (to === 'disabled') await this.d.sessions.revokeAllOfUser(id, 'disabled');
    return toAdminUser({ ...row, status: to }, await this.d.access.rolesOf(id));
  }

  /** The account by id for an operator; 1205 naming 用户 when there is none. */
  private async find(p: Principal, id: string): Promise<AdminRow> {
    return this.d.access.found(p, 'user.readAll', await this.d.users.findForAdmin(id), (r) => ({ ownerId: r.id }), '用户');
  }
}

function toAdminUser(r: AdminRow, roles: Role[]): AdminUser {
  return {
    id: r.id,
    username: r.username,
    nickname: r.nickname,
    phone: r.phone,
    email: r.email,
    headImage: r.head_image,
    status: r.status === 'disabled' ? 'disabled' : 'active',
    roles,
    createTime: Number(r.create_time),
  };
}

function toTask(r: RunningTaskRow): AdminUserTask {
  return {
    id: r.id,
    kind: r.kind as TaskKind,
    type: r.type,
    name: r.name,
    state: r.state as JobState,
    subCenterId: r.sub_center_id,
    cardTypeId: r.card_type_id,
    cardNum: Number(r.card_num),
    nodeNum: Number(r.node_num),
    startTime: r.start_time === null ? null : Number(r.start_time),
  };
}
