import { useQuery } from '@tanstack/react-query';
import { DatePicker, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import type { ReactNode } from 'react';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { useFilterWidth } from '../../shared/ui/paged-list';
import { fetchCenters } from '../order/api';
import { cardTypeOptions, rangeTimes, type RecordFilterValues } from './records';

interface RecordFiltersProps {
  value: RecordFilterValues;
  onChange: (patch: Partial<RecordFilterValues>) => void;
  /** `charge` / `consume`: the testids' prefix (`charge-center`, `charge-card-type`, `charge-range`). */
  kind: string;
  /** More filters and actions at the row's end (导出 CSV). */
  children?: ReactNode;
}

/**
 * The filters every record list of 费用中心 has: a range of days, the center and the card type (the card
 * types of the chosen center, or all). A row that wraps; each filter takes the whole row on phones.
 */
export function RecordFilters({ value, onChange, kind, children }: RecordFiltersProps) {
  const screens = useBreakpoint();
  const width = useFilterWidth(180);
  const centers = useQuery({ queryKey: queryKeys.billing.centers, queryFn: fetchCenters, staleTime: 60_000 });
  const types = cardTypeOptions(centers.data ?? [], value.subCenterId);
  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12 }}>
      <DatePicker.RangePicker
        placeholder={['开始日期', '结束日期']}
        style={{ width: screens.sm ? 260 : '100%' }}
        onChange={(range: [Dayjs | null, Dayjs | null] | null) => onChange(rangeTimes(range))}
        data-testid={`${kind}-range`}
      />
      <Select
        allowClear
        placeholder="全部分中心"
        style={{ width }}
        value={value.subCenterId}
        options={(centers.data ?? []).map((c) => ({ label: c.name, value: c.id }))}
        // A card type the new center does not have is dropped with it.
        onChange={(v?: string) => onChange({ subCenterId: v, ...(value.cardTypeId && !cardTypeOptions(centers.data ?? [], v).some((t) => t.value === value.cardTypeId) ? { cardTypeId: undefined } : {}) })}
        virtual={false}
        data-testid={`${kind}-center`}
      />
      <Select
        allowClear
        placeholder="全部卡型"
        style={{ width }}
        value={value.cardTypeId}
        options={types}
        onChange={(v?: string) => onChange({ cardTypeId: v })}
        virtual={false}
        data-testid={`${kind}-card-type`}
      />
      {children}
    </div>
  );
}
