import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './constants';

/** Ids are strings; times are epoch milliseconds. */
export const Id = Type.String({ minLength: 1, maxLength: 64 });
export type Id = Static<typeof Id>;
export const Millis = Type.Number();
export type Millis = Static<typeof Millis>;

export const EnvelopeMessage = Type.Object({ code: Type.Integer(), message: Type.String() });

/** `{message:{code,message}, data}` — every JSON answer of every service. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ message: EnvelopeMessage, data });
}
export type EnvelopeMessage = Static<typeof EnvelopeMessage>;
export type EnvelopeOf<T> = { message: EnvelopeMessage; data: T };

export const PageQuery = Type.Object({
  pageNum: Type.Integer({ minimum: 1, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
});
export type PageQuery = Static<typeof PageQuery>;

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    list: Type.Array(item),
    total: Type.Integer(),
    pageNum: Type.Integer(),
    pageSize: Type.Integer(),
  });
}
export type Page<T> = { list: T[]; total: number; pageNum: number; pageSize: number };

export const Null = Type.Null();
export type Null = Static<typeof Null>;
/**
 * The answer of a route that sends a file (a download, an image) rather than the envelope; its descriptor is
 * marked `bytes` (route.ts). A Blob on the console.
 */
// Cast rather than `Unsafe<Blob>(…)`: the console's build marks `Type.X(` calls pure so unused schemas drop out.
export const FileBytes = Type.Unsafe({ type: 'string', format: 'binary' }) as TUnsafe<Blob>;
export type FileBytes = Static<typeof FileBytes>;
export const IdParams = Type.Object({ id: Id });
export type IdParams = Static<typeof IdParams>;
