// Over 400 lines: one service for datasets and models — reads, versions and their copies, shares, publication: the rules of ADR 0008 and 0013 in one place.
import {
  ASSET_SHARES_MAX,
  ASSET_VERSIONS_MAX,
  ErrorCode,
  WS_ASSET_VERSION_CHANGED,
  WS_TEAM_CHANGED,
  type Asset,
  type AssetCreate,
  type AssetDetail,
  type AssetFileEntry,
  type AssetKind,
  type AssetPage,
  type AssetPageQuery,
  type AssetReadme,
  type AssetUpdate,
  type AssetVersion,
  type AssetVersionCreate,
  type ModelFromTask,
  type Task,
  type MountableVersion,
  type TaskMount,
} from '@suanli/contracts';
import type { CenterConfig } from '../../centers/centers';
import type { Notify } from '../../context';
import { AppError, invalid, notFound } from '../../errors';
import { activeAccount } from '../../center-storage/center-storage';
import { newId } from '../../lib/id';
import type { EventBus } from '../../realtime/bus';
import type { Resource } from '../access/access.policy';
import type { AccessService } from '../access/access.service';
import type { AuditTrail } from '../audit/audit.service';
import type { Principal } from '../access/principal';
import type { ClusterAccountService } from '../cluster-account/cluster-account.service';
import type { AssetAccess } from './asset-access';
import type { AssetRepository, AssetRow, VersionRow } from './asset.repository';
import type { AssetStore } from './asset-store';
import type { UserDirectory, UserName } from '../user/user-directory';
import type { AssetTeams } from '../team/team.service';

/** Assets per user and kind. */
const ASSETS_PER_USER = 200;
const KIND_LABEL: Record<AssetKind, string> = { dataset: '数据集', model: '模型' };
/** Progress pushes while a version copies: at most one per this many ms per version. */
const PROGRESS_EVERY_MS = 500;

/** What the asset module needs of the task engine: the caller's training task, and whether anything mounts an id. */
export interface TaskLink {
  /** A training task of the caller's (1205 when it is not theirs). */
  get(p: Principal, taskId: string): Promise<Task>;
  /** Whether an unfinished task mounts the asset (or this version of it). */
  mountsInUse(assetId: string, versionId?: string): Promise<boolean>;
}

/** Copies of versions on other centers (the sync module, ADR 0010 §8). */
export interface VersionCopies {
  versionCopy(versionId: string, centerId: string): Promise<{ state: 'ready' | 'syncing' | 'failed' | 'none'; message: string }>;
}

/** A mounted version the task's center does not have yet: synced there before the task is submitted. */
export interface PendingCopy {
  assetId: string;
  versionId: string;
  sourceCenterId: string;
  /** `数据集「MNIST」v1` */
  label: string;
}

/** Who may do what with one asset: owners everything; shared users and everyone (public) read and mount. */
type Access = { row: AssetRow; owner: boolean };

/**
 * Datasets and models (ADR 0008). One service per kind; the rules are the same. Ownership is checked on the
 * first lines of every call: an asset the caller may not read is "not found" (never revealed), one they may
 * read but do not own refuses changes with 2307.
 */
export class AssetService {
  /** Copies in flight (versionId → bytes copied), for progress and for `idle()`. */
  private readonly copying = new Map<string, { copied: number; done: Promise<void> }>();

  constructor(
    readonly kind: AssetKind,
    private readonly repo: AssetRepository,
    private readonly store: AssetStore,
    private readonly clusterAccounts: ClusterAccountService,
    private readonly centers: CenterConfig[],
    private readonly clock: () => number,
    private readonly notify: Notify,
    private readonly bus: EventBus,
    private readonly tasks: TaskLink,
    private readonly access: Pick<AccessService, 'require' | 'found' | 'can' | 'owns'>,
    /** Owners' and sharees' names, users by name (user module). */
    private readonly users: Pick<UserDirectory, 'names' | 'named'>,
    private readonly copies: VersionCopies,
    /** Who may read each asset's folder on disk (ADR 0013), re-applied whenever that can change. */
    private readonly folders: AssetAccess,
    /** Reviews of publication requests are audited operator actions. */
    private readonly audit: AuditTrail,
    /** The caller's teams and their members (team module): shares with a team (ADR 0018). */
    private readonly teams: AssetTeams,
  ) {}

  // ---- reads ------------------------------------------------------------------------------------------

