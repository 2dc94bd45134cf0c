import owners from './table-owners.json';
import type { Database } from './schema';

/**
 * Which module owns each table: the only one whose code may name it in SQL (`npm run lint` enforces it with
 * `lint/own-tables.mjs`, which reads the same JSON). Other modules read that data through the owner's
 * services (docs/adding-a-module.md §4). `db` marks infrastructure shared by modules through `src/db/`
 * (the leases of `lease.repository.ts`). A new table must be added here: the types below fail otherwise.
 */
export const TABLE_OWNERS: Readonly<Record<keyof Database, string>> = owners;

// A table in the JSON that the schema does not know (a typo, a dropped table) fails the typecheck too.
type Unknown = Exclude<keyof typeof owners, keyof Database>;
export const NO_UNKNOWN_TABLES: [Unknown] extends [never] ? true : Unknown = true;
