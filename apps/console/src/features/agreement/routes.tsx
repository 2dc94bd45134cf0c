/** The user-agreement route group (/user-agreement). */
export { UserAgreementPage } from './user-agreement-page';