  async page(p: Principal, q: AssetPageQuery): Promise<AssetPage> {
    const { list, total } = await this.repo.page(this.kind, p.userId, q.scope, {
      teamIds: q.scope === 'shared' ? [...(await this.teams.rolesOf(p.userId)).keys()] : [],
      keyword: q.keyword?.trim() || undefined,
      tag: q.tag,
      offset: (q.pageNum - 1) * q.pageSize,
      limit: q.pageSize,
    });
    const [versions, owners] = await Promise.all([this.repo.versionsOf(list.map((r) => r.id)), this.ownerNames(list)]);
    return { list: list.map((r) => this.toAsset(r, p, versions, owners)), total, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  async detail(p: Principal, id: string): Promise<AssetDetail> {
    const { row, owner } = await this.readable(p, id);
    return this.toDetail(row, p, owner);
  }

  /** What the task form offers under 数据集 / 模型 (on one center when given). */
  async mountable(p: Principal, subCenterId?: string): Promise<MountableVersion[]> {
    const rows = await this.repo.mountable(this.kind, p.userId, subCenterId, [...(await this.teams.rolesOf(p.userId)).keys()]);
    const owners = await this.ownerNames(rows);
    return rows.map((r) => ({
      assetId: r.asset_id,
      assetName: r.asset_name,
      ownerName: ownerLabel(owners.get(r.owner_id)),
      mine: this.access.owns(p, { ownerId: r.owner_id }),
      versionId: r.version_id,
      version: Number(r.version),
      note: r.note,
      subCenterId: r.sub_center_id,
      subCenterName: this.centers.find((c) => c.id === r.sub_center_id)?.name ?? r.sub_center_id,
      sizeBytes: Number(r.size_bytes),
    }));
  }

  async files(p: Principal, id: string, versionId: string, path: string): Promise<AssetFileEntry[]> {
    const { center, version } = await this.readyVersion(p, id, versionId);
    return this.store.list(center, id, version.id, path);
  }

  async readme(p: Principal, id: string, versionId: string): Promise<AssetReadme> {
    const { center, version } = await this.readyVersion(p, id, versionId);
    return this.store.readme(center, id, version.id);
  }

  /** A file of a version for download; the caller streams it and closes the handle. */
  async openFile(p: Principal, id: string, versionId: string, path: string) {
    const { center, version } = await this.readyVersion(p, id, versionId);
    return this.store.openFile(center, id, version.id, path);
  }

  // ---- changes (owner only) ---------------------------------------------------------------------------

  async create(p: Principal, body: AssetCreate): Promise<AssetDetail> {
    const name = this.checkName(body.name);
    if ((await this.repo.countOfOwner(p.userId, this.kind)) >= ASSETS_PER_USER) throw new AppError(ErrorCode.ASSET_LIMIT, `${KIND_LABEL[this.kind]}数量已达上限（${ASSETS_PER_USER}）`);
    // The source is checked before anything is stored: a bad folder leaves no empty asset behind.
    const source = body.source ? await this.checkSource(p, body.source.subCenterId, body.source.path, 'source.path') : undefined;
    const now = this.clock();
    const id = newId(now);
    const stored = await this.repo.insert({
      id,
      kind: this.kind,
      owner_id: p.userId,
      name,
      description: body.description?.trim() ?? '',
      tags: JSON.stringify(cleanTags(body.tags)),
      license: body.license?.trim() ?? '',
      visibility: 'private',
      publish_state: 'none',
      publish_reason: '',
      publish_review_time: null,
      framework: this.kind === 'model' ? (body.framework?.trim() ?? '') : '',
      format: this.kind === 'model' ? (body.format?.trim() ?? '') : '',
      metrics: JSON.stringify(this.kind === 'model' ? (body.metrics ?? {}) : {}),
      create_time: now,
      update_time: now,
    });
    if (!stored) throw new AppError(ErrorCode.ASSET_NAME_TAKEN, `已有同名的${KIND_LABEL[this.kind]}：${name}`);
    if (source && body.source) await this.startVersion(p, id, source.center, source.path, body.source.note ?? '', null);
    return this.detail(p, id);
  }

  async update(p: Principal, id: string, body: AssetUpdate): Promise<AssetDetail> {
    const { row } = await this.owned(p, id);
    const set: Parameters<AssetRepository['update']>[2] = { update_time: this.clock() };
    if (body.name !== undefined) set.name = this.checkName(body.name);
    if (body.description !== undefined) set.description = body.description.trim();
    if (body.tags !== undefined) set.tags = JSON.stringify(cleanTags(body.tags));
    if (body.license !== undefined) set.license = body.license.trim();
    if (this.kind === 'model') {
      if (body.framework !== undefined) set.framework = body.framework.trim();
      if (body.format !== undefined) set.format = body.format.trim();
      if (body.metrics !== undefined) set.metrics = JSON.stringify(body.metrics);
    }
    if (!(await this.repo.update(p.userId, row.id, set))) throw new AppError(ErrorCode.ASSET_NAME_TAKEN, `已有同名的${KIND_LABEL[this.kind]}：${set.name}`);
    return this.detail(p, id);
  }

  async remove(p: Principal, id: string): Promise<null> {
    const { row } = await this.owned(p, id);
    const versions = await this.repo.versionsOf([row.id]);
    if (versions.some((v) => this.copying.has(v.id))) throw new AppError(ErrorCode.ASSET_VERSION_NOT_READY, '有版本正在创建，请等待完成后再删除');
    if (await this.tasks.mountsInUse(row.id)) throw new AppError(ErrorCode.ASSET_IN_USE);
    await this.repo.remove(p.userId, row.id);
    // Every center: versions may have copies where tasks mounted them (ADR 0010 §8).
    for (const center of this.centers) await this.store.removeAsset(center, row.id);
    return null;
  }

  /** Starts a new version from a folder of the caller's home; it is `creating` until the copy ends. */
  async addVersion(p: Principal, id: string, body: AssetVersionCreate): Promise<AssetVersion> {
    const { row } = await this.owned(p, id);
    if ((await this.repo.versionsOf([row.id])).length >= ASSET_VERSIONS_MAX) throw new AppError(ErrorCode.ASSET_LIMIT, `版本数量已达上限（${ASSET_VERSIONS_MAX}）`);
    const { center, path } = await this.checkSource(p, body.subCenterId, body.path, 'path');
    const versionId = await this.startVersion(p, row.id, center, path, body.note ?? '', null);
    const v = await this.repo.findVersion(row.id, versionId);
    return this.toVersion(v!, row);
  }

  /**
   * 登记为模型 (models only): the output folder of a training task that ran to success becomes a version —
   * of a new model, or of one of the caller's models — that links back to the task.
   */
  async registerFromTask(p: Principal, body: ModelFromTask): Promise<AssetDetail> {
    if (this.kind !== 'model') throw notFound();
    const task = await this.tasks.get(p, body.taskId);
    if (task.state !== 'SUCCEEDED') throw new AppError(ErrorCode.ASSET_TASK_NOT_FINISHED);
    const { center, path } = await this.checkSource(p, task.subCenterId, body.path ?? task.workDir, 'path');
    let id = body.modelId;
    if (id) {
      await this.owned(p, id);
    } else {
      const created = await this.create(p, { name: body.name ?? task.name, framework: body.framework, description: `由训练任务「${task.name}」的输出登记` });
      id = created.id;
    }
    await this.startVersion(p, id, center, path, body.note ?? `训练任务 ${task.name}`, task.id);
    return this.detail(p, id);
  }

  async removeVersion(p: Principal, id: string, versionId: string): Promise<null> {
    const { row } = await this.owned(p, id);
    const v = await this.repo.findVersion(row.id, versionId);
    if (!v) throw notFound('版本');
    if (this.copying.has(v.id)) throw new AppError(ErrorCode.ASSET_VERSION_NOT_READY, '该版本正在创建，请等待完成后再删除');
    if (await this.tasks.mountsInUse(row.id, v.id)) throw new AppError(ErrorCode.ASSET_IN_USE);
    await this.repo.removeVersion(row.id, v.id);
    for (const center of this.centers) await this.store.removeVersion(center, row.id, v.id);
    await this.repo.touch(row.id, this.clock());
    return null;
  }

  async share(p: Principal, id: string, usernames: string[]): Promise<AssetDetail> {
    const { row } = await this.owned(p, id);
    const users = await this.users.named(usernames);
    const found = new Set(users.map((u) => u.username.toLowerCase()));
    const missing = usernames.filter((u) => !found.has(u.toLowerCase()));
    if (missing.length) throw new AppError(ErrorCode.ASSET_SHARE_USER_UNKNOWN, `共享的用户不存在：${missing.join('、')}`);
    const others = users.filter((u) => !this.access.owns(p, { ownerId: u.id }));
    if (!others.length) throw invalid('usernames', '不能共享给自己');
    if ((await this.repo.countShares(row.id)) + others.length > ASSET_SHARES_MAX) throw new AppError(ErrorCode.ASSET_LIMIT, `共享人数已达上限（${ASSET_SHARES_MAX}）`);
    const before = new Set(await this.repo.shareUserIds(row.id));
    await this.repo.addShares(row.id, others.map((u) => u.id), this.clock());
    await this.syncVisibility(row);
    // The disk follows: their accounts may read the versions on every center that has them (ADR 0013).
    // A disk that refuses undoes the share (the folder was closed; the owner sees the error and may retry).
    await this.folders.apply(row.id).catch(async (e: unknown) => {
      for (const u of others) if (!before.has(u.id)) await this.repo.removeShare(row.id, u.id);
      await this.syncVisibility(row);
      throw e;
    });
    for (const u of others) {
      await this.notify(u.id, {
        type: 'system',
        title: `${ownerLabel((await this.ownerNames([row])).get(row.owner_id))} 向你共享了${KIND_LABEL[this.kind]}`,
        content: `${KIND_LABEL[this.kind]}「${row.name}」已共享给你（只读），可在「共享${KIND_LABEL[this.kind]}」中查看和用于训练。`,
        businessType: this.kind,
        businessId: row.id,
      });
    }
    return this.detail(p, id);
  }

  /**
   * Shares with a team the owner is a member of (1205 naming 团队 otherwise): every current member reads and
   * mounts it, and their accounts read its folder (ADR 0018); a member who leaves loses both. Idempotent.
   */
  async shareTeam(p: Principal, id: string, teamId: string): Promise<AssetDetail> {
    const { row } = await this.owned(p, id);
    const team = await this.teams.memberTeam(p, teamId);
    const before = await this.repo.teamShareIds(row.id);
    if (!before.includes(team.id)) {
      if (before.length >= ASSET_SHARES_MAX) throw new AppError(ErrorCode.ASSET_LIMIT, `共享团队数已达上限（${ASSET_SHARES_MAX}）`);
      await this.repo.addTeamShare(row.id, team.id, this.clock());
      await this.syncVisibility(row);
      // A disk that refuses undoes the share, as for users.
      await this.folders.apply(row.id).catch(async (e: unknown) => {
        await this.repo.removeTeamShare(row.id, team.id);
        await this.syncVisibility(row);
        throw e;
      });
      const members = await this.teams.memberIds(team.id);
      const owner = ownerLabel((await this.ownerNames([row])).get(row.owner_id));
      for (const userId of members) {
        if (userId === row.owner_id) continue;
        await this.notify(userId, {
          type: 'system',
          title: `${owner} 向团队「${team.name}」共享了${KIND_LABEL[this.kind]}`,
          content: `${KIND_LABEL[this.kind]}「${row.name}」已共享给团队「${team.name}」（成员只读），可在「共享${KIND_LABEL[this.kind]}」中查看和用于训练。`,
          businessType: this.kind,
          businessId: row.id,
        });
      }
      await this.teamChanged(team.id, members);
    }
    return this.detail(p, id);
  }

  /** 团队详情's list of what is shared with the team is read again by every member (`team.changed`). */
  private async teamChanged(teamId: string, members?: string[]) {
    for (const userId of members ?? (await this.teams.memberIds(teamId))) await this.bus.publish(userId, { businessType: WS_TEAM_CHANGED, data: { teamId } });
  }

  async unshareTeam(p: Principal, id: string, teamId: string): Promise<AssetDetail> {
    const { row } = await this.owned(p, id);
    await this.repo.removeTeamShare(row.id, teamId);
    await this.syncVisibility(row);
    await this.folders.apply(row.id);
    await this.teamChanged(teamId);
    return this.detail(p, id);
  }

  /** 团队详情: what is shared with the team, for its members (1205 naming 团队 for anyone else). */
  async teamShared(p: Principal, teamId: string): Promise<Asset[]> {
    await this.teams.memberTeam(p, teamId);
    const rows = await this.repo.sharedWithTeam(teamId, this.kind);
    const [versions, owners] = await Promise.all([this.repo.versionsOf(rows.map((r) => r.id)), this.ownerNames(rows)]);
    return rows.map((r) => this.toAsset(r, p, versions, owners));
  }

  /**
   * A team's members changed: the folders of what is shared with it follow (errors logged by AssetAccess). A
   * dissolved team's shares go (the team module no longer names it), and the assets' visibility with them.
   */
  async teamMembershipChanged(teamId: string): Promise<void> {
    const rows = await this.repo.sharedWithTeam(teamId, this.kind);
    if (!rows.length) return;
    const gone = !(await this.teams.names([teamId])).has(teamId);
    for (const r of rows) {
      if (gone) {
        await this.repo.removeTeamShare(r.id, teamId);
        await this.syncVisibility(r);
      }
      await this.folders.apply(r.id).catch(() => {});
    }
  }

  async unshare(p: Principal, id: string, userId: string): Promise<AssetDetail> {
    const { row } = await this.owned(p, id);
    await this.repo.removeShare(row.id, userId);
    await this.syncVisibility(row);
    // Their accounts lose the folder on every center (a file a running job already opened stays readable to it).
    await this.folders.apply(row.id);
    return this.detail(p, id);
  }

  /** Asks for publication in the public hall (an operator approves; wave 2 of the operator console). */
  async requestPublish(p: Principal, id: string): Promise<AssetDetail> {
    const { row } = await this.owned(p, id);
    const versions = await this.repo.versionsOf([row.id]);
    if (!versions.some((v) => v.state === 'ready')) throw new AppError(ErrorCode.ASSET_VERSION_NOT_READY, '至少需要一个已就绪的版本才能申请公开');
    // Asking again clears the last rejection's reason: the request is pending, not refused.
    if (row.publish_state === 'none') await this.repo.update(p.userId, row.id, { publish_state: 'pending', publish_reason: '', update_time: this.clock() });
    return this.detail(p, id);
  }

  /**
   * 添加到我的 from the public hall: the asset joins the caller's 共享 list (a share row; it stays the
   * owner's and public). Adding one's own or a non-public asset is refused.
   */
  async addToMine(p: Principal, id: string): Promise<AssetDetail> {
    const { row, owner } = await this.readable(p, id);
    if (owner) throw invalid('id', `这是你自己的${KIND_LABEL[this.kind]}`);
    if (row.visibility !== 'public') throw notFound(KIND_LABEL[this.kind]);
    await this.repo.addShares(row.id, [p.userId], this.clock());
    return this.detail(p, id);
  }

  /** Whether the user owns an asset of this kind with this name (the seed's idempotence). */
  async ownsNamed(userId: string, name: string): Promise<boolean> {
    return (await this.repo.findOwnedByName(userId, this.kind, name)) !== undefined;
  }

  /**
   * An operator's decision on a publication request: approved → public in the hall, rejected (a reason is
   * required) → back to what it was, the reason kept for the owner, who may ask again. An audited operator
   * action (`asset.review`, its entry in the transaction of the state change); the owner is told either way.
   * Non-operators get 1020; a request no longer pending 1205, with nothing written.
   */
  async review(p: Principal, id: string, approve: boolean, reason: string, ip: string | null = null): Promise<AssetDetail> {
    this.access.require(p, 'asset.review');
    const row = await this.repo.findAny(this.kind, id);
    const gone = () => notFound(`待审核的${KIND_LABEL[this.kind]}`);
    if (!row || row.publish_state !== 'pending') throw gone();
    const why = reason.trim();
    if (!approve && !why) throw invalid('reason', '驳回时请填写原因');
    const actor = await this.audit.operator(p, ip);
    const now = this.clock();
    const after = approve ? { publishState: 'published', visibility: 'public' } : { publishState: 'none', visibility: row.visibility };
    const set = approve
      ? { visibility: 'public', publish_state: 'published', publish_reason: '', publish_review_time: now, update_time: now }
      : { publish_state: 'none', publish_reason: why, publish_review_time: now, update_time: now };
    const done = await this.repo.reviewPublication(this.kind, row.id, set, (tx) =>
      this.audit.record(tx, {
        actor,
        action: 'asset.review',
        target: { type: this.kind, id: row.id, name: row.name },
        before: { publishState: 'pending', visibility: row.visibility },
        after,
        reason: why,
      }),
    );
    if (!done) throw gone();
    if (approve) await this.folders.apply(row.id);
    await this.notify(row.owner_id, {
      type: 'system',
      title: approve ? `${KIND_LABEL[this.kind]}已公开` : `${KIND_LABEL[this.kind]}的公开申请未通过`,
      content: approve ? `「${row.name}」已发布到公共资源大厅，所有用户都可查看和使用。` : `「${row.name}」的公开申请未通过：${why}。修改后可再次申请公开。`,
      businessType: this.kind,
      businessId: row.id,
    });
    return this.toDetail((await this.repo.findAny(this.kind, id))!, p, false);
  }

  /** Publication requests waiting for an operator (operators only). */
  async pending(p: Principal): Promise<Asset[]> {
    this.access.require(p, 'asset.review');
    const rows = await this.repo.pendingPublication(this.kind);
    const [versions, owners] = await Promise.all([this.repo.versionsOf(rows.map((r) => r.id)), this.ownerNames(rows)]);
    return rows.map((r) => this.toAsset(r, p, versions, owners));
  }

  /** Makes an asset public (an operator's approval; the demo seed publishes the platform's assets with it). */
  async approvePublish(id: string): Promise<void> {
    const row = await this.repo.findAny(this.kind, id);
    if (!row) throw notFound(KIND_LABEL[this.kind]);
    await this.repo.update(row.owner_id, row.id, { visibility: 'public', publish_state: 'published', update_time: this.clock() });
    await this.folders.apply(row.id);
  }

  /**
   * A version the caller may read, ready, on `centerId`, as the task will see it (`env` numbered by the
   * caller in the order of the form). The asset and version ids are what later deletes look for.
   */
  /**
   * A version as a task on `centerId` mounts it. On another center it is mounted from its copy on the task's
   * center: ready, or `pending` (the task waits while the platform syncs it there, ADR 0010 §8).
   */
  async mount(p: Principal, assetId: string, versionId: string, centerId: string, env: string): Promise<{ mount: TaskMount; pending: PendingCopy | null }> {
    const { row, version, center } = await this.readyVersion(p, assetId, versionId);
    const target = this.centers.find((c) => c.id === centerId);
    if (!target) throw notFound('算力分中心');
    const mount = { kind: this.kind, assetId: row.id, versionId: version.id, name: row.name, version: Number(version.version), env, path: this.store.dirOf(target, row.id, version.id) };
    // The task runs as the caller's account on its center, which may be newer than the share: the folder
    // there must let that account in (ADR 0013). The task would make the account anyway.
    await this.clusterAccounts.ensure(p.userId, target.id);
    if (center.id === target.id) {
      await this.folders.apply(row.id, target);
      return { mount, pending: null };
    }
    const copy = await this.copies.versionCopy(version.id, target.id);
    if (copy.state === 'ready') {
      await this.store.adoptCopy(center, target, row.id, version.id);
      await this.folders.apply(row.id, target);
      return { mount, pending: null };
    }
    // The copy will be synced into the asset's folder there: made now, closed to all but those who may read.
    await this.folders.apply(row.id, target, { create: true });
    return { mount, pending: { assetId: row.id, versionId: version.id, sourceCenterId: center.id, label: versionLabel(this.kind, row.name, Number(version.version)) } };
  }

  // ---- lifecycle --------------------------------------------------------------------------------------

  /**
   * Versions a stopped gateway left `creating` are failed (their partial copy removed — on a center behind its
   * file service once it answers): the user retries.
   */
  async recover(): Promise<void> {
    for (const v of await this.repo.unfinishedVersions()) {
      const center = this.centers.find((c) => c.id === v.sub_center_id);
      if (center) await this.folders.whenReachable(center, 'asset area: removing a half-copied version', () => this.store.removeVersion(center, v.asset_id, v.id));
      await this.repo.settleVersion(v.id, { state: 'failed', reason: '服务重启，复制中断，请重新创建该版本' });
    }
  }

  /** Resolves when no copy is running (tests; close). */
  async idle(): Promise<void> {
    while (this.copying.size) await Promise.all([...this.copying.values()].map((c) => c.done));
  }

  // ---- internals --------------------------------------------------------------------------------------

  /** The asset when the caller may read it (1205 otherwise, as for a missing one), and whether they may change it. */
  private async readable(p: Principal, id: string): Promise<Access> {
    const candidate = await this.repo.findWithShare(this.kind, id, p.userId);
    // Shared with a team the caller is in now: the resource carries that team and the caller's role in it
    // (`teamMember`). Asked only when nothing else lets the caller read it.
    let team: Resource['team'];
    if (candidate && !candidate.shared && candidate.visibility !== 'public' && !this.access.owns(p, { ownerId: candidate.owner_id })) {
      const shared = await this.repo.teamShareIds(candidate.id);
      const roles = shared.length ? await this.teams.rolesOf(p.userId) : new Map();
      const teamId = shared.find((t) => roles.has(t));
      if (teamId) team = { id: teamId, roles: new Map([[p.userId, roles.get(teamId)!]]) };
    }
    const resourceOf = (r: AssetRow & { shared: boolean }): Resource => ({ ownerId: r.owner_id, public: r.visibility === 'public', sharees: r.shared ? [p.userId] : [], ...(team ? { team } : {}) });
    const found = this.access.found(p, 'asset.read', candidate, resourceOf, KIND_LABEL[this.kind]);
    const { shared: _shared, ...row } = found;
    return { row, owner: this.access.can(p, 'asset.write', resourceOf(found)) };
  }

  private ownerNames(rows: ReadonlyArray<{ owner_id: string }>): Promise<Map<string, UserName>> {
    return this.users.names(rows.map((r) => r.owner_id));
  }

  private async owned(p: Principal, id: string): Promise<Access> {
    const a = await this.readable(p, id);
    if (!a.owner) throw new AppError(ErrorCode.ASSET_READONLY, `只有所有者可以修改或删除该${KIND_LABEL[this.kind]}`);
    return a;
  }

  private async readyVersion(p: Principal, id: string, versionId: string) {
    const { row } = await this.readable(p, id);
    const version = await this.repo.findVersion(row.id, versionId);
    if (!version) throw notFound('版本');
    if (version.state !== 'ready') throw new AppError(ErrorCode.ASSET_VERSION_NOT_READY);
    const center = this.centers.find((c) => c.id === version.sub_center_id);
    if (!center) throw notFound('算力分中心');
    return { row, version, center };
  }

  private checkName(raw: string) {
    const name = raw.trim().normalize('NFC');
    if (!name) throw invalid('name', '名称不能为空');
    // Names become folder names under /mnt in tasks: no slashes, no control characters, no leading dot.
    if (/[/\\\p{Cc}\p{Cf}]/u.test(name) || name.startsWith('.')) throw invalid('name', '名称不能含有斜杠、控制字符，也不能以点开头');
    return name;
  }

  private async checkSource(p: Principal, subCenterId: string, userPath: string, field: string) {
    const center = this.centers.find((c) => c.id === subCenterId);
    if (!center) throw invalid(field === 'path' ? 'subCenterId' : 'source.subCenterId', '算力分中心不存在');
    const account = await this.clusterAccounts.ensure(p.userId, center.id);
    const path = await this.store.checkSource(center, activeAccount(account), userPath, field);
    return { center, path, account };
  }

  /** Starts copying the folder `source` (normalised, `/a/b`) of the caller's home on `center` into a new version. */
  private async startVersion(p: Principal, assetId: string, center: CenterConfig, source: string, note: string, sourceTaskId: string | null) {
    const versionId = newId(this.clock());
    const account = await this.clusterAccounts.ensure(p.userId, center.id);
    await this.repo.insertNextVersion({
      id: versionId,
      asset_id: assetId,
      sub_center_id: center.id,
      source_path: source,
      state: 'creating',
      reason: '',
      size_bytes: 0,
      file_count: 0,
      digest: '',
      note: note.trim(),
      source_task_id: sourceTaskId,
      create_time: this.clock(),
    });
    await this.repo.touch(assetId, this.clock());
    const entry = { copied: 0, done: Promise.resolve() };
    let lastPush = 0;
    const push = (state: AssetVersion['state'], reason = '') =>
      this.bus.publish(p.userId, { businessType: WS_ASSET_VERSION_CHANGED, data: { kind: this.kind, assetId, versionId, state, reason, copiedBytes: entry.copied } });
    entry.done = this.store
      .snapshot(center, activeAccount(account), source, assetId, versionId, (copied) => {
        entry.copied = copied;
        const now = Date.now();
        if (now - lastPush >= PROGRESS_EVERY_MS) {
          lastPush = now;
          void push('creating');
        }
      })
      .then(async (s) => {
        // A new asset's folder is closed (0700) until its access is set: a version is ready once it is.
        await this.folders.apply(assetId, center).catch(async (e: unknown) => {
          await this.store.removeVersion(center, assetId, versionId);
          throw e;
        });
        return s;
      })
      .then(
        async (s) => {
          await this.repo.settleVersion(versionId, { state: 'ready', size_bytes: s.sizeBytes, file_count: s.fileCount, digest: s.digest });
          await this.repo.touch(assetId, this.clock());
          await push('ready');
        },
        async (e: unknown) => {
          const reason = e instanceof AppError ? e.message : '复制失败，请稍后重试';
          await this.repo.settleVersion(versionId, { state: 'failed', reason });
          await push('failed', reason);
        },
      )
      .finally(() => this.copying.delete(versionId));
    this.copying.set(versionId, entry);
    return versionId;
  }

  private async syncVisibility(row: AssetRow) {
    const shares = (await this.repo.countShares(row.id)) + (await this.repo.countTeamShares(row.id));
    const visibility = row.publish_state === 'published' ? 'public' : shares > 0 ? 'shared' : 'private';
    await this.repo.update(row.owner_id, row.id, { visibility, update_time: this.clock() });
  }

  private toVersion(v: VersionRow, asset: Pick<AssetRow, 'name'>): AssetVersion {
    return {
      id: v.id,
      version: Number(v.version),
      subCenterId: v.sub_center_id,
      subCenterName: this.centers.find((c) => c.id === v.sub_center_id)?.name ?? v.sub_center_id,
      sourcePath: v.source_path,
      state: v.state === 'ready' || v.state === 'failed' ? v.state : 'creating',
      reason: v.reason,
      sizeBytes: Number(v.size_bytes),
      fileCount: Number(v.file_count),
      copiedBytes: v.state === 'ready' ? Number(v.size_bytes) : (this.copying.get(v.id)?.copied ?? 0),
      digest: v.digest,
      note: v.note,
      sourceTaskId: v.source_task_id,
      mountPath: mountPathOf(this.kind, asset.name, Number(v.version)),
      createTime: Number(v.create_time),
    };
  }

  private toAsset(r: AssetRow, p: Principal, versions: VersionRow[], owners: Map<string, UserName>): Asset {
    const mine = versions.filter((v) => v.asset_id === r.id);
    const latest = mine.find((v) => v.state === 'ready');
    return {
      id: r.id,
      kind: this.kind,
      name: r.name,
      description: r.description,
      tags: parseJson<string[]>(r.tags, []),
      license: r.license,
      visibility: r.visibility === 'shared' || r.visibility === 'public' ? r.visibility : 'private',
      publishState: r.publish_state === 'pending' || r.publish_state === 'published' ? r.publish_state : 'none',
      publishReason: r.publish_reason,
      ownerId: r.owner_id,
      ownerName: ownerLabel(owners.get(r.owner_id)),
      mine: this.access.owns(p, { ownerId: r.owner_id }),
      framework: r.framework,
      format: r.format,
      metrics: parseJson<Record<string, number>>(r.metrics, {}),
      versionCount: mine.length,
      latestSizeBytes: latest ? Number(latest.size_bytes) : 0,
      createTime: Number(r.create_time),
      updateTime: Number(r.update_time),
    };
  }

  private async toDetail(row: AssetRow, p: Principal, owner: boolean): Promise<AssetDetail> {
    const versions = await this.repo.versionsOf([row.id]);
    const shares = owner ? await this.repo.shareUserIds(row.id) : [];
    const teamShares = owner ? await this.repo.teamShareIds(row.id) : [];
    const teamNames = await this.teams.names(teamShares);
    const names = await this.users.names([row.owner_id, ...shares]);
    return {
      ...this.toAsset(row, p, versions, names),
      versions: versions.map((v) => this.toVersion(v, row)),
      // A sharee whose account is gone is not listed (as the join did before).
      shares: shares.flatMap((id) => {
        const u = names.get(id);
        return u ? [{ userId: id, username: u.username, nickname: u.nickname ?? '' }] : [];
      }),
      // A dissolved team is not listed.
      teamShares: teamShares.flatMap((teamId) => (teamNames.has(teamId) ? [{ teamId, teamName: teamNames.get(teamId)! }] : [])),
      added: !owner && (await this.repo.isSharedWith(row.id, p.userId)),
    };
  }
}

/** Where a task sees a mounted version (read-only). */
/** How a version is named to its users (task reasons, the task panel): `数据集「MNIST」v1`. */
export const versionLabel = (kind: AssetKind, name: string, version: number) => `${KIND_LABEL[kind]}「${name}」v${version}`;

export function mountPathOf(kind: AssetKind, name: string, version: number) {
  return `/mnt/${kind}s/${name}/v${version}`;
}

function cleanTags(tags: string[] | undefined) {
  return [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * How an asset's owner is named to others (所有者, 来自…, …共享): the nickname they chose, else the user name —
 * the platform's own account (public seed) is then 算力平台, not its login name `platform`.
 */
function ownerLabel(u: UserName | undefined): string {
  return u ? u.nickname?.trim() || u.username : '';
}
