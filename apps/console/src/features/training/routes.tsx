import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The training route group (/training, develop, distributed, task/:type, detail/:type/:id).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const TrainingListPage = underConstruction({ title: '训练任务', description: '在各算力分中心提交单机训练任务，查看运行状态、日志与资源消耗。' });
export const TrainingDevelopPage = underConstruction({ title: '交互式开发', description: '申请带 GPU 的交互式开发环境，在浏览器中编写与调试训练代码。' });
export const TrainingDistributedPage = underConstruction({ title: '分布式训练', description: '跨多卡、多节点提交分布式训练任务，统一查看各节点运行情况。' });
export const TrainingTaskPage = underConstruction({ title: '创建训练任务', description: '选择分中心、卡型、镜像与数据集，配置启动命令后提交训练任务。' });
export const TrainingDetailPage = underConstruction({ title: '训练任务详情', description: '查看训练任务的参数、状态变化、实时日志与算力消耗。' });
