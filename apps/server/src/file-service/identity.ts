import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  ErrorCode,
  FILE_SPACE_HEADER,
  routeUrl,
  STORAGE_GRANT_HEADER,
  StorageAgentApi,
  SYNC_GRANT_HEADER,
  SyncApi,
  TEAM_SPACE_REFUSED,
  TeamApi,
  teamOfSpace,
  USER_BASE,
  type ClusterAccount,
  type StorageGrant,
  type SyncGrant,
} from '@suanli/contracts';
import type { CenterConfig } from '../centers/centers';
import type { AppContext } from '../context';
import { teamDirOf } from '../center-storage/center-storage';
import { AppError, invalid } from '../errors';
import { envelopeData } from '../lib/envelope-client';

/** Who is calling, as far as files are concerned: their cluster account on this center and its home. */
export interface FileUser {
  /** The cluster account; keys everything the file service keeps per user (chunks, hash index, quota). */
  account: string;
  homeDir: string;
  /** The center's platform-managed asset area rather than an account's home (a version sync, ADR 0010 §8). */
  platform?: true;
  /**
   * A team's folder (`teams/<teamId>`, ADR 0018) instead of the account's home: `homeDir` is that folder, the
   * operations still run as `account`, so the folder's ACL decides. Never created or chmod-ed by the service.
   */
  team?: string;
}

/**
 * What the file service keys per space (quota use, instant-upload index, upload streams, download tickets):
 * the account for its home, the account and the team for a team's folder, so the two never mix.
 */
export const spaceKey = (user: FileUser) => (user.team ? `${user.account}@team:${user.team}` : user.account);

/** The caller's space in a team's folder on this center (the caller's membership was checked by the identity). */
export function teamUser(center: CenterConfig, home: FileUser, teamId: string): FileUser {
  return { account: home.account, homeDir: teamDirOf(center, teamId), team: teamId };
}

/** The `x-file-space` header's team (null: the home); a malformed value is refused (1005). */
export function spaceTeam(space: string | undefined): string | null {
  const team = teamOfSpace(space);
  if (team === undefined) throw invalid(FILE_SPACE_HEADER, '空间标识不合法');
  return team;
}

/** Whether a user is a member of a team now (the team module's answer; ADR 0018). */
export type TeamMembership = (userId: string, teamId: string) => Promise<boolean>;

/** A non-member (or a leaver) asking for a team's folder: the same answer as a missing team. */
export const notTeamMember = () => new AppError(ErrorCode.NOT_FOUND, TEAM_SPACE_REFUSED);

/** The asset area of a center as a space of its own: its staging is `.uploads/.assets`, never an account's. */
export const assetAreaUser = (center: CenterConfig): FileUser => ({ account: '.assets', homeDir: path.join(center.storageRoot, '.assets'), platform: true });

/** The space a grant acts in on this center. */
const grantedUser = (center: CenterConfig, grant: SyncGrant): FileUser => (grant.scope === 'assets' ? assetAreaUser(center) : toFileUser(center, grant));

/**
 * Turns the `token` header into a FileUser, or throws the session error (10133 / 10157 / 10307) the
 * console reacts to. Two implementations: in-process (the gateway embeds the file service) and remote (a
 * standalone file service asks the gateway). See docs/adr/0002-file-service-auth.md.
 */
export interface FileIdentity {
  /** `space`: the `x-file-space` header (absent: the home; `team:<id>`: that team's folder, members only). */
  resolve(token: string | undefined, space?: string): Promise<FileUser>;
  /**
   * A cross-center sync job's grant (header `sync-grant`, ADR 0010): what it allows on this center (read the
   * source, or make the copy) and the account it acts for. Refused like a session (10133) once the job ended.
   */
  resolveGrant(grant: string | undefined): Promise<GrantedUser>;
  /**
   * The gateway's storage grant (header `storage-grant`, ADR 0016): the calls of the gateway's
   * `HttpCenterStorage`, which act as the platform on this center. Refused like a session (10133).
   */
  resolveStorageGrant(grant: string | undefined): Promise<StorageGrant>;
}

export interface GrantedUser {
  user: FileUser;
  grant: SyncGrant;
}

/** Resolves a grant for a center (the sync module's `grants.resolve`; the gateway's agent route answers the same). */
export type GrantResolver = (grant: string | undefined, centerId: string) => Promise<SyncGrant>;

