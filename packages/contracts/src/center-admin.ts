import { Type, type Static } from '@sinclair/typebox';
import { ADMIN_BASE } from './admin';
import { Id, IdParams, Millis } from './common';
import { SubCenterStatus } from './foundation';
import { Money } from './order';
import { route, type SchemasOf } from './route';

/**
 * 运营管理 › 分中心 (issue 20): each center's status (正常 / 维护 / 下线) with the notice users read, and the
 * compute packages (算力卡) it sells with their prices. Stored in the database; the centers file is only the
 * value copied on the first start. Every change is an audited operator action.
 */
export const SUB_CENTER_STATUS_LABELS: Record<SubCenterStatus, string> = { online: '正常', maintenance: '维护', offline: '下线' };

export const CENTER_NOTICE_MAX = 200;
export const CENTER_PACKAGES_MAX = 50;
export const PACKAGE_CARD_HOURS_MAX = 100_000;

/** A package as operators edit it: 卡时 and validity as whole numbers, the price in 元 with two decimals. */
export const CenterPackage = Type.Object({
  id: Id,
  cardTypeId: Id,
  name: Type.String({ minLength: 1, maxLength: 64 }),
  cardHours: Type.Integer({ minimum: 1, maximum: PACKAGE_CARD_HOURS_MAX }),
  price: Money,
  validDays: Type.Integer({ minimum: 1, maximum: 3650 }),
});
export type CenterPackage = Static<typeof CenterPackage>;

/** A package in an edit: without `id` it is a new one (the server names it); with one, that package changed. */
export const CenterPackageInput = Type.Composite([Type.Omit(CenterPackage, ['id']), Type.Object({ id: Type.Optional(Id) })]);
export type CenterPackageInput = Static<typeof CenterPackageInput>;

export const AdminCenter = Type.Object({
  id: Id,
  name: Type.String(),
  region: Type.String(),
  status: SubCenterStatus,
  /** What users read while the center is not 正常 (and in the refusal of a submit or an order). */
  notice: Type.String(),
  /** The last change through 运营管理; null while the centers file's value stands. */
  updateTime: Type.Union([Millis, Type.Null()]),
  cardTypes: Type.Array(Type.Object({ id: Id, name: Type.String() })),
  packages: Type.Array(CenterPackage),
});
export type AdminCenter = Static<typeof AdminCenter>;
export const AdminCenterList = Type.Array(AdminCenter);
export type AdminCenterList = Static<typeof AdminCenterList>;

/** `POST /centers/{id}/status`: the notice is required for 维护 and 下线. */
export const CenterStatusBody = Type.Object({
  status: SubCenterStatus,
  notice: Type.String({ maxLength: CENTER_NOTICE_MAX }),
  reason: Type.Optional(Type.String({ maxLength: 200 })),
});
export type CenterStatusBody = Static<typeof CenterStatusBody>;

/** `POST /centers/{id}/packages`: the whole list the center sells from now on (one audited change). */
export const CenterPackagesBody = Type.Object({
  packages: Type.Array(CenterPackageInput, { maxItems: CENTER_PACKAGES_MAX }),
  reason: Type.Optional(Type.String({ maxLength: 200 })),
});
export type CenterPackagesBody = Static<typeof CenterPackagesBody>;

/** The live event `center.changed` (to everyone): a center's status changed. */
export const CenterChanged = Type.Object({ id: Id, status: SubCenterStatus, notice: Type.String() });
export type CenterChanged = Static<typeof CenterChanged>;

/** 运营管理 › 分中心: served by the center module. */
export const AdminCenterApi = {
  list: route<{ response: typeof AdminCenterList }>('GET', ADMIN_BASE, '/centers', { role: 'operator' }),
  setStatus: route<{ params: typeof IdParams; body: typeof CenterStatusBody; response: typeof AdminCenter }>('POST', ADMIN_BASE, '/centers/:id/status', { role: 'operator' }),
  setPackages: route<{ params: typeof IdParams; body: typeof CenterPackagesBody; response: typeof AdminCenter }>('POST', ADMIN_BASE, '/centers/:id/packages', {
    role: 'operator',
  }),
};

export const AdminCenterApiSchemas: SchemasOf<typeof AdminCenterApi> = {
  list: { summary: '分中心状态与在售算力卡（运营人员）', response: AdminCenterList },
  setStatus: { summary: '设置分中心状态：正常 / 维护 / 下线，附公告（运营人员）', params: IdParams, body: CenterStatusBody, response: AdminCenter },
  setPackages: { summary: '设置分中心在售算力卡与价格（运营人员）', params: IdParams, body: CenterPackagesBody, response: AdminCenter },
};
