import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The model route group (/model, detail/:id).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const ModelIndexPage = underConstruction({ title: '模型', description: '管理“我的模型”与“共享模型”，保存训练产出并用于后续任务。' });
export const ModelDetailPage = underConstruction({ title: '模型详情', description: '查看模型的文件、版本、来源任务与共享范围。' });
