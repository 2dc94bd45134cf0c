import { notFound } from '../../errors';
import type { TeamPayers } from '../team/team.service';
import { formatCardHours, type CompPowerSource, type CompPowers } from '@suanli/contracts';
import { FACTOR_SCALE, type CenterConfig } from '../../centers/centers';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { CompPowerRepository } from './comp-power.repository';

/** Remaining compute power (算力) of a user: the header's figure and the per-bucket breakdown. */
export class CompPowerService {
  private readonly centers: Map<string, CenterConfig>;

  constructor(
    private readonly repo: CompPowerRepository,
    centers: CenterConfig[],
    private readonly access: Pick<AccessService, 'require'>,
    private readonly clock: () => number,
    /** The welcome grant (when the deployment gives one) comes before the first figure a user sees. */
    private readonly welcome: (userId: string) => Promise<void> = async () => {},
    private readonly teams?: Pick<TeamPayers, 'payer'>,
    /** The user's cluster accounts the scheduler holds for lack of power (issue 25), by center. */
    private readonly held: (userId: string) => Promise<{ subCenterId: string; account: string }[]> = async () => [],
  ) {
    this.centers = new Map(centers.map((c) => [c.id, c]));
  }

  async ofUser(p: Principal, userId: string): Promise<CompPowers> {
    // Only one's own balance; team balances will come with teams and their roles (a rule in access.policy.ts).
    this.access.require(p, 'compPower.read', { ownerId: userId });
    await this.welcome(userId);
    const [balance, held] = await Promise.all([this.balanceOf(userId), this.held(userId)]);
    return { ...balance, held: held.map((h) => ({ ...h, subCenterName: this.centers.get(h.subCenterId)?.name ?? h.subCenterId })) };
  }

  /** A team's balance (ADR 0017): any member reads it; 1205 for anyone else. */
  async ofTeam(p: Principal, teamId: string): Promise<CompPowers> {
    if (!this.teams) throw notFound('团队');
    return this.balanceOf((await this.teams.payer(p, teamId, 'team.read')).payer);
  }

  private async balanceOf(userId: string): Promise<CompPowers> {
    const rows = await this.repo.usable(userId, this.clock());
    let totalSeconds = 0;
    // Standard card-seconds × FACTOR_SCALE, in BigInt: factors have at most 4 decimals, so this is exact.
    let scaledStandard = 0n;
    const items = rows.map((r) => {
      totalSeconds += Number(r.remaining);
      const center = this.centers.get(r.sub_center_id);
      // A center removed from the config still shows its buckets under their ids rather than hiding balance.
      const cardType = center?.cardTypes.find((c) => c.id === r.card_type_id);
      // A card type gone from the config counts as standard (factor 1) rather than vanishing from the total.
      const standardFactor = cardType?.standardFactor ?? 1;
      const scaled = BigInt(Number(r.remaining)) * BigInt(Math.round(standardFactor * FACTOR_SCALE));
      scaledStandard += scaled;
      return {
        id: r.id,
        subCenterId: r.sub_center_id,
        subCenterName: center?.name ?? r.sub_center_id,
        cardTypeId: r.card_type_id,
        cardTypeName: cardType?.name ?? r.card_type_id,
        granted: formatCardHours(Number(r.granted)),
        remaining: formatCardHours(Number(r.remaining)),
        expireTime: Number(r.expire_time),
        source: r.source as CompPowerSource,
        standardFactor,
        standardRemaining: formatCardHours(Number(scaled / BigInt(FACTOR_SCALE))),
      };
    });
    // Summed in card-seconds before rounding, so the totals never lose the items' fractions (rounded down).
    return { userId, total: formatCardHours(totalSeconds), standardTotal: formatCardHours(Number(scaledStandard / BigInt(FACTOR_SCALE))), items };
  }
}
