import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The resource route group (/resource, /resource/dashboard, /dashboard).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const ResourcePage = underConstruction({ title: '资源概览', description: '查看各算力分中心的卡型、可用资源与使用率。' });
export const DashboardPage = underConstruction({ title: '资源大屏', description: '以图表展示全平台算力资源的分布、使用率与任务运行趋势。' });
