/** The order route group (/order). */
export { OrderListPage as OrderPage } from './order-list-page';
