import { createHash } from 'node:crypto';
import {
  ErrorCode,
  SYNC_ACTIVE_MAX,
  SYNC_FINAL_STATES,
  type Page,
  type SyncCreate,
  type SyncGrant,
  type SyncJob,
  type SyncPageQuery,
  type SyncState,
} from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import { AppError, forbidden, invalid } from '../../errors';
import { parseUserPath } from '../../center-storage/center-storage';
import { newId } from '../../lib/id';
import type { AccessService } from '../access/access.service';
import type { Principal } from '../access/principal';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { SyncRepository, SyncRow } from './sync.repository';
import type { SyncRunner } from './sync.runner';

export const grantHash = (grant: string) => createHash('sha256').update(grant).digest('hex');

/**
 * 跨中心同步 jobs (ADR 0010): created by their owner, run by the SyncRunner, cancellable while active. The
 * file services ask `resolveGrant` what a job's grant allows on their center.
 */
export class SyncJobService {
  constructor(
    private readonly repo: SyncRepository,
    private readonly access: Pick<AccessService, 'found'>,
    /** The center module's check that a center takes new work (正常). */
    private readonly requireOpen: (centerId: string) => Promise<void>,
    private readonly runner: SyncRunner,
    private readonly centers: CenterConfig[],
    private readonly clusterAccounts: ClusterAccountService,
    private readonly clock: () => number,
  ) {}

  async create(p: Principal, b: SyncCreate): Promise<SyncJob> {
    const source = this.center(b.sourceCenterId, 'sourceCenterId');
    const target = this.center(b.targetCenterId, 'targetCenterId');
    if (source.id === target.id) throw new AppError(ErrorCode.SYNC_SAME_CENTER);
    // A center in maintenance or offline takes nothing new (2012/2013 with the operators' notice).
    await this.requireOpen(source.id);
    await this.requireOpen(target.id);
    const from = parseUserPath(b.sourcePath);
    if (!from.length) throw invalid('sourcePath', '请选择要同步的文件夹或文件（不能是整个主目录）');
    const into = parseUserPath(b.targetDir);
    if ((await this.repo.countActive(p.userId)) >= SYNC_ACTIVE_MAX) throw new AppError(ErrorCode.SYNC_LIMIT, `进行中的同步任务已达上限（${SYNC_ACTIVE_MAX} 个），请等待完成或取消后再试`);
    // Both accounts exist before the file services ask for them (and a disabled one is refused now).
    for (const c of [source, target]) {
      const a = await this.clusterAccounts.ensure(p.userId, c.id);
      if (a.status !== 'active') throw new AppError(ErrorCode.NO_PERMISSION, `${c.name}的集群账号已停用`);
    }
    const id = await this.insertJob(p.userId, {
      source_center_id: source.id,
      source_path: `/${from.join('/')}`,
      target_center_id: target.id,
      target_dir: `/${into.join('/')}`,
      target_path: `/${[...into, from[from.length - 1]].join('/')}`,
    });
    this.runner.start(id);
    return this.detail(p, id);
  }

  /**
   * The copy of a dataset/model version in a center's asset area (ADR 0010 §8): `ready` once a job copied it,
   * `syncing` while one runs, else the last failure (or `none`).
   */
  async versionCopy(versionId: string, centerId: string): Promise<{ state: 'ready' | 'syncing' | 'failed' | 'none'; message: string }> {
    const row = await this.repo.latestVersionJob(versionId, centerId);
    if (!row) return { state: 'none', message: '' };
    if (row.state === 'SUCCEEDED') return { state: 'ready', message: '' };
    if (!isFinal(row.state)) return { state: 'syncing', message: row.message };
    return { state: 'failed', message: row.message };
  }

  /**
   * Starts copying a version into `targetCenterId`'s asset area for `ownerId` (whose task mounts it; the job
   * shows in their task panel), or returns the job already doing it.
   */
  async syncVersion(ownerId: string, v: { assetId: string; versionId: string; sourceCenterId: string; targetCenterId: string; label: string }): Promise<string> {
    const current = await this.repo.latestVersionJob(v.versionId, v.targetCenterId);
    if (current && (current.state === 'SUCCEEDED' || !isFinal(current.state))) return current.id;
    const id = await this.insertJob(ownerId, {
      source_center_id: v.sourceCenterId,
      source_path: `/${v.assetId}/${v.versionId}`,
      target_center_id: v.targetCenterId,
      target_dir: `/${v.assetId}`,
      target_path: `/${v.assetId}/${v.versionId}`,
      kind: 'version',
      asset_id: v.assetId,
      version_id: v.versionId,
      label: v.label,
    });
    this.runner.start(id);
    return id;
  }

