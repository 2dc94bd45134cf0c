import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation';

/** Every migration, in order. One set for both engines; keep column types portable (see schema.ts). */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
};
