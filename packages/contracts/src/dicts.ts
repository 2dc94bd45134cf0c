import { Type, type Static } from '@sinclair/typebox';
import { DICT_LABELS } from './dict-labels';

/**
 * Dictionaries served by `GET /dicts/action/query/dict/{dictName}`. Values are the stable codes stored in
 * the database; labels are what the console shows.
 */
export const DictEntry = Type.Object({ dictLabel: Type.String(), dictValue: Type.String(), sort: Type.Integer() });
export type DictEntry = Static<typeof DictEntry>;
export const DictParams = Type.Object({ dictName: Type.String({ minLength: 1, maxLength: 64 }) });
export type DictParams = Static<typeof DictParams>;


function dict(pairs: readonly (readonly [string, string])[]): DictEntry[] {
  return pairs.map(([dictValue, dictLabel], i) => ({ dictLabel, dictValue, sort: i + 1 }));
}

export const DICTS: Record<string, DictEntry[]> = Object.fromEntries(Object.entries(DICT_LABELS).map(([name, pairs]) => [name, dict(pairs)]));
