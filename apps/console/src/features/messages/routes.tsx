/** The message-centre route group (/message). */
export { MessagePage } from './message-page';
