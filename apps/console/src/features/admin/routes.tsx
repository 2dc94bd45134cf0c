/** The 运营管理 route group (/admin/users, /admin/users/:id, /admin/grants, /admin/audit-logs): operators only. */
export { AdminAuditPage } from './admin-audit-page';
export { AdminGrantsPage } from './admin-grants-page';
export { AdminUserDetailPage } from './admin-user-detail-page';
export { AdminUsersPage } from './admin-users-page';
