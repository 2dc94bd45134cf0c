import type { AccessSession, AccessSessionAdminPage, AccessSessionKind, AccessSessionPage, AccessSessionQuery } from '@suanli/contracts';
import { forbidden } from '../../errors';
import type { CenterConfig } from '../../centers/centers';
import { newId } from '../../lib/id';
import type { AccessSessionsTable } from '../../db/schema';
import type { Principal } from '../auth/session.service';
import type { AccessLogRepository } from './access-log.repository';

/** What a module states when an interactive session begins (docs/plan/10.md, "Web shell"). */
export interface AccessStart {
  kind: AccessSessionKind;
  userId: string;
  centerId: string;
  /** The cluster account the session acts as. */
  account: string;
  /** Shell: the transport (ssh | local); proxy: the task id. */
  target: string;
  clientIp?: string;
}

/**
 * Records every web shell and develop-task proxy session (issue 10, criterion 5). A module calls `open`
 * when the session is established and `close(id, reason)` when it ends, whatever the reason; the records
 * are the user's own list (`page`) and the operators' (`between`).
 */
export class AccessLogService {
  constructor(
    private readonly repo: AccessLogRepository,
    private readonly centers: CenterConfig[],
    private readonly clock: () => number,
    /** Whether a user holds the operator role (user module). */
    private readonly isOperator: (userId: string) => Promise<boolean>,
  ) {}

  async open(s: AccessStart): Promise<string> {
    const id = newId(this.clock());
    await this.repo.insert({
      id,
      kind: s.kind,
      user_id: s.userId,
      sub_center_id: s.centerId,
      account: s.account,
      target: s.target,
      client_ip: s.clientIp ?? '',
      start_time: this.clock(),
    });
    return id;
  }

  /** Open records of a kind: `{id, target}`. */
  openOfKind(kind: AccessSessionKind) {
    return this.repo.openOfKind(kind);
  }

  /** Ends the record (first call wins). Reasons: closed, idle, exited, revoked, error, server, stopped… */
  close(id: string, reason: string): Promise<void> {
    return this.repo.end(id, this.clock(), reason);
  }

  /** The caller's own records, newest first. */
  async page(p: Principal, q: AccessSessionQuery): Promise<AccessSessionPage> {
    const { rows, total } = await this.repo.pageOfUser(p.userId, q.kind, (q.pageNum - 1) * q.pageSize, q.pageSize);
    return { list: rows.map((r) => this.toContract(r)), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  /** Operators: every user's records, newest first, with the user id and address; anyone else → 1020. */
  async pageAll(p: Principal, q: AccessSessionQuery): Promise<AccessSessionAdminPage> {
    if (!(await this.isOperator(p.userId))) throw forbidden();
    const { rows, total } = await this.repo.pageAll(q.kind, (q.pageNum - 1) * q.pageSize, q.pageSize);
    return {
      list: rows.map((r) => ({ ...this.toContract(r), userId: r.user_id, clientIp: r.client_ip })),
      total,
      pageNum: q.pageNum,
      pageSize: q.pageSize,
    };
  }

  /** Operators (reports): every user's records started in [from, to), with the user id. */
  async between(from: number, to: number, limit = 1000): Promise<(AccessSession & { userId: string; clientIp: string })[]> {
    const rows = await this.repo.listBetween(from, to, limit);
    return rows.map((r) => ({ ...this.toContract(r), userId: r.user_id, clientIp: r.client_ip }));
  }

  private toContract(r: AccessSessionsTable): AccessSession {
    return {
      id: r.id,
      kind: r.kind === 'proxy' ? 'proxy' : 'shell',
      centerId: r.sub_center_id,
      centerName: this.centers.find((c) => c.id === r.sub_center_id)?.name ?? r.sub_center_id,
      account: r.account,
      target: r.target,
      startTime: Number(r.start_time),
      endTime: r.end_time == null ? null : Number(r.end_time),
      endReason: r.end_reason,
    };
  }
}
