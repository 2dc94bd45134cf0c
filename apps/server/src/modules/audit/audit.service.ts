import type { AuditActorKind, AuditEntry, AuditPage, AuditPageQuery } from '@suanli/contracts';
import type { Tx } from '../../db/db';
import { invalid } from '../../errors';
import { newId } from '../../lib/id';
import type { AccessService } from '../access/access.service';
import type { Caller, Principal } from '../access/principal';
import type { UserDirectory } from '../user/user-directory';
import type { AuditRepository, AuditRow } from './audit.repository';

/** Who acted, resolved before the action's transaction opens (see `AuditTrail.operator`). */
export interface AuditActor {
  kind: AuditActorKind;
  /** The operator's user id; null for the server command. */
  id: string | null;
  /** The operator's username, or `<os user>@<host>` for the server command. */
  name: string;
  /** The operator's address; null for the server command. */
  ip: string | null;
}

/** One operator action, as the module that performs it describes it. */
export interface AuditRecord {
  actor: AuditActor;
  /** `<target>.<verb>`, one of AUDIT_ACTIONS (contracts/admin.ts). */
  action: string;
  target: { type: string; id: string; name: string };
  /** The target's state before and after the action (JSON-serialisable; null: did not exist / no longer exists). */
  before: unknown;
  after: unknown;
  reason?: string;
}

/**
 * The port other modules' operator actions write through (docs/adding-a-module.md "Operator actions"):
 * resolve the actor first, then call `record` inside the transaction of the action's own writes.
 */
export interface AuditTrail {
  /** The acting operator with their name, read now — never inside the action's transaction. */
  operator(p: Pick<Principal, 'userId'>, ip: string | null): Promise<AuditActor>;
  /** Appends the entry in `tx`: it exists exactly when the action's writes committed. */
  record(tx: Tx, entry: AuditRecord): Promise<void>;
}

const REASON_MAX = 200;

/**
 * 审计日志 (issue 20): append-only. Writes come only through `record`, inside the transaction of the action
 * they describe; operators read them through `page`. Nothing edits or deletes an entry.
 */
export class AuditService implements AuditTrail {
  constructor(
    private readonly repo: AuditRepository,
    private readonly access: Pick<AccessService, 'require'>,
    /** Operators' usernames, stored with each entry as they were at the time. */
    private readonly users: Pick<UserDirectory, 'username'>,
    private readonly clock: () => number,
  ) {}

  async operator(p: Pick<Principal, 'userId'>, ip: string | null): Promise<AuditActor> {
    // Read before the transaction: on SQLite the transaction holds the one writer connection, and a query
    // outside it from inside it would wait for itself.
    return { kind: 'operator', id: p.userId, name: (await this.users.username(p.userId)) || p.userId, ip };
  }

  async record(tx: Tx, e: AuditRecord): Promise<void> {
    const now = this.clock();
    await this.repo.append(tx, {
      id: newId(now),
      actor_kind: e.actor.kind,
      actor_id: e.actor.id,
      actor_name: e.actor.name,
      action: e.action,
      target_type: e.target.type,
      target_id: e.target.id,
      target_name: e.target.name,
      before_json: e.before === null || e.before === undefined ? null : JSON.stringify(e.before),
      after_json: e.after === null || e.after === undefined ? null : JSON.stringify(e.after),
      reason: cleanReason(e.reason),
      ip: e.actor.ip,
      create_time: now,
    });
  }

  async page(p: Caller, q: AuditPageQuery): Promise<AuditPage> {
    this.access.require(p, 'audit.read');
    if (q.startTime !== undefined && q.endTime !== undefined && q.endTime <= q.startTime) throw invalid('endTime', '应晚于开始时间');
    const { rows, total } = await this.repo.page(
      {
        actor: q.actor?.trim() || undefined,
        action: q.action?.trim() || undefined,
        target: q.target?.trim() || undefined,
        startTime: q.startTime,
        endTime: q.endTime,
      },
      (q.pageNum - 1) * q.pageSize,
      q.pageSize,
    );
    return { list: rows.map(toEntry), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }
}

/** A reason as stored: one trimmed line without control characters, bounded. */
export function cleanReason(raw: string | undefined): string {
  return (raw ?? '').replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim().slice(0, REASON_MAX);
}

function toEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    actorKind: r.actor_kind === 'command' ? 'command' : 'operator',
    actorId: r.actor_id,
    actorName: r.actor_name,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    targetName: r.target_name,
    before: r.before_json,
    after: r.after_json,
    reason: r.reason,
    ip: r.ip,
    createTime: Number(r.create_time),
  };
}
