import { formatCardHours, type GrantBody, type GrantRecord } from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import type { Notify } from '../../context';
import { notFound } from '../../errors';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { UserDirectory } from '../user/user-directory';
import type { CompPowerRepository } from './comp-power.repository';

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
    private readonly users: Pick<UserDirectory, 'named'>,
    private readonly access: Pick<AccessService, 'require'>,
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly bus: EventBus,
    private readonly log: Log,
    private readonly welcomeGrant?: WelcomeGrant,
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  /** Gives the grant; null when its key was given before (nothing written). */
  async grant(g: Grant): Promise<GrantRecord | null> {
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

  /** `POST /comp-powers/grant`: an operator gives a user (by username) compute power; the user is told. */
  async byOperator(p: Principal, body: GrantBody): Promise<GrantRecord> {
    this.access.require(p, 'compPower.grant');
    const [user] = await this.users.named([body.username]);
    if (!user) throw notFound('用户');
    const record = (await this.grant({
      ownerId: user.id,
      subCenterId: body.subCenterId,
      cardTypeId: body.cardTypeId,
      cardSeconds: body.cardHours * HOUR_SECONDS,
      validDays: body.validDays,
      reason: body.reason.trim(),
      grantedBy: p.userId,
    }))!;
    try {
      await this.notify(user.id, {
        type: 'order',
        title: '获得赠送算力',
        content: `您获得赠送算力：${record.subCenterName} ${record.cardTypeName} ${record.cardHours} 卡时，有效期 ${body.validDays} 天（${record.reason}）。`,
        businessType: 'grant',
        businessId: record.id,
      });
    } catch (err) {
      // The grant is committed; a lost message must not turn it into an error the operator repeats.
      this.log.error({ err, grantId: record.id }, 'grant: message to the user failed');
    }
    await this.bus.publish(user.id, { businessType: 'comp-power.changed', data: {} });
    return record;
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
