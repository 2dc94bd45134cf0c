/** The key pair route group (/keypair, /keypair/create). */
export { KeypairCreatePage } from './keypair-create-page';
export { KeypairListPage } from './keypair-list-page';
