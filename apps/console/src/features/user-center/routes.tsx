/** The personal-info route group (/user-center). */
export { UserCenterPage } from './user-center-page';
