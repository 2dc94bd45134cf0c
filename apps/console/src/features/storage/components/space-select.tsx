import { teamSpace, type Team } from '@suanli/contracts';
import { Select } from 'antd';

/** The home is the empty value (antd's Select keeps '' as a real option). */
const HOME = '';

/**
 * 我的空间 / 团队「T」空间: which root of the center 文件管理 shows — the user's home or the folder of one of
 * their teams (ADR 0018), which every member reads and writes.
 */
export function SpaceSelect({
  teams,
  loaded,
  value,
  onChange,
}: {
  teams: Pick<Team, 'id' | 'name'>[];
  /** The teams were read (until then an unknown space is not called a left team). */
  loaded: boolean;
  value?: string;
  onChange: (space: string | undefined) => void;
}) {
  const known = teams.some((t) => teamSpace(t.id) === value);
  return (
    <Select
      data-testid="storage-space-select"
      style={{ minWidth: 180, maxWidth: 280 }}
      value={value ?? HOME}
      onChange={(v: string) => onChange(v === HOME ? undefined : v)}
      options={[
        { value: HOME, label: '我的空间' },
        ...teams.map((t) => ({ value: teamSpace(t.id), label: `团队「${t.name}」空间` })),
        // A team the user has left (an old link): named as such; the listing says why it cannot be read.
        ...(value && !known ? [{ value, label: loaded ? '团队空间（您已不是该团队成员）' : '团队空间' }] : []),
      ]}
    />
  );
}
