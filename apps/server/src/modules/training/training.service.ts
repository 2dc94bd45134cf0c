import { AUTO_PLACEMENT, ErrorCode, type DiagnosisChange, type ImageItem, type ImageQuery, type Placement, type PlacementQuery, type Task, type TrainingTaskCreate } from '@suanli/contracts';
import { AppError, invalid } from '../../errors';
import type { TaskMount, TaskMountInput } from '@suanli/contracts';
import type { Principal } from '../access/principal';
import { checkTaskInput, type TaskService } from '../task/task.service';
import { withChange } from '../task/diagnosis/task-diagnosis';
import type { ImageCatalogue } from './image-catalogue';
import type { Placer } from './placement';

/**
 * AI计算 › 训练任务: the form's rules (one node unless distributed, an image that runs on the card's vendor,
 * 智能调度), then the shared task engine.
 */
/** The asset module's resolution of the form's 数据集 / 模型 for the task's center. */
/**
 * The asset module's mounts for a task on a center: what the task mounts, and — when a version is on
 * another center — `waitingFor`, the reason the task waits while it is synced there (`startCopies` starts
 * that; the asset module releases the task once the copies are there, ADR 0010 §8).
 */
export interface MountResolver {
  resolve(p: Principal, inputs: TaskMountInput[], centerId: string): Promise<{ mounts: TaskMount[]; waitingFor: string | undefined; startCopies: () => Promise<void> }>;
}

/** The caller's private images (the image module): offered by the form's picker and accepted on submit. */
export interface PrivateImages {
  privateCatalogue(p: Principal): Promise<ImageItem[]>;
  resolvePrivate(p: Principal, id: string): Promise<ImageItem | undefined>;
}

/** What the training form uses of the task engine: a retried submission's task, the parameters to resubmit, the submit. */
export type TrainingTasks = Pick<TaskService, 'submitted' | 'createOnce' | 'parameters'>;

export class TrainingService {
  constructor(
    private readonly tasks: TrainingTasks,
    private readonly images: ImageCatalogue,
    private readonly privateImages: PrivateImages,
    private readonly placer: Placer,
    private readonly resolveMounts: MountResolver,
  ) {}

  async create(p: Principal, body: TrainingTaskCreate): Promise<Task> {
    // A retried submission answers its first task, whatever has changed since (placement, images, shares).
    const first = body.clientRequestId ? await this.tasks.submitted(p, 'training', body.clientRequestId) : undefined;
    if (first) return first;
    const name = body.name.trim();
    if (!name) throw invalid('name', '任务名称不能为空');
    if (!body.command.trim()) throw invalid('command', '启动命令不能为空');
    const nodeNum = body.type === 'distributed' ? body.nodeNum : 1;
    if (body.type === 'distributed' && nodeNum * body.cardNum < 2) throw invalid('nodeNum', '分布式训练至少需要 2 个工作进程（节点数 × 每节点卡数 ≥ 2）');
    checkTaskInput(body);
    // 原任务 must be one of the caller's training tasks (1205 otherwise): a link never shows another's task.
    if (body.resubmittedFrom) await this.tasks.parameters(p, 'training', body.resubmittedFrom);
    const image = this.images.get(body.imageId) ?? (await this.privateImages.resolvePrivate(p, body.imageId));
    const vendor = this.images.vendorOf(body.cardTypeId);
    // A private image runs wherever its owner puts it (its card vendors are not known).
    if (!image || (image.visibility !== 'private' && vendor && !image.cardVendors.includes(vendor))) throw new AppError(ErrorCode.IMAGE_NOT_AVAILABLE);

    let subCenterId = body.subCenterId;
    let placementReason = '';
    if (subCenterId === AUTO_PLACEMENT) {
      const placed = await this.placer.place(p, { cardTypeId: body.cardTypeId, cardNum: body.cardNum, nodeNum, workDir: body.workDir });
      subCenterId = placed.subCenterId;
      placementReason = placed.reason;
    }
    const { mounts, waitingFor, startCopies } = await this.resolveMounts.resolve(p, body.mounts ?? [], subCenterId);
    const { task, created } = await this.tasks.createOnce(p, {
      kind: 'training',
      type: body.type,
      name,
      subCenterId,
      placementReason,
      cardTypeId: body.cardTypeId,
      cardNum: body.cardNum,
      nodeNum,
      imageId: image.id,
      command: body.command,
      workDir: body.workDir,
      env: body.env,
      maxDurationMinutes: body.maxDurationMinutes,
      mounts,
      waitingFor,
      clientRequestId: body.clientRequestId,
      payerTeamId: body.payerTeamId,
      resubmittedFrom: body.resubmittedFrom,
    });
    // A request that lost the race to an identical one: the winner starts the copies.
    if (created) await startCopies();
    return task;
  }

  /** The same parameters again, on the same center, as a new task (`clientRequestId` as for create). */
  async resubmit(p: Principal, id: string, clientRequestId?: string, change?: DiagnosisChange): Promise<Task> {
    const first = clientRequestId ? await this.tasks.submitted(p, 'training', clientRequestId) : undefined;
    if (first) return first;
    // 按建议重新提交 (issue 23): the diagnosis's change (a longer limit) applied.
    const t = withChange(await this.tasks.parameters(p, 'training', id), change);
    // Access to a mounted version is checked again: a share may have been withdrawn since.
    const { mounts, waitingFor, startCopies } = await this.resolveMounts.resolve(p, (t.mounts ?? []).map(({ kind, assetId, versionId }) => ({ kind, assetId, versionId })), t.subCenterId);
    const { task, created } = await this.tasks.createOnce(p, { ...t, mounts, waitingFor, clientRequestId, resubmittedFrom: id });
    if (created) await startCopies();
    return task;
  }

  place(p: Principal, q: PlacementQuery): Promise<Placement> {
    return this.placer.place(p, q);
  }

  /** The public catalogue filtered by framework and card type, then the caller's private images (not filtered by framework, which they do not declare). */
  async listImages(p: Principal, q: ImageQuery): Promise<ImageItem[]> {
    const own = q.framework ? [] : await this.privateImages.privateCatalogue(p);
    return [...this.images.list(q), ...own];
  }
}
