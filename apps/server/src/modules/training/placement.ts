import { ErrorCode, type Placement, type PlacementCandidate, type PlacementQuery } from '@suanli/contracts';
import { isAccelerator } from '../../centers/centers';
import { AppError } from '../../errors';
import type { Principal } from '../access/principal';
import type { CenterStates } from '../center/center.service';
import type { TaskQueries } from '../task/task-queries';

/** What placement reads of the task module: the centers, their capacity and queues, the caller's folders. */
export type PlacementTasks = Pick<TaskQueries, 'centers' | 'capacity' | 'queued' | 'holdsDir' | 'cardTypeName'>;

/**
 * 智能调度 (design/domain.md, placement): among the centers open for submits (正常) offering the card type, the one with
 * enough free cards now, then the shortest queue, then the one already holding the work directory (prices
 * join the order once they exist). The reason is said in Chinese so the user sees it before submitting.
 */
export class Placer {
  constructor(
    private readonly tasks: PlacementTasks,
    /** 正常 / 维护 / 下线 as operators set them: only a 正常 center is a candidate. */
    private readonly states: CenterStates,
  ) {}

  async place(p: Principal, q: PlacementQuery): Promise<Placement> {
    const need = q.cardNum * (q.nodeNum ?? 1);
    const candidates: (PlacementCandidate & { fits: boolean })[] = [];
    const states = await this.states();
    for (const center of this.tasks.centers()) {
      if ((states.get(center.id)?.status ?? center.status) !== 'online') continue;
      const type = center.cardTypes.find((t) => t.id === q.cardTypeId);
      if (!type || q.cardNum > type.cardsPerNode || (q.nodeNum ?? 1) > type.nodes) continue;
      const [capacity, queuedMap, holdsWorkDir] = await Promise.all([
        this.tasks.capacity(center.id),
        this.tasks.queued(center.id),
        q.workDir ? this.tasks.holdsDir(p.userId, center.id, q.workDir) : Promise.resolve(false),
      ]);
      const cap = capacity.find((c) => c.cardTypeId === type.id);
      const total = cap?.total ?? type.nodes * type.cardsPerNode;
      const available = Math.max(0, total - (cap?.allocated ?? 0));
      const queued = Math.max(queuedMap.get(type.id) ?? 0, cap?.queued ?? 0);
      candidates.push({ subCenterId: center.id, subCenterName: center.name, available, total, queued, holdsWorkDir, fits: available >= need });
    }
    if (!candidates.length) throw new AppError(ErrorCode.NO_CENTER_FOR_CARD);
    candidates.sort(
      (a, b) => Number(b.fits) - Number(a.fits) || a.queued - b.queued || Number(b.holdsWorkDir) - Number(a.holdsWorkDir) || b.available - a.available,
    );
    const best = candidates[0];
    const typeName = this.tasks.cardTypeName(q.cardTypeId);
    // A CPU-only type's "cards" are cores: counted in 核, as 资源概览 does.
    const type = this.tasks.centers().flatMap((c) => c.cardTypes).find((t) => t.id === q.cardTypeId);
    const unit = type && !isAccelerator(type) ? '核' : '张';
    const parts: string[] = [];
    if (best.fits) parts.push(`${best.subCenterName}现有 ${best.available} ${unit}空闲的${typeName}，可立即满足 ${need} ${unit}的需求`);
    else parts.push(`各分中心暂无 ${need} ${unit}空闲的${typeName}，${best.subCenterName}排队最短（${best.queued} 个任务等待）`);
    const tied = candidates.filter((c) => c.fits === best.fits && c.queued === best.queued);
    if (best.holdsWorkDir && tied.length > 1) parts.push(`且已有工作目录 ${q.workDir}`);
    else if (best.fits && tied.length === 1 && candidates.length > 1) parts.push('其他分中心空闲卡不足或排队更长');
    return {
      subCenterId: best.subCenterId,
      subCenterName: best.subCenterName,
      reason: `智能调度：${parts.join('，')}`,
      candidates: candidates.map(({ fits: _fits, ...c }) => c),
    };
  }
}
