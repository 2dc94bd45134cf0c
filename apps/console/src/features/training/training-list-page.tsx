import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { isTerminal, type JobState, type Task, type TaskPageQuery, type TrainingType } from '@suanli/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Input, Popconfirm, Select, Space, Table, Typography, type TableColumnsType } from 'antd';
import { useState, type HTMLAttributes } from 'react';
import { Link, useNavigate } from 'react-router';
import { useJobStates } from '../../app/dicts';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import { pageTasks } from './api';
import { TypeTabs } from './components/type-tabs';
import { useTaskActions } from './hooks';
import { canStop, cardsText, formatTime, runningTime, StateTag, TYPE_INFO, useNow } from './task-view';

const detailPath = (t: Pick<Task, 'type' | 'id'>) => `/training/detail/${t.type}/${encodeURIComponent(t.id)}`;
const copyPath = (t: Pick<Task, 'type' | 'id'>) => `/training/task/${t.type}?from=${encodeURIComponent(t.id)}`;

/**
 * One list page per training type (/training, /training/develop, /training/distributed): server-side
 * paging, name search and the state filter from the `job_states` dictionary. States change live through
 * the socket (the list's key is under the `training` root).
 */
export function TrainingList({ type }: { type: TrainingType }) {
  const navigate = useNavigate();
  const screens = useBreakpoint();
  const states = useJobStates();
  const { stop, remove } = useTaskActions();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 10 });
  const [keyword, setKeyword] = useState('');
  const [state, setState] = useState<JobState | undefined>();

  const query: TaskPageQuery = { ...page, type, ...(state ? { state } : {}), ...(keyword ? { keyword } : {}) };
  const list = useQuery({ queryKey: queryKeys.training.list(query), queryFn: () => pageTasks(query), placeholderData: keepPreviousData });
  const rows = list.data?.list ?? [];
  const now = useNow(rows.some((r) => r.startTime && !r.endTime), 1000);
  const info = TYPE_INFO[type];

  const stateColumn: TableColumnsType<Task>[number] = {
    title: '状态',
    dataIndex: 'state',
    key: 'state',
    width: 110,
    render: (s: JobState, row) => <StateTag state={s} reason={row.reason} />,
  };
  const columns: TableColumnsType<Task> = [
    {
      title: '名称',
      dataIndex: 'name',
      key: 'name',
      width: screens.sm ? 200 : 170,
      ellipsis: { showTitle: false },
      render: (name: string, row) => (
        <Link to={detailPath(row)} title={name} data-testid="training-name">
          {name}
        </Link>
      ),
    },
    ...(screens.sm ? [] : [stateColumn]),
    { title: '分中心', dataIndex: 'subCenterName', key: 'subCenterName', width: 150, ellipsis: true },
    {
      title: type === 'distributed' ? '卡型×卡数×节点' : '卡型×卡数',
      key: 'cards',
      width: type === 'distributed' ? 220 : 180,
      render: (_v, row) => cardsText(row),
    },
    // On a phone the state comes right after the name, inside the first screen width.
    ...(screens.sm ? [stateColumn] : []),
    { title: '创建时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
    { title: '运行时长', key: 'duration', width: 120, render: (_v, row) => runningTime(row, now) },
    {
      title: '操作',
      key: 'actions',
      width: 260,
      render: (_v, row) => (
        <Space size={0} wrap>
          <Button type="link" size="small" onClick={() => navigate(detailPath(row))} data-testid="training-detail">
            详情
          </Button>
          {canStop(row.state) && (
            <Popconfirm title="确定停止该任务吗？" okText="停止" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => stop.mutateAsync(row.id)}>
              <Button type="link" size="small" danger data-testid="training-stop">
                停止
              </Button>
            </Popconfirm>
          )}
          <Button type="link" size="small" onClick={() => navigate(copyPath(row))} data-testid="training-copy">
            复制并重新提交
          </Button>
          {isTerminal(row.state) && (
            <Popconfirm title="确定删除该任务吗？删除后不可恢复。" okText="删除" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => remove.mutateAsync(row.id)}>
              <Button type="link" size="small" danger data-testid="training-delete">
                删除
              </Button>
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];

  const resetPage = () => setPage((p) => ({ ...p, pageNum: 1 }));
  const filtered = Boolean(keyword || state);

  return (
    <PageContainer
      title="训练任务"
      description={info.description}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`/training/task/${type}`)} data-testid="training-create">
          新建任务
        </Button>
      }
    >
      <Card styles={{ body: { display: 'flex', flexDirection: 'column', gap: 16, padding: screens.sm ? 24 : 12 } }}>
        <TypeTabs type={type} />
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12 }}>
          <Input.Search
            allowClear
            placeholder="按任务名称搜索"
            style={{ width: screens.sm ? 260 : '100%' }}
            maxLength={64}
            onSearch={(v) => {
              setKeyword(v.trim());
              resetPage();
            }}
            data-testid="training-search"
          />
          <Select<JobState>
            placeholder="全部状态"
            style={{ width: screens.sm ? 160 : '100%' }}
            value={state}
            options={states.options as { label: string; value: JobState }[]}
            onChange={(v) => {
              setState(v ?? undefined);
              resetPage();
            }}
            data-testid="training-state-filter"
          />
          <Button icon={<ReloadOutlined />} onClick={() => list.refetch()} loading={list.isFetching} data-testid="training-refresh">
            刷新
          </Button>
        </div>
        <Table<Task>
          rowKey="id"
          columns={columns}
          dataSource={rows}
          loading={list.isLoading}
          tableLayout="fixed"
          scroll={{ x: 1190 }}
          size={screens.md ? 'middle' : 'small'}
          pagination={{
            current: page.pageNum,
            pageSize: page.pageSize,
            total: list.data?.total ?? 0,
            showSizeChanger: screens.md,
            simple: !screens.sm,
            pageSizeOptions: [10, 20, 50, 100],
            showTotal: (total) => `共 ${total} 条`,
            onChange: (pageNum, pageSize) => setPage({ pageNum: pageSize === page.pageSize ? pageNum : 1, pageSize }),
          }}
          onRow={(row) => ({ 'data-testid': 'training-row', 'data-id': row.id, 'data-state': row.state }) as HTMLAttributes<HTMLElement>}
          locale={{
            emptyText: (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={
                  filtered ? (
                    '没有符合条件的任务'
                  ) : (
                    <Space orientation="vertical" size={4}>
                      <Typography.Text type="secondary">暂无{info.label}任务</Typography.Text>
                      <Button type="link" onClick={() => navigate(`/training/task/${type}`)}>
                        立即新建
                      </Button>
                    </Space>
                  )
                }
              />
            ),
          }}
        />
      </Card>
    </PageContainer>
  );
}

export function TrainingListPage() {
  return <TrainingList type="train" />;
}
export function TrainingDevelopPage() {
  return <TrainingList type="develop" />;
}
export function TrainingDistributedPage() {
  return <TrainingList type="distributed" />;
}
