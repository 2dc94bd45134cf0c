/** The expense route group (/expense). */
export { ExpensePage } from './expense-page';
