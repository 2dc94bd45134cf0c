import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The Slurm template route group (/slurm-template, eshell).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const SlurmTemplatePage = underConstruction({ title: '任务模板', description: '使用常用科学计算软件的作业模板，快速生成 Slurm 作业脚本。' });
export const EshellPage = underConstruction({ title: 'Shell工具', description: '在浏览器中打开分中心登录节点的终端，直接操作您的集群账号。' });
