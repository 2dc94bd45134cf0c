/** The sign-in route group (/login, /login/register, /login/find, /login/edit). */
export { LoginPage } from './login-page';
export { RegisterPage } from './register-page';
export { FindPasswordPage } from './find-password-page';
export { EditPasswordPage } from './edit-password-page';