  async page(p: Principal, q: SyncPageQuery): Promise<Page<SyncJob>> {
    const { rows, total } = await this.repo.page(p.userId, q.scope === 'active', (q.pageNum - 1) * q.pageSize, q.pageSize);
    return { list: rows.map((r) => this.toJob(r)), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async detail(p: Principal, id: string): Promise<SyncJob> {
    return this.toJob(await this.owned(p, id, 'sync.read'));
  }

  /** Stops the job and removes what the target staged (the copy never appears); 2351 once it ended. */
  async cancel(p: Principal, id: string): Promise<SyncJob> {
    const row = await this.owned(p, id, 'sync.write');
    if (isFinal(row.state)) throw new AppError(ErrorCode.SYNC_FINISHED, `同步任务已${row.state === 'SUCCEEDED' ? '完成' : '结束'}，无法取消`);
    await this.runner.cancel(id);
    return this.detail(p, id);
  }

  /** A new QUEUED job of `ownerId` (a `path` job unless the fields say otherwise); its id. */
  private async insertJob(ownerId: string, f: Pick<SyncRow, 'source_center_id' | 'source_path' | 'target_center_id' | 'target_dir' | 'target_path'> & Partial<Pick<SyncRow, 'kind' | 'asset_id' | 'version_id' | 'label'>>) {
    const now = this.clock();
    const id = newId(now);
    await this.repo.insert({
      id,
      owner_id: ownerId,
      state: 'QUEUED',
      bytes_done: 0,
      bytes_total: 0,
      files_done: 0,
      files_total: 0,
      message: '等待开始',
      retries: 0,
      grant_hash: '',
      kind: 'path',
      asset_id: '',
      version_id: '',
      label: '',
      cancel_requested: 0,
      discard_after: 0,
      ...f,
      create_time: now,
      update_time: now,
      finish_time: null,
    });
    return id;
  }

  /**
   * What a grant allows on `centerId`: read the source there or make the copy there, as the owner's cluster
   * account; for an ended job with leftovers on its receiver, only their removal there. Unknown grants and
   * other grants of ended jobs answer 10133 (the file service refuses the call).
   */
  async resolveGrant(raw: string | undefined, centerId: string): Promise<SyncGrant> {
    if (!raw || raw.length > 128) throw new AppError(ErrorCode.NOT_LOGGED_IN);
    const row = await this.repo.byGrantHash(grantHash(raw));
    // An ended job's grant exists only while the runner asks the receiver to remove its leftovers, and allows only that.
    const leftovers = row && isFinal(row.state) && Number(row.discard_after) > 0;
    if (!row || (isFinal(row.state) && !leftovers)) throw new AppError(ErrorCode.NOT_LOGGED_IN, '同步凭证无效或同步任务已结束');
    const role = leftovers ? (centerId === row.target_center_id ? 'discard' : null) : centerId === row.source_center_id ? 'source' : centerId === row.target_center_id ? 'target' : null;
    if (!role) throw forbidden();
    // A version job acts in the platform's asset area, not in anyone's home.
    const a = row.kind === 'version' ? { account: '', status: 'active' as const } : await this.clusterAccounts.ensure(row.owner_id, centerId);
    return {
      jobId: row.id,
      role,
      scope: row.kind === 'version' ? 'assets' : 'home',
      account: a.account,
      status: a.status,
      sourceCenterId: row.source_center_id,
      sourcePath: row.source_path,
      targetCenterId: row.target_center_id,
      targetDir: row.target_dir,
    };
  }

  toJob(r: SyncRow): SyncJob {
    return toSyncJob(r, this.centers);
  }

  private async owned(p: Principal, id: string, action: 'sync.read' | 'sync.write'): Promise<SyncRow> {
    return this.access.found(p, action, await this.repo.byId(id), (r) => ({ ownerId: r.owner_id }), '同步任务');
  }

  private center(id: string, field: string): CenterConfig {
    const c = this.centers.find((x) => x.id === id);
    if (!c) throw invalid(field, `分中心不存在：${id}`);
    return c;
  }
}

export const isFinal = (state: string) => (SYNC_FINAL_STATES as readonly string[]).includes(state);

/** The wire shape of a job row, with the centers' names. */
export function toSyncJob(r: SyncRow, centers: CenterConfig[]): SyncJob {
  const name = (id: string) => centers.find((c) => c.id === id)?.name ?? id;
  return {
    id: r.id,
    kind: r.kind === 'version' ? 'version' : 'path',
    label: r.label,
    sourceCenterId: r.source_center_id,
    sourceCenterName: name(r.source_center_id),
    sourcePath: r.source_path,
    targetCenterId: r.target_center_id,
    targetCenterName: name(r.target_center_id),
    targetDir: r.target_dir,
    targetPath: r.target_path,
    state: r.state as SyncState,
    bytesDone: Number(r.bytes_done),
    bytesTotal: Number(r.bytes_total),
    filesDone: r.files_done,
    filesTotal: r.files_total,
    message: r.message,
    retries: r.retries,
    createTime: Number(r.create_time),
    updateTime: Number(r.update_time),
    finishTime: r.finish_time === null ? null : Number(r.finish_time),
  };
}
