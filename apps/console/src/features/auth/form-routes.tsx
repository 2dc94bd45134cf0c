/** The other account pages (/login/register, /login/find, /login/edit): a chunk of their own. */
export { RegisterPage } from './register-page';
export { FindPasswordPage } from './find-password-page';
export { EditPasswordPage } from './edit-password-page';
