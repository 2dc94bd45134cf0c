/** The payment route group (/pay, /pay/alipay). */
export { AlipayPage, PayPage } from './pay-page';