/** Account names become directory names on disk; anything else is refused before it gets there. */
const ACCOUNT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** The file user of a cluster account on a center (also what the gateway's own file work runs as). */
export function toFileUser(center: CenterConfig, a: Pick<ClusterAccount, 'account' | 'status'> | undefined): FileUser {
  if (!a) throw new AppError(ErrorCode.INTERNAL_FAILED, '未找到该分中心的集群账号');
  if (a.status === 'disabled') throw new AppError(ErrorCode.NO_PERMISSION, '该分中心的集群账号已停用');
  if (!ACCOUNT.test(a.account)) throw new AppError(ErrorCode.INTERNAL_BAD_RESPONSE, '集群账号名称不合法');
  // The home is derived from this center's own storage root rather than taken from the answer: the file
  // host may mount the storage elsewhere than the gateway sees it, and the domain fixes the layout.
  return { account: a.account, homeDir: path.join(center.storageRoot, 'home', a.account) };
}

/** Checks the gateway's storage grant for a center (StorageGrants.resolve; the gateway's agent route answers the same). */
export type StorageGrantResolver = (grant: string | undefined, centerId: string) => StorageGrant;

/** Embedded default: the same session check as every gateway route, and the account created on first use. */
export function inProcessIdentity(
  ctx: Pick<AppContext, 'sessions' | 'clusterAccounts'>,
  center: CenterConfig,
  grants: GrantResolver,
  storageGrants: StorageGrantResolver,
  teams: TeamMembership = async () => false,
): FileIdentity {
  return {
    async resolveStorageGrant(raw) {
      return storageGrants(raw, center.id);
    },
    async resolve(token, space) {
      const team = spaceTeam(space);
      const { userId } = await ctx.sessions.verify(token);
      // Asked on every call (no cache in process): a removed member is refused from the next request on.
      if (team && !(await teams(userId, team))) throw notTeamMember();
      const home = toFileUser(center, await ctx.clusterAccounts.ensure(userId, center.id));
      return team ? teamUser(center, home, team) : home;
    },
    async resolveGrant(raw) {
      const grant = await grants(raw, center.id);
      return { user: grantedUser(center, grant), grant };
    },
  };
}

export interface RemoteIdentityOptions {
  /** Origin of the gateway, e.g. https://suanli.example.com */
  gatewayUrl: string;
  center: CenterConfig;
  clock: () => number;
  /** How long a positive answer is reused: the bound on how late a revocation is noticed (default 4 s). */
  ttlMs?: number;
  timeoutMs?: number;
}

/**
 * The gateway's calls a standalone file service makes, from their descriptors. The user module's
 * `GET /agent/user/get` has none on this branch yet (its routes move to descriptors on `routes-task-user`,
 * as `UserApi.clusterAccounts`); until then its path is the module's base and the route's own.
 */
const AGENT_USER_PATH = `${USER_BASE}/agent/user/get`;
const SYNC_GRANT_PATH = routeUrl(SyncApi.grant);
const STORAGE_GRANT_PATH = routeUrl(StorageAgentApi.grant);
const TEAM_SPACE_PATH = routeUrl(TeamApi.agentSpace);

/**
 * Standalone file service: asks the gateway who the token belongs to (`GET /agent/user/get?subCenterId=`,
 * which also provisions the account on first use) and reuses a positive answer for at most `ttlMs`
 * (4 s), so a revoked or expired session stops working within seconds while an upload of hundreds of
 * chunks costs one gateway call per 5 s instead of one per chunk. Failures are never cached.
 */
export class RemoteIdentity implements FileIdentity {
  private readonly cache = new Map<string, { user: FileUser; until: number }>();
  private readonly grants = new Map<string, { granted: GrantedUser; until: number }>();
  private readonly storageGrants = new Map<string, { grant: StorageGrant; until: number }>();
  private readonly ttlMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly opts: RemoteIdentityOptions) {
    // 4 s rather than 5: a revocation is then noticed within 5 s even counting the request in flight.
    this.ttlMs = opts.ttlMs ?? 4_000;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  async resolve(token: string | undefined, space?: string): Promise<FileUser> {
    if (!token || token.length > 128) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    const team = spaceTeam(space);
    // Keyed by a hash so the tokens themselves are not kept in memory longer than the request; a team's
    // folder is a key of its own (membership is the gateway's answer, reused for the same 4 s at most).
    const key = createHash('sha256').update(team ? `${token}\n${team}` : token).digest('hex');
    const now = this.opts.clock();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.user;
    this.cache.delete(key);

    let user: FileUser;
    if (team) {
      // The team module answers the caller's account here only for a member (1205 otherwise, never cached).
      const url = `${TEAM_SPACE_PATH}?${new URLSearchParams({ teamId: team })}`;
      const a = (await this.ask(url, { token })) as Pick<ClusterAccount, 'account' | 'status'> | null;
      if (!a || typeof a.account !== 'string') throw new AppError(ErrorCode.INTERNAL_BAD_RESPONSE);
      user = teamUser(this.opts.center, toFileUser(this.opts.center, a), team);
    } else {
      const data = await this.ask(AGENT_USER_PATH, { token });
      if (!Array.isArray(data)) throw new AppError(ErrorCode.INTERNAL_BAD_RESPONSE);
      user = toFileUser(this.opts.center, (data as ClusterAccount[]).find((a) => a.subCenterId === this.opts.center.id));
    }
    this.prune(now);
    this.cache.set(key, { user, until: now + this.ttlMs });
    return user;
  }

  /** Same rules as `resolve`: positive answers reused for `ttlMs`, refusals (the job ended) never cached. */
  async resolveGrant(raw: string | undefined): Promise<GrantedUser> {
    if (!raw || raw.length > 128) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    const key = createHash('sha256').update(raw).digest('hex');
    const now = this.opts.clock();
    const hit = this.grants.get(key);
    if (hit && hit.until > now) return hit.granted;
    this.grants.delete(key);
    const grant = (await this.ask(SYNC_GRANT_PATH, { [SYNC_GRANT_HEADER]: raw })) as SyncGrant | null;
    if (!grant || typeof grant.account !== 'string' || !['source', 'target', 'discard'].includes(grant.role)) throw new AppError(ErrorCode.INTERNAL_BAD_RESPONSE);
    const granted = { user: grantedUser(this.opts.center, grant), grant };
    if (this.grants.size >= 1_000) this.grants.clear();
    this.grants.set(key, { granted, until: now + this.ttlMs });
    return granted;
  }

  /** Same rules again: the gateway's answer reused for `ttlMs` (and never past the grant's expiry), refusals never cached. */
  async resolveStorageGrant(raw: string | undefined): Promise<StorageGrant> {
    if (!raw || raw.length > 200) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    const key = createHash('sha256').update(raw).digest('hex');
    const now = this.opts.clock();
    const hit = this.storageGrants.get(key);
    if (hit && hit.until > now) return hit.grant;
    this.storageGrants.delete(key);
    const grant = (await this.ask(STORAGE_GRANT_PATH, { [STORAGE_GRANT_HEADER]: raw })) as StorageGrant | null;
    if (!grant || grant.subCenterId !== this.opts.center.id || typeof grant.expireTime !== 'number') throw new AppError(ErrorCode.INTERNAL_BAD_RESPONSE);
    if (this.storageGrants.size >= 100) this.storageGrants.clear();
    this.storageGrants.set(key, { grant, until: now + this.ttlMs });
    return grant;
  }

  /** `GET {gateway}{path}?subCenterId=<this center>` with `headers`: the envelope's data, or its refusal as an AppError. */
  private async ask(path: string, headers: Record<string, string>): Promise<unknown> {
    const url = new URL(path, this.opts.gatewayUrl);
    url.searchParams.set('subCenterId', this.opts.center.id);
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (e) {
      const timedOut = (e as Error).name === 'TimeoutError';
      throw new AppError(timedOut ? ErrorCode.INTERNAL_TIMEOUT : ErrorCode.INTERNAL_FAILED, timedOut ? undefined : '内部组件请求失败：无法连接网关');
    }
    // Session errors (10133/10157/10307) and any other refusal pass through unchanged.
    return envelopeData(res);
  }

  /** Drops expired entries once the map grows, so idle tokens do not accumulate. */
  private prune(now: number) {
    if (this.cache.size < 10_000) return;
    for (const [k, v] of this.cache) if (v.until <= now) this.cache.delete(k);
  }
}
