import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation';
import * as m0002 from './0002_user';
import * as m0003 from './0003_message_paging';
import * as m0004 from './0004_username_nocase';

/** Every migration, in order. One set for both engines; keep column types portable (see schema.ts). */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_user': m0002,
  '0003_message_paging': m0003,
  '0004_username_nocase': m0004,
};
