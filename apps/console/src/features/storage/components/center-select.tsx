import type { SubCenter } from '@suanli/contracts';
import { Select } from 'antd';

const STATUS_TEXT: Record<SubCenter['status'], string | null> = { online: null, maintenance: '维护中', offline: '下线' };

/** Picks the sub-center whose storage is shown. */
export function CenterSelect({ centers, value, onChange, loading }: { centers: SubCenter[]; value?: string; onChange: (id: string) => void; loading?: boolean }) {
  return (
    <Select
      data-testid="storage-center-select"
      style={{ minWidth: 200 }}
      placeholder="选择算力分中心"
      allowClear={false}
      loading={loading}
      value={value}
      onChange={onChange}
      options={centers.map((c) => ({
        value: c.id,
        label: STATUS_TEXT[c.status] ? `${c.name}（${STATUS_TEXT[c.status]}）` : c.name,
        title: `${c.region} · ${c.description}`,
      }))}
    />
  );
}
