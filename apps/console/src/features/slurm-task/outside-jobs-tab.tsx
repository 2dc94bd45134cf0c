import type { OutsideJob, OutsideJobPageQuery } from '@suanli/contracts';
import { Alert, Typography, type TableColumnsType } from 'antd';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { StateTag } from '../../shared/task/task-view';
import { formatTime } from '../../shared/time';
import { PagedTable } from '../../shared/ui/paged-table';
import { pageOutsideJobs } from './api';

const muted = { fontSize: 12, color: 'rgba(0,0,0,0.45)' } as const;
const mono = { fontFamily: 'monospace' } as const;

/**
 * 任务管理 › 外部作业 (issue 25): jobs the user ran on a center without the console — `sbatch`, `srun` or
 * `salloc` after an SSH login or in the web shell. Read-only: state, times, cards and what each drew, as the
 * center's accounting reports them; their draws are also in 消费记录 (外部作业).
 */
export function OutsideJobsTab() {
  const navigate = useNavigate();
  const list = usePagedList<OutsideJobPageQuery, OutsideJob>({ key: queryKeys.billing.outsideJobs, fetch: pageOutsideJobs });
  const columns: TableColumnsType<OutsideJob> = [
    {
      title: '作业名称',
      key: 'name',
      width: 200,
      ellipsis: { showTitle: false },
      render: (_v, r) => (
        <div style={{ minWidth: 0 }}>
          <Typography.Text ellipsis={{ tooltip: r.name }}>{r.name || '（未命名）'}</Typography.Text>
          <div style={muted}>
            作业ID <span style={mono}>{r.jobId}</span> · {r.account}
          </div>
        </div>
      ),
    },
    { title: '分中心 · 卡型', key: 'center', width: 200, render: (_v, r) => `${r.subCenterName} · ${r.cardTypeName}` },
    { title: '资源', key: 'cards', width: 130, render: (_v, r) => `${r.cardNum} 卡 × ${r.nodeNum} 节点` },
    { title: '状态', dataIndex: 'state', key: 'state', width: 120, render: (_v, r) => <StateTag state={r.state} reason={r.reason || undefined} testId="outside-state" /> },
    {
      title: '时间',
      key: 'time',
      width: 200,
      render: (_v, r) => (
        <div style={muted}>
          <div>提交 {formatTime(r.submitTime)}</div>
          <div>开始 {formatTime(r.startTime)}</div>
          <div>结束 {formatTime(r.endTime)}</div>
        </div>
      ),
    },
    { title: '已消耗卡时', dataIndex: 'consumed', key: 'consumed', width: 110 },
  ];
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
      <Alert
        type="info"
        showIcon
        title="在登录节点或网页终端中直接用 sbatch、srun、salloc 提交的作业，也按计费规则从您的算力中扣减，显示在这里（只读）。"
      />
      <PagedTable<OutsideJob>
        list={list}
        columns={columns}
        rowData={(r) => ({ 'data-testid': 'outside-row', 'data-id': r.id, 'data-state': r.state })}
        empty={{ filtered: '没有符合条件的外部作业', none: '暂无外部作业', action: { label: '查看消费记录', onClick: () => navigate('/expense') } }}
      />
    </div>
  );
}
