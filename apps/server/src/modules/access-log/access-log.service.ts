import type { AccessSession, AccessSessionAdminPage, AccessSessionKind, AccessSessionPage, AccessSessionQuery } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { newId } from '../../lib/id';
import type { AccessSessionsTable } from '../../db/schema';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
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
  /**
   * The session lives in this process (a shell's pty or SSH connection): the record is renewed while the
   * process runs, and any gateway ends it once the renewals stop (the process died). Proxy sessions are
   * not held — any replica serves their cookie — and end with their task instead.
   */
  held?: boolean;
}

export interface AccessLogOptions {
  /** How often a gateway renews the records it holds and ends the ones nobody renews (default 30 s). */
  renewMs?: number;
  /** A held record not renewed for this long belongs to a dead gateway (default 3 min). */
  staleMs?: number;
}

export const ACCESS_RENEW_MS = 30_000;
export const ACCESS_STALE_MS = 3 * 60_000;
/** The end reason of a record whose gateway stopped renewing it (console: 网关已停止，会话已结束). */
export const GATEWAY_LOST = 'gateway-lost';

/**
 * Records every web shell and develop-task proxy session (issue 10, criterion 5). A module calls `open`
 * when the session is established and `close(id, reason)` when it ends, whatever the reason; the records
 * are the user's own list (`page`) and the operators' (`between`).
 */
export class AccessLogService {
  /** Open records this process holds (renewed each round; a failed close simply stops renewing). */
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private readonly renewMs: number;
  private readonly staleMs: number;

  constructor(
    private readonly repo: AccessLogRepository,
    private readonly centers: CenterConfig[],
    private readonly clock: () => number,
    private readonly access: Pick<AccessService, 'require'>,
    private readonly log: { warn: (o: object, msg: string) => void; info: (o: object, msg: string) => void },
    opts: AccessLogOptions = {},
  ) {
    this.renewMs = opts.renewMs ?? ACCESS_RENEW_MS;
    this.staleMs = opts.staleMs ?? ACCESS_STALE_MS;
  }

  /**
   * Records left open by a gateway that died: every replica renews the records it holds and ends those that
   * nobody renewed for `staleMs` — never "everything open at start-up", which would end the live sessions
   * of the other replicas sharing the database.
   */
  start() {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.renewMs);
    this.timer.unref();
    void this.tick();
  }

  /** One round: renew what this process holds, then end what nobody renews (tests call it directly). */
  tick(): Promise<void> {
    this.round ??= (async () => {
      try {
        const now = this.clock();
        await this.repo.renew([...this.held], now, GATEWAY_LOST);
        const ended = await this.repo.endUnseen(now - this.staleMs, GATEWAY_LOST);
        if (ended) this.log.info({ ended }, 'access log: ended records of a stopped gateway');
      } catch (err) {
        this.log.warn({ err }, 'access log: renewal round failed');
      } finally {
        this.round = null;
      }
    })();
    return this.round;
  }

  /** Stops renewing (the gateway closes; its shells were ended before). */
  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round;
  }

  async open(s: AccessStart): Promise<string> {
    const id = newId(this.clock());
    if (s.held) this.held.add(id);
    await this.repo.insert({
      id,
      kind: s.kind,
      user_id: s.userId,
      sub_center_id: s.centerId,
      account: s.account,
      target: s.target,
      client_ip: s.clientIp ?? '',
      start_time: this.clock(),
      seen_time: s.held ? this.clock() : null,
    });
    return id;
  }

  /** Open records of a kind: `{id, target}`. */
  openOfKind(kind: AccessSessionKind) {
    return this.repo.openOfKind(kind);
  }

  /** The ids of a user's open records of a kind, whichever gateway holds them (limits count across replicas). */
  async openIdsOfUser(userId: string, kind: AccessSessionKind): Promise<string[]> {
    return (await this.repo.openOfUser(userId, kind)).map((r) => r.id);
  }

  /** Ends the record (first call wins). Reasons: closed, idle, exited, revoked, error, server, stopped… */
  close(id: string, reason: string): Promise<void> {
    this.held.delete(id);
    return this.repo.end(id, this.clock(), reason);
  }

  /** The caller's own records, newest first. */
  async page(p: Principal, q: AccessSessionQuery): Promise<AccessSessionPage> {
    const { rows, total } = await this.repo.pageOfUser(p.userId, q.kind, (q.pageNum - 1) * q.pageSize, q.pageSize);
    return { list: rows.map((r) => this.toContract(r)), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  /** Operators: every user's records, newest first, with the user id and address; anyone else → 1020. */
  async pageAll(p: Principal, q: AccessSessionQuery): Promise<AccessSessionAdminPage> {
    this.access.require(p, 'accessLog.readAll');
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
