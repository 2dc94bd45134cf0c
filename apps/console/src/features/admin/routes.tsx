/** The 运营管理 route group (/admin/overview, /admin/users, /admin/users/:id, /admin/teams, /admin/orders, /admin/centers, /admin/reviews, /admin/grants, /admin/reconcile, /admin/audit-logs): operators only. */
export { AdminAuditPage } from './admin-audit-page';
export { AdminCentersPage } from './admin-centers-page';
export { AdminGrantsPage } from './admin-grants-page';
export { AdminOverviewPage } from './admin-overview-page';
export { AdminOrdersPage } from './admin-orders-page';
export { AdminUserDetailPage } from './admin-user-detail-page';
export { AdminUsersPage } from './admin-users-page';
export { AdminReviewsPage } from './admin-reviews-page';
export { AdminReconcilePage } from './admin-reconcile-page';
export { AdminTeamsPage } from './admin-teams-page';
