import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The dataset route group (/dataset, detail/:id).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const DatasetIndexPage = underConstruction({ title: '数据集', description: '管理“我的数据集”与“共享数据集”，在训练任务中直接挂载使用。' });
export const DatasetDetailPage = underConstruction({ title: '数据集详情', description: '查看数据集的文件、版本与共享范围。' });
