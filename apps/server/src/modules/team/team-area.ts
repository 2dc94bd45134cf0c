import type { TeamArea as TeamAreaPath } from '@suanli/contracts';
import { teamDirOf, type CenterStorages } from '../../center-storage/center-storage';
import type { CenterConfig } from '../../centers/centers';
import type { AppContext } from '../../context';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { TeamRepository } from './team.repository';

/**
 * Keeps each team's folder on each center, `<storageRoot>/teams/<teamId>` (ADR 0018), readable and writable
 * by exactly its current members' cluster accounts there. The set is read from the database when it is
 * applied, and applies of one team run one at a time in this process, so the last membership change wins.
 *
 * The database is the truth and the disk follows: a membership change is kept even when a center's disk
 * refuses (the folder is then closed to everyone but the platform, and the error logged), and the next change,
 * a member's new account on that center, or the next start applies it again.
 */
export class TeamArea {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly repo: Pick<TeamRepository, 'members' | 'mine'>,
    private readonly storage: CenterStorages,
    private readonly clusterAccounts: Pick<ClusterAccountService, 'accountsOn'>,
    private readonly centers: readonly CenterConfig[],
    private readonly log: AppContext['log'],
  ) {}

  /** The team's folder on each center, as the centers' hosts see it (no I/O). */
  paths(teamId: string): TeamAreaPath[] {
    return this.centers.map((c) => ({ subCenterId: c.id, subCenterName: c.name, path: teamDirOf(c, teamId) }));
  }

  /** Applies the team's current members on every center (or `only`), making the folder where it is missing. */
  apply(teamId: string, only?: readonly CenterConfig[]): Promise<void> {
    const prev = this.queues.get(teamId) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(() => this.applyNow(teamId, only ?? this.centers));
    this.queues.set(teamId, next);
    void next
      .finally(() => {
        if (this.queues.get(teamId) === next) this.queues.delete(teamId);
      })
      .catch(() => {});
    return next;
  }

  /** A user's new cluster account on a center: the folders of the user's teams there take it in. */
  async accountCreated(userId: string, centerId: string): Promise<void> {
    const center = this.centers.find((c) => c.id === centerId);
    if (!center) return;
    for (const team of await this.repo.mine(userId)) await this.apply(team.id, [center]);
  }

  /**
   * Start-up: every team folder on every center whose disk is on this host gets its team's members (a
   * dissolved team's is closed). A center behind its file service is not waited for (the gateway is not
   * listening yet, ADR 0016 §5): its folders are applied at their team's next change.
   */
  async applyAll(): Promise<void> {
    for (const center of this.centers) {
      if (this.storage.of(center).transport !== 'in-process') continue;
      const dirs = await this.storage
        .of(center)
        .teamDirs()
        .catch((err: unknown) => {
          this.log.error({ err, center: center.id }, 'teams area: the team folders could not be listed');
          return [] as string[];
        });
      for (const teamId of dirs) await this.apply(teamId, [center]);
    }
  }

  private async applyNow(teamId: string, centers: readonly CenterConfig[]) {
    const members = (await this.repo.members(teamId)).map((m) => m.user_id);
    for (const center of centers) {
      try {
        const uids = (await this.clusterAccounts.accountsOn(center.id, members)).map((a) => a.uid);
        // A team with members gets its folder everywhere; a dissolved one (no members) only closes what exists.
        await this.storage.of(center).applyTeamAccess(teamId, uids, { create: members.length > 0 });
      } catch (err) {
        this.log.error({ err, teamId, center: center.id }, 'teams area: the access of a team folder could not be set (it is closed)');
      }
    }
  }
}
