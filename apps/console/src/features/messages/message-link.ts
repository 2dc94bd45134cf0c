import type { Message } from '@suanli/contracts';

/**
 * Where a message's 查看详情 leads: the thing it is about (`businessType` + `businessId`, as the server's
 * notify calls set them). Task detail pages read the task by its id; the path's type segment only picks the
 * list to go back to until the task has loaded. Messages about nothing with a page of its own (system
 * notices, a sync job: the header's task panel) have no link.
 */
export function messageLink(m: Pick<Message, 'businessType' | 'businessId'>): string | null {
  const id = m.businessId ? encodeURIComponent(m.businessId) : '';
  if (!id) return null;
  switch (m.businessType) {
    case 'training':
      return `/training/detail/train/${id}`;
    case 'slurm':
      return `/slurm-task/detail/template/${id}`;
    case 'dataset':
    case 'model':
    case 'workorder':
    case 'team':
      return `/${m.businessType}/detail/${id}`;
    case 'team.invitation':
      // Answered in place (接受 / 拒绝); the invitation also waits on 团队管理.
      return '/team';
    default:
      return null;
  }
}
