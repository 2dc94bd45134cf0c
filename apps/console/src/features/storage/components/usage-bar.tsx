import type { Usage } from '@suanli/contracts';
import { Flex, Progress, Tooltip, Typography } from 'antd';

/** Capacity figures: quotas are GB-sized, so this goes beyond formatFileSize's MB. */
export function formatCapacity(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${i === 0 ? value : value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${units[i]}`;
}

/** Used space against the quota on the selected center. */
export function UsageBar({ usage }: { usage: Usage }) {
  const percent = usage.quota > 0 ? Math.min(100, (usage.used / usage.quota) * 100) : 0;
  // Red when nearly full (uploads will soon answer 1309), amber as a heads-up.
  const status = percent >= 95 ? 'exception' : 'normal';
  const color = percent >= 80 && percent < 95 ? '#faad14' : undefined;
  return (
    <Tooltip title={`已使用 ${percent.toFixed(1)}%`}>
      <Flex vertical gap={0} style={{ minWidth: 220 }} data-testid="storage-usage">
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          存储空间：已用 {formatCapacity(usage.used)} / 共 {formatCapacity(usage.quota)}
        </Typography.Text>
        <Progress percent={Number(percent.toFixed(1))} showInfo={false} size="small" status={status} strokeColor={color} />
      </Flex>
    </Tooltip>
  );
}
