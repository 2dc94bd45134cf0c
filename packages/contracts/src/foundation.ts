import { Type, type Static } from '@sinclair/typebox';
import { Id, IdParams } from './common';
import { DictEntry, DictParams } from './dicts';
import { route, type SchemasOf } from './route';

export const FOUNDATION_BASE = '/gateway/foundation/api/v1';

export const CardType = Type.Object({
  id: Id,
  name: Type.String(),
  vendor: Type.String(),
  memoryGB: Type.Number(),
  total: Type.Integer(),
  available: Type.Integer(),
});
export type CardType = Static<typeof CardType>;

export const SubCenterStatus = Type.Union([Type.Literal('online'), Type.Literal('maintenance'), Type.Literal('offline')]);
export type SubCenterStatus = Static<typeof SubCenterStatus>;

export const SubCenter = Type.Object({
  id: Id,
  name: Type.String(),
  region: Type.String(),
  description: Type.String(),
  status: SubCenterStatus,
  /** What operators tell users while the center is in 维护 or 下线 (运营管理 › 分中心); empty otherwise. */
  notice: Type.Optional(Type.String()),
  fileServiceUrl: Type.String(),
  cardTypes: Type.Array(CardType),
});
export type SubCenter = Static<typeof SubCenter>;

export const Partition = Type.Object({
  name: Type.String(),
  cardTypeId: Type.Union([Id, Type.Null()]),
  nodes: Type.Integer(),
  cardsPerNode: Type.Integer(),
  cpusPerCard: Type.Integer(),
  memoryGBPerCard: Type.Number(),
});
export type Partition = Static<typeof Partition>;

export const SubCenterDetail = Type.Composite([
  SubCenter,
  Type.Object({
    partitions: Type.Array(Partition),
    loginHost: Type.String(),
    schedulerKind: Type.Union([Type.Literal('local'), Type.Literal('slurm')]),
    /** Share of cards in use, 0..1. */
    utilization: Type.Number(),
  }),
]);
export type SubCenterDetail = Static<typeof SubCenterDetail>;

export const SubCenterList = Type.Array(SubCenter);
export type SubCenterList = Static<typeof SubCenterList>;
export const DictEntryList = Type.Array(DictEntry);
export type DictEntryList = Static<typeof DictEntryList>;

/** Public data of the platform, but still only for signed-in users. */
export const FoundationApi = {
  centers: route<{ response: typeof SubCenterList }>('GET', FOUNDATION_BASE, '/sub-centers/action/list'),
  center: route<{ params: typeof IdParams; response: typeof SubCenterDetail }>('GET', FOUNDATION_BASE, '/sub-centers/:id/detail'),
  dict: route<{ params: typeof DictParams; response: typeof DictEntryList }>('GET', FOUNDATION_BASE, '/dicts/action/query/dict/:dictName'),
};

export const FoundationApiSchemas: SchemasOf<typeof FoundationApi> = {
  centers: { summary: '算力分中心列表', response: SubCenterList },
  center: { summary: '算力分中心详情', params: IdParams, response: SubCenterDetail },
  dict: { summary: '字典查询', params: DictParams, response: DictEntryList },
};
