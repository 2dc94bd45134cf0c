import { Type, type Static } from '@sinclair/typebox';
import { DICT_LABELS, dictEntries } from './dict-labels';

/**
 * Dictionaries served by `GET /dicts/action/query/dict/{dictName}`. Values are the stable codes stored in
 * the database; labels are what the console shows.
 */
export const DictEntry = Type.Object({ dictLabel: Type.String(), dictValue: Type.String(), sort: Type.Integer() });
export type DictEntry = Static<typeof DictEntry>;
export const DictParams = Type.Object({ dictName: Type.String({ minLength: 1, maxLength: 64 }) });
export type DictParams = Static<typeof DictParams>;


export const DICTS: Record<string, DictEntry[]> = Object.fromEntries(Object.keys(DICT_LABELS).map((name) => [name, dictEntries(name)]));
