import { formatCardHours, teamOfPayer, teamPayer, type AdminGrantPage, type AdminGrantPageQuery, type GrantBody, type GrantRecord } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import type { Notify } from '../../context';
import { invalid, notFound } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { InTx } from '../../db/db';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { AuditTrail } from '../audit/audit.service';
import type { TeamPayers } from '../team/team.service';
import type { UserDirectory } from '../user/user-directory';
import type { CompPowerRepository } from './comp-power.repository';
import type { BalanceLimits } from './balance-limit.service';

const DAY_MS = 24 * 3600_000;
const HOUR_SECONDS = 3600;

/** The welcome grant (WELCOME_GRANT_CARD_HOURS, WELCOME_GRANT_DAYS): 卡时 on every card type of every center. */
export interface WelcomeGrant {
  cardHours: number;
  validDays: number;
}

export interface Grant {
  ownerId: string;
  subCenterId: string;
  cardTypeId: string;
  cardSeconds: number;
  validDays: number;
  /** Shown to the user (赠送记录, the message). */
  reason: string;
  /** Given once per key; absent: every call gives. */
  key?: string;
  /** The operator who gave it; absent for the platform's own grants. */
  grantedBy?: string;
}

interface Log {
  error: (o: object, msg: string) => void;
}

/**
 * Grants (赠送, ADR 0015): compute power given for free — by an operator, as the welcome grant, to the demo
 * account. Each is a bucket (source `grant`) and a charge-side record (kind `grant`) written together; a
 * keyed grant (welcome, demo) is given once per key whoever races to give it (the unique grant key).
 */
export class GrantService {
  private readonly centers: Map<string, CenterConfig>;
  /** Users this process knows to have had their welcome grant (saves the look-up on every balance read). */
  private readonly welcomed = new Set<string>();

