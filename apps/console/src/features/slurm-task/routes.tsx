import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The Slurm task route group (/slurm-task, task/:type, detail/:type/:id).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const SlurmTaskListPage = underConstruction({ title: '任务管理', description: '查看已提交的科学计算作业，跟踪排队、运行与完成状态。' });
export const SlurmTaskFormPage = underConstruction({ title: '提交作业', description: '填写作业脚本与资源需求，提交到所选分中心的 Slurm 集群。' });
export const SlurmTaskDetailPage = underConstruction({ title: '作业详情', description: '查看作业的资源分配、运行状态、输出文件与算力消耗。' });
