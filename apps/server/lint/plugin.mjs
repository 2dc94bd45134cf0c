import { fileLength } from './file-length.mjs';
import { ownTables } from './own-tables.mjs';

/** The project's own ESLint rules, one plugin (`suanli/…`) for eslint.config.js. */
export default { rules: { 'own-tables': ownTables, 'file-length': fileLength } };
