import { AUTO_PLACEMENT, formatFileSize, TASK_MOUNTS_MAX, type AssetKind, type TaskMountInput } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useMemo } from 'react';
import { queryKeys } from '../../app/query-keys';
import { assetCalls, KIND_LABEL } from './api';

const keyOf = (m: Pick<TaskMountInput, 'assetId' | 'versionId'>) => `${m.assetId}/${m.versionId}`;

/**
 * The training form's 数据集 / 模型 field: ready versions of the user's own assets and of those shared with
 * them, on every center. One on another center than the task's is marked: the task then waits while the
 * platform syncs it there (跨中心同步, shown in the task panel). Its value is the task's mounts of this kind,
 * in the order picked (`SUANLI_DATASET_1`, `_2`…).
 */
export function MountPicker({
  kind,
  centerId,
  value = [],
  onChange,
}: {
  kind: AssetKind;
  centerId?: string;
  value?: TaskMountInput[];
  onChange?: (v: TaskMountInput[]) => void;
}) {
  const calls = useMemo(() => assetCalls(kind), [kind]);
  const versions = useQuery({ queryKey: queryKeys.asset.mountable(kind, ''), queryFn: () => calls.mountable() });
  const options = (versions.data ?? []).map((v) => {
    const elsewhere = centerId && centerId !== AUTO_PLACEMENT && v.subCenterId !== centerId;
    return {
      value: keyOf(v),
      label: `${v.assetName} v${v.version}${v.mine ? '' : `（${v.ownerName} 共享）`} · ${formatFileSize(v.sizeBytes)}${elsewhere ? ` · 位于${v.subCenterName}，提交后先同步` : ''}`,
    };
  });
  const env = `SUANLI_${kind.toUpperCase()}`;
  return (
    <Select
      mode="multiple"
      allowClear
      data-testid={`mount-${kind}`}
      loading={versions.isLoading}
      placeholder={`选择要只读挂载的${KIND_LABEL[kind]}版本（可选）`}
      notFoundContent={`没有可用的${KIND_LABEL[kind]}版本：先在“${KIND_LABEL[kind]}”中创建，或从公共资源大厅添加`}
      maxCount={TASK_MOUNTS_MAX}
      value={value.map(keyOf)}
      options={options}
      optionFilterProp="label"
      onChange={(keys: string[]) =>
        onChange?.(
          keys.map((k) => {
            const [assetId, versionId] = k.split('/');
            return { kind, assetId, versionId };
          }),
        )
      }
      title={`任务中按选择顺序以 ${env}_1、${env}_2… 给出路径`}
    />
  );
}
