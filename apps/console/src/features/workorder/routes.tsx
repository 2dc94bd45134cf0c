import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The work-order route group (/workorder).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const WorkorderPage = underConstruction({ title: '工单系统', description: '提交账号、任务、存储或费用相关的问题工单，跟踪处理进度。' });
