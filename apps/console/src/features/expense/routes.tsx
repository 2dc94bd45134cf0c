import { underConstruction } from '../../shared/ui/under-construction';

/**
 * The expense route group (/expense).
 * Still to be built: every page shows the shared “功能建设中” page until its feature lands here.
 */
export const ExpensePage = underConstruction({ title: '费用明细', description: '按分中心与时间查看算力的消费记录与充值记录，掌握每一笔卡时的去向。' });
