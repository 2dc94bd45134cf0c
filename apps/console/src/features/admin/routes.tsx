/** The 运营管理 route group (/admin/users, /admin/users/:id, /admin/reviews, /admin/audit-logs): operators only. */
export { AdminAuditPage } from './admin-audit-page';
export { AdminUserDetailPage } from './admin-user-detail-page';
export { AdminUsersPage } from './admin-users-page';
export { AdminReviewsPage } from './admin-reviews-page';
