import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The public resource hall route group (/public-data/dataset, /public-data/model, detail/:type/:id).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const PublicDataIndexPage = underConstruction({ title: '公共资源大厅', description: '浏览平台公开的数据集与模型，一键复制到自己的空间使用。' });
export const PublicDataDetailPage = underConstruction({ title: '公共资源详情', description: '查看公开数据集或模型的介绍、文件列表与使用说明。' });
