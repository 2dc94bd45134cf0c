import type { ChargeRecord, SubCenter } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { dayjs } from '../../shared/dayjs';
import { cardTypeOptions, chargeCsv, CHARGE_CSV_HEADER, csvFileName, fillDays, rangeTimes } from './records';

const center = (id: string, types: [string, string][]): SubCenter => ({
  id,
  name: id,
  region: '',
  description: '',
  status: 'online',
  fileServiceUrl: '',
  cardTypes: types.map(([tid, name]) => ({ id: tid, name, vendor: '', memoryGB: 0, total: 1, available: 1 })),
});

describe('费用中心 filters', () => {
  const centers = [center('sz', [['a100', 'A100'], ['cpu', 'CPU 通用型']]), center('gz', [['910b', '昇腾 910B'], ['cpu', 'CPU（广州）']])];

  it('card types: the chosen center\'s, or every center\'s once by id', () => {
    expect(cardTypeOptions(centers, 'gz')).toEqual([
      { value: '910b', label: '昇腾 910B' },
      { value: 'cpu', label: 'CPU（广州）' },
    ]);
    expect(cardTypeOptions(centers, undefined).map((o) => o.value)).toEqual(['a100', 'cpu', '910b']);
    expect(cardTypeOptions(centers, 'nowhere')).toEqual([]);
  });

  it('a range of days is sent from the first day\'s start to the start of the day after the last', () => {
    const from = dayjs('2026-03-01 15:20');
    const to = dayjs('2026-03-03 08:00');
    expect(rangeTimes([from, to])).toEqual({ startTime: dayjs('2026-03-01 00:00').valueOf(), endTime: dayjs('2026-03-04 00:00').valueOf() });
    expect(rangeTimes(null)).toEqual({ startTime: undefined, endTime: undefined });
  });
});

describe('daily chart', () => {
  const d = (day: string, amount: string) => ({ day, count: 1, cardHours: '10.00', amount });

  it('puts every day between the first and the last on the axis, those without purchases at zero', () => {
    expect(fillDays([d('2026-02-27', '1.00'), d('2026-03-02', '2.00')]).map((x) => [x.day, x.amount, x.count])).toEqual([
      ['2026-02-27', '1.00', 1],
      ['2026-02-28', '0.00', 0],
      ['2026-03-01', '0.00', 0],
      ['2026-03-02', '2.00', 1],
    ]);
  });

  it('spans the chosen range when there is one, and shows nothing to fill for no records and no range', () => {
    expect(fillDays([d('2026-03-02', '2.00')], '2026-03-01', '2026-03-03').map((x) => x.day)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
    expect(fillDays([], '2026-03-01', '2026-03-02')).toHaveLength(2);
    expect(fillDays([])).toEqual([]);
  });

  it('leaves a span of more than 400 days as it is (only days with purchases)', () => {
    const days = [d('2024-01-01', '1.00'), d('2026-01-01', '1.00')];
    expect(fillDays(days)).toBe(days);
  });
});

describe('充值记录 CSV', () => {
  const r: ChargeRecord = {
    id: 'c1',
    orderId: 'o1',
    orderNo: 'DD202603010001',
    amount: '128.00',
    cardHours: '10.00',
    compPowerId: 'b1',
    subCenterId: 'sz',
    subCenterName: '深圳算力分中心',
    cardTypeId: 'a100',
    cardTypeName: 'NVIDIA A100 80G',
    payChannel: 'offline',
    createTime: dayjs('2026-03-01 23:59:00').valueOf(),
  };

  it('one row per record with Chinese headers, as the table shows it', () => {
    const lines = chargeCsv([r, { ...r, id: 'c2', payChannel: 'alipay' }]).slice(1).split('\r\n');
    expect(lines[0]).toBe(CHARGE_CSV_HEADER.join(','));
    expect(lines[1]).toBe('2026-03-01 23:59:00,DD202603010001,深圳算力分中心,NVIDIA A100 80G,10.00,128.00,线下转账,c1');
    expect(lines[2]).toContain(',支付宝,c2');
    expect(lines).toHaveLength(4);
  });

  it('names the file by kind and time', () => {
    expect(csvFileName('充值记录', dayjs('2026-03-01 15:30'))).toBe('充值记录-20260301-1530.csv');
  });
});