  constructor(
    private readonly repo: CompPowerRepository,
    centers: CenterConfig[],
    private readonly users: Pick<UserDirectory, 'named' | 'names'>,
    private readonly access: Pick<AccessService, 'require'>,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly bus: EventBus,
    private readonly log: Log,
    private readonly audit: AuditTrail,
    private readonly welcomeGrant?: WelcomeGrant,
    /** 算力发放 to a team (ADR 0017): teams by name, their members (told of the credit), names for the list. */
    private readonly teams?: Pick<TeamPayers, 'named' | 'names' | 'memberIds'>,
    /** The balance enforced by the scheduler (issue 25): a credited user's held accounts are opened at once. */
    private readonly limits?: Pick<BalanceLimits, 'owners'>,
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  /** Gives the grant; null when its key was given before (nothing written). `alsoIn` joins its transaction. */
  async grant(g: Grant, alsoIn?: InTx): Promise<GrantRecord | null> {
    const center = this.centers.get(g.subCenterId);
    const cardType = center?.cardTypes.find((t) => t.id === g.cardTypeId);
    if (!center || !cardType) throw notFound('分中心的卡型');
    const now = this.clock();
    const ids = { bucketId: newId(now), chargeId: newId(now) };
    const given = await this.repo.grant(
      {
        ownerId: g.ownerId,
        subCenterId: g.subCenterId,
        cardTypeId: g.cardTypeId,
        cardSeconds: g.cardSeconds,
        expireTime: now + g.validDays * DAY_MS,
        reason: g.reason,
        grantedBy: g.grantedBy ?? null,
        key: g.key ?? null,
      },
      ids,
      now,
      alsoIn,
    );
    if (!given) return null;
    return {
      id: ids.chargeId,
      cardHours: formatCardHours(g.cardSeconds),
      compPowerId: ids.bucketId,
      subCenterId: center.id,
      subCenterName: center.name,
      cardTypeId: cardType.id,
      cardTypeName: cardType.name,
      reason: g.reason,
      createTime: now,
    };
  }

  /**
   * `POST /comp-powers/grant` (算力发放): an operator gives a user (by username) or a team (by name, ADR 0017)
   * compute power; one audit entry (`compPower.grant`, target the user or the team) in the grant's transaction,
   * then the user — for a team its owner — is told, and everyone who sees that balance has it pushed.
   */
  async byOperator(p: Principal, body: GrantBody, ip: string | null): Promise<GrantRecord> {
    this.access.require(p, 'compPower.grant');
    const to = await this.recipient(body);
    const center = this.centers.get(body.subCenterId);
    const cardType = center?.cardTypes.find((t) => t.id === body.cardTypeId);
    if (!center || !cardType) throw notFound('分中心的卡型');
    const reason = body.reason.trim();
    // Resolved before the transaction (docs/adding-a-module.md, "Operator actions").
    const actor = await this.audit.operator(p, ip);
    const given = `${center.name} ${cardType.name} ${formatCardHours(body.cardHours * HOUR_SECONDS)} 卡时，有效期 ${body.validDays} 天`;
    const record = (await this.grant(
      {
        ownerId: to.ownerId,
        subCenterId: body.subCenterId,
        cardTypeId: body.cardTypeId,
        cardSeconds: body.cardHours * HOUR_SECONDS,
        validDays: body.validDays,
        reason,
        grantedBy: p.userId,
      },
      (tx) => this.audit.record(tx, { actor, action: 'compPower.grant', target: to.target, before: null, after: { grant: given }, reason }),
    ))!;
    try {
      await this.notify(to.notify, {
        type: 'order',
        title: to.team ? `团队「${to.team}」获得赠送算力` : '获得赠送算力',
        content: `${to.team ? `团队「${to.team}」` : '您'}获得赠送算力：${record.subCenterName} ${record.cardTypeName} ${record.cardHours} 卡时，有效期 ${body.validDays} 天（${record.reason}）。`,
        businessType: 'grant',
        businessId: record.id,
      });
    } catch (err) {
      // The grant is committed; a lost message must not turn it into an error the operator repeats.
      this.log.error({ err, grantId: record.id }, 'grant: message to the user failed');
    }
    for (const userId of to.tell) await this.bus.publish(userId, { businessType: 'comp-power.changed', data: {} });
    await this.limits?.owners([...to.tell]);
    return record;
  }

  /**
   * Whom a grant goes to: `username`, or `teamName` (+ `teamOwner` when several owners' teams share the
   * name — names are unique per owner only). Exactly one of username / teamName (1001).
   */
  private async recipient(body: GrantBody): Promise<{ ownerId: string; target: { type: string; id: string; name: string }; notify: string; tell: string[]; team?: string }> {
    const username = body.username?.trim();
    const teamName = body.teamName?.trim();
    if (Boolean(username) === Boolean(teamName)) throw invalid('username', '请填写用户名或团队名称（二选一）');
    if (username) {
      const [user] = await this.users.named([username]);
      if (!user) throw notFound('用户');
      return { ownerId: user.id, target: { type: 'user', id: user.id, name: user.username }, notify: user.id, tell: [user.id] };
    }
    let teams = this.teams ? await this.teams.named(teamName!) : [];
    const owner = body.teamOwner?.trim();
    if (owner) {
      const [u] = await this.users.named([owner]);
      teams = teams.filter((t) => t.ownerId === u?.id);
    }
    if (!teams.length) throw notFound('团队');
    if (teams.length > 1) throw invalid('teamOwner', `有 ${teams.length} 个名为「${teamName}」的团队，请同时填写团队所有者的用户名`);
    const team = teams[0];
    const ownerName = (await this.users.names([team.ownerId])).get(team.ownerId)?.username ?? '';
    return {
      ownerId: teamPayer(team.id),
      target: { type: 'team', id: team.id, name: ownerName ? `${team.name}（${ownerName}）` : team.name },
      notify: team.ownerId,
      // Every member reads the team's balance.
      tell: await this.teams!.memberIds(team.id),
      team: team.name,
    };
  }

  /** 算力发放's list: operators' grants, newest first, optionally to one username. */
  async operatorGrants(p: Principal, q: AdminGrantPageQuery): Promise<AdminGrantPage> {
    this.access.require(p, 'compPower.grant');
    const username = q.username?.trim();
    const owners = username ? (await this.users.named([username])).map((u) => u.id) : undefined;
    const { rows, total } = await this.repo.operatorGrants(owners, (q.pageNum - 1) * q.pageSize, q.pageSize);
    const names = await this.users.names([...new Set(rows.flatMap((r) => [r.owner_id, r.granted_by!]))]);
    const teamIds = [...new Set(rows.map((r) => teamOfPayer(r.owner_id)).filter((id): id is string => Boolean(id)))];
    const teamNames = teamIds.length && this.teams ? await this.teams.names(teamIds) : new Map<string, string>();
    const list = rows.map((r) => {
      const center = this.centers.get(r.sub_center_id);
      const owner = names.get(r.owner_id);
      const teamId = teamOfPayer(r.owner_id);
      return {
        // A team's grant names the team (a dissolved one: empty name).
        ...(teamId ? { teamId, teamName: teamNames.get(teamId) ?? '' } : {}),
        id: r.id,
        cardHours: formatCardHours(Number(r.card_seconds)),
        compPowerId: r.comp_power_id,
        subCenterId: r.sub_center_id,
        // A center or card type removed from the config still shows under its id.
        subCenterName: center?.name ?? r.sub_center_id,
        cardTypeId: r.card_type_id,
        cardTypeName: center?.cardTypes.find((t) => t.id === r.card_type_id)?.name ?? r.card_type_id,
        reason: r.reason ?? '',
        createTime: Number(r.create_time),
        userId: r.owner_id,
        username: owner?.username ?? '',
        nickname: owner?.nickname ?? '',
        grantedByName: names.get(r.granted_by!)?.username ?? '',
        expireTime: Number(r.expire_time),
      };
    });
    return { list, total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  /**
   * The welcome grant, when this deployment gives one: every card type of every center, once per user
   * (keyed), the first time the user's compute power is read or a task is submitted. Quiet: the balance and
   * 赠送记录 show it.
   */
  async welcome(userId: string): Promise<void> {
    const w = this.welcomeGrant;
    if (!w || w.cardHours <= 0 || this.welcomed.has(userId)) return;
    await this.giveEach(userId, 'welcome', w.cardHours, w.validDays, '新用户赠送');
    this.welcomed.add(userId);
  }

  /** The demo account's grant (seed): like the welcome grant, once, under its own key. */
  async demo(userId: string, cardHours: number, validDays: number): Promise<void> {
    await this.giveEach(userId, 'demo', cardHours, validDays, '演示账号赠送');
  }

  private async giveEach(userId: string, kind: string, cardHours: number, validDays: number, reason: string) {
    const pairs = [...this.centers.values()].flatMap((c) => c.cardTypes.map((t) => ({ c: c.id, t: t.id, key: `${kind}:${userId}:${c.id}:${t.id}` })));
    const given = await this.repo.givenKeys(pairs.map((x) => x.key));
    for (const x of pairs) {
      if (given.has(x.key)) continue;
      await this.grant({ ownerId: userId, subCenterId: x.c, cardTypeId: x.t, cardSeconds: cardHours * HOUR_SECONDS, validDays, reason, key: x.key });
    }
  }
}
