/** The sign-in route (/login): its own chunk, the first page most visitors load. */
export { LoginPage } from './login-page';
