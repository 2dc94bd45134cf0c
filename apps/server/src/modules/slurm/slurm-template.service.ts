import { ErrorCode, type Page, type SlurmTemplate, type SlurmTemplateFromTask, type SlurmTemplateSave, type TemplatePageQuery } from '@suanli/contracts';
import { AppError, notFound } from '../../errors';
import { newId } from '../../lib/id';
import type { Principal } from '../access/principal';
import type { TaskService } from '../task/task.service';
import type { SlurmTemplateRepository, SlurmTemplateRow } from './slurm-template.repository';
import { validateTemplate } from './template-render';

/**
 * 科学计算 › 任务模板: the platform's templates (config, read-only) and each user's own (database). A user
 * sees both, platform first; changes only their own (a platform template → 2102, anyone else's → 1205).
 */
export class SlurmTemplateService {
  private readonly platformById: Map<string, SlurmTemplate>;

  constructor(
    private readonly repo: SlurmTemplateRepository,
    private readonly platform: readonly SlurmTemplate[],
    /** A task's script and resources, for 保存为模板. */
    private readonly tasks: Pick<TaskService, 'parameters'>,
    private readonly clock: () => number,
  ) {
    this.platformById = new Map(platform.map((t) => [t.id, t]));
  }

  /** Platform templates (config order), then the caller's (newest first), filtered and paged on the server. */
  async page(p: Principal, q: TemplatePageQuery): Promise<Page<SlurmTemplate>> {
    const keyword = q.keyword?.trim() || undefined;
    const category = q.category?.trim() || undefined;
    const platform =
      q.source === 'user' ? [] : this.platform.filter((t) => (!keyword || t.name.includes(keyword)) && (!category || t.category === category));
    const offset = (q.pageNum - 1) * q.pageSize;
    const fromPlatform = platform.slice(offset, offset + q.pageSize);
    let userTotal = 0;
    let own: SlurmTemplateRow[] = [];
    if (q.source !== 'platform') {
      const filter = { keyword, category };
      const userOffset = Math.max(0, offset - platform.length);
      const room = q.pageSize - fromPlatform.length;
      [userTotal, own] = await Promise.all([this.repo.count(p.userId, filter), room > 0 ? this.repo.list(p.userId, filter, userOffset, room) : Promise.resolve([])]);
    }
    return { list: [...fromPlatform, ...own.map(toTemplate)], total: platform.length + userTotal, pageNum: q.pageNum, pageSize: q.pageSize };
  }

  /** A platform template or one of the caller's; anything else is 1205. */
  async get(p: Principal, id: string): Promise<SlurmTemplate> {
    const pf = this.platformById.get(id);
    if (pf) return pf;
    return toTemplate(await this.owned(p, id));
  }

  async create(p: Principal, body: SlurmTemplateSave): Promise<SlurmTemplate> {
    const t = normalise(body);
    validateTemplate(t);
    const now = this.clock();
    const row: SlurmTemplateRow = {
      id: newId(now),
      owner_id: p.userId,
      name: t.name,
      description: t.description,
      category: t.category,
      script: t.script,
      params: JSON.stringify(t.params),
      defaults: JSON.stringify(t.defaults),
      create_time: now,
      update_time: now,
    };
    await this.repo.insert(row);
    return toTemplate(row);
  }

  async update(p: Principal, id: string, body: SlurmTemplateSave): Promise<SlurmTemplate> {
    const existing = await this.ownedForChange(p, id);
    const t = normalise(body);
    validateTemplate(t);
    const now = this.clock();
    const patch = {
      name: t.name,
      description: t.description,
      category: t.category,
      script: t.script,
      params: JSON.stringify(t.params),
      defaults: JSON.stringify(t.defaults),
      update_time: now,
    };
    if (!(await this.repo.update(p.userId, id, patch))) throw notFound('模板');
    return toTemplate({ ...existing, ...patch });
  }

  async remove(p: Principal, id: string): Promise<null> {
    await this.ownedForChange(p, id);
    if (!(await this.repo.remove(p.userId, id))) throw notFound('模板');
    return null;
  }

  /**
   * 保存为模板: a new template of the caller's from one of their Slurm tasks, with its resources as defaults.
   * A task made from a template the caller still sees keeps that template's script and parameters, the
   * task's values becoming the defaults; otherwise (a custom script, a template gone or changed so that the
   * values no longer fit) the template is the task's script as it ran, without parameters.
   */
  async fromTask(p: Principal, taskId: string, body: SlurmTemplateFromTask): Promise<SlurmTemplate> {
    const task = await this.tasks.parameters(p, 'slurm', taskId);
    const base: SlurmTemplateSave = {
      name: body.name?.trim() || task.name,
      description: body.description ?? '',
      category: body.category ?? '',
      script: task.command,
      params: [],
      defaults: { cardTypeId: task.cardTypeId, cardNum: task.cardNum, nodeNum: task.nodeNum, maxDurationMinutes: task.maxDurationMinutes },
    };
    const source = task.templateId ? await this.get(p, task.templateId).catch(() => undefined) : undefined;
    if (source) {
      const values = task.params ?? {};
      const carried: SlurmTemplateSave = {
        ...base,
        category: body.category ?? source.category,
        script: source.script,
        params: source.params.map((x) => (values[x.name] === undefined ? x : { ...x, default: values[x.name] })),
      };
      try {
        return await this.create(p, carried);
      } catch (e) {
        if (!(e instanceof AppError && e.code === ErrorCode.PARAM_INVALID)) throw e;
      }
    }
    return this.create(p, base);
  }

  private async owned(p: Principal, id: string): Promise<SlurmTemplateRow> {
    const row = await this.repo.findOwned(p.userId, id);
    if (!row) throw notFound('模板');
    return row;
  }

  private async ownedForChange(p: Principal, id: string): Promise<SlurmTemplateRow> {
    if (this.platformById.has(id)) throw new AppError(ErrorCode.TEMPLATE_READONLY);
    return this.owned(p, id);
  }
}

/**
 * Trimmed texts; a default in its parameter's type (the wire's string-or-number union lets a number arrive
 * as text and the other way round).
 */
function normalise(t: SlurmTemplateSave): SlurmTemplateSave {
  const params = t.params.map((p) => {
    if (p.default === undefined) return p;
    const asNumber = typeof p.default === 'number' ? p.default : p.default.trim() === '' ? NaN : Number(p.default);
    return { ...p, default: p.type === 'number' && Number.isFinite(asNumber) ? asNumber : String(p.default) };
  });
  return { ...t, name: t.name.trim(), description: t.description.trim(), category: t.category.trim(), params };
}

function toTemplate(r: SlurmTemplateRow): SlurmTemplate {
  return {
    id: r.id,
    source: 'user',
    name: r.name,
    description: r.description,
    category: r.category,
    script: r.script,
    params: JSON.parse(r.params) as SlurmTemplate['params'],
    defaults: JSON.parse(r.defaults) as SlurmTemplate['defaults'],
    createTime: Number(r.create_time),
    updateTime: Number(r.update_time),
  };
}
