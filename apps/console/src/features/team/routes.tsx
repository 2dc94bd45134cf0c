import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The team route group (/team, detail/:id).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const TeamListPage = underConstruction({ title: '团队管理', description: '创建团队、邀请成员，与团队成员共享存储空间与算力。' });
export const TeamDetailPage = underConstruction({ title: '团队详情', description: '查看团队成员、角色与团队资源的使用情况。' });
