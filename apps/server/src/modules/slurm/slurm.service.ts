import { AUTO_PLACEMENT, type DiagnosisChange, type SlurmTaskCreate, type Task } from '@suanli/contracts';
import { invalid } from '../../errors';
import type { Principal } from '../access/principal';
import { checkTaskInput, type TaskService } from '../task/task.service';
import { withChange } from '../task/diagnosis/task-diagnosis';
import type { Placer } from '../training/placement';
import type { SlurmTemplateService } from './slurm-template.service';
import { checkScript, renderTemplate } from './template-render';

/**
 * 科学计算 › 任务管理: a Slurm task from a template (its script rendered with the user's values) or from a
 * custom sbatch script, then the shared task engine (kind `slurm`: the script runs as the batch script).
 */
/** What the Slurm form uses of the task engine: a retried submission's task, the center, the job's home, the submit. */
export type SlurmTasks = Pick<TaskService, 'submitted' | 'center' | 'jobHome' | 'create' | 'parameters'>;

export class SlurmService {
  constructor(
    private readonly tasks: SlurmTasks,
    private readonly templates: SlurmTemplateService,
    private readonly placer: Placer,
  ) {}

  async create(p: Principal, body: SlurmTaskCreate): Promise<Task> {
    // A retried submission answers its first task, whatever has changed since (the template, placement).
    const first = body.clientRequestId ? await this.tasks.submitted(p, 'slurm', body.clientRequestId) : undefined;
    if (first) return first;
    const name = body.name.trim();
    if (!name) throw invalid('name', '任务名称不能为空');
    checkTaskInput(body);
    let template;
    if (body.type === 'template') {
      if (!body.templateId) throw invalid('templateId', '请选择任务模板');
      template = await this.templates.get(p, body.templateId);
    } else {
      if (!body.script?.trim()) throw invalid('script', '请填写 sbatch 脚本');
      checkScript(body.script, 'script');
    }

    let subCenterId = body.subCenterId;
    let placementReason = '';
    if (subCenterId === AUTO_PLACEMENT) {
      const placed = await this.placer.place(p, { cardTypeId: body.cardTypeId, cardNum: body.cardNum, nodeNum: body.nodeNum, workDir: body.workDir });
      subCenterId = placed.subCenterId;
      placementReason = placed.reason;
    }
    this.tasks.center(subCenterId);

    let script = body.script ?? '';
    let params: Record<string, string | number> | null = null;
    if (template) {
      const rendered = renderTemplate(template.script, template.params, body.params ?? {}, await this.tasks.jobHome(p, subCenterId));
      script = rendered.script;
      params = rendered.values;
    }
    return this.tasks.create(p, {
      kind: 'slurm',
      type: body.type,
      name,
      subCenterId,
      placementReason,
      cardTypeId: body.cardTypeId,
      cardNum: body.cardNum,
      nodeNum: body.nodeNum,
      imageId: '',
      command: script,
      workDir: body.workDir,
      env: body.env,
      maxDurationMinutes: body.maxDurationMinutes,
      templateId: template?.id ?? null,
      params,
      clientRequestId: body.clientRequestId,
      payerTeamId: body.payerTeamId,
    });
  }

  /** The same script and resources again, on the same center, as a new task (`clientRequestId` as for create). */
  async resubmit(p: Principal, id: string, clientRequestId?: string, change?: DiagnosisChange): Promise<Task> {
    // 按建议重新提交 (issue 23): the diagnosis's change (more memory in the script, a longer limit) applied.
    // `parameters` answers only the caller's own Slurm task (1205 otherwise): the link is to a task they own.
    return this.tasks.create(p, { ...withChange(await this.tasks.parameters(p, 'slurm', id), change), clientRequestId, resubmittedFrom: id });
  }
}
