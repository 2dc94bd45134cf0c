import type { SlurmCall } from './v0038';

/**
 * The balance limit of issue 25 (docs/operations/slurm-center.md, "Balance limits"): a cluster account's
 * association on a center gets `GrpTRES=<gres>=0` while its owner has no compute power for the center's cards,
 * so Slurm holds every new card job of that account whatever route it came by (console, SSH, web shell), and
 * no limit once they have some. Set through slurmdbd's REST API (dbv0.0.38 `POST /associations`, which updates
 * an existing association), as an account with Slurm operator rights (`admin`: associations are not the
 * cluster account's own to change).
 */
export interface AssociationLimit {
  cluster: string;
  /** The Slurm account the cluster accounts are associated under (center key `scheduler.account`). */
  account: string;
  /** The cluster account (Linux user) whose association is limited. */
  user: string;
  /** gres name as TRES (`gpu`). */
  gres: string;
  /** Cards the account may hold at once: 0 holds every card job; `null` lifts the limit. */
  cards: 0 | null;
}

export async function setAssociationLimit(call: SlurmCall, admin: string, limit: AssociationLimit): Promise<void> {
  const body = {
    associations: [
      {
        cluster: limit.cluster,
        account: limit.account,
        user: limit.user,
        // GrpTRES in v0.0.38's association shape; -1 is Slurm's "no limit" (as in `sacctmgr … GrpTRES=gres/gpu=-1`).
        max: { tres: { total: [{ type: 'gres', name: limit.gres, count: limit.cards ?? -1 }] } },
      },
    ],
  };
  const reply = await call(admin, 'POST', '/slurmdb/v0.0.38/associations', body);
  const errors = (reply.body?.errors ?? []) as { error?: string; description?: string }[];
  if (reply.status !== 200 || errors.length) {
    throw new Error(`slurmrestd: setting GrpTRES of ${limit.user} on ${limit.cluster} failed: HTTP ${reply.status} ${JSON.stringify(errors).slice(0, 300)}`);
  }
}
