/** The resource route group (/resource, /resource/dashboard, /dashboard). */
export { DashboardPage } from './dashboard-page';
export { ResourcePage } from './resource-page';
