import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis } from './common';

export const ORDER_BASE = '/gateway/order/api/v1';

/** Compute power is a decimal string of 卡时 with two decimals. */
export const CardHours = Type.String({ pattern: '^\\d+\\.\\d{2}$' });

export const CompPowerBucket = Type.Object({
  id: Id,
  subCenterId: Id,
  subCenterName: Type.String(),
  cardTypeId: Id,
  cardTypeName: Type.String(),
  granted: CardHours,
  remaining: CardHours,
  expireTime: Millis,
  source: Type.Union([Type.Literal('order'), Type.Literal('grant')]),
});
export type CompPowerBucket = Static<typeof CompPowerBucket>;
export type CompPowerSource = CompPowerBucket['source'];
export const CompPowers = Type.Object({ userId: Id, total: CardHours, items: Type.Array(CompPowerBucket) });
export type CompPowers = Static<typeof CompPowers>;
export const CompPowersParams = Type.Object({ userId: Id });
export type CompPowersParams = Static<typeof CompPowersParams>;

/** Card-seconds (integer storage) → 卡时 string with two decimals, rounded down. */
export function formatCardHours(cardSeconds: number): string {
  const hundredths = Math.floor((cardSeconds * 100) / 3600);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}
