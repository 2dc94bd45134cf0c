import { CodeOutlined, FileTextOutlined, ReloadOutlined } from '@ant-design/icons';
import { isTerminal, type JobState, type SlurmTaskType, type Task, type TaskPageQuery } from '@suanli/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Input, Popconfirm, Select, Space, Table, Tag, Typography, type TableColumnsType } from 'antd';
import { useState, type HTMLAttributes } from 'react';
import { Link, useNavigate } from 'react-router';
import { useJobStates } from '../../app/dicts';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import { resourcesText } from '../slurm-template/template-view';
import { canStop, formatTime, StateTag } from '../training/task-view';
import { pageSlurmTasks } from './api';
import { useSlurmTaskActions, useTemplateChoices } from './hooks';
import { detailPath, formPath, isSlurmType, SLURM_TYPE_LABELS } from './task-view';

/**
 * 任务管理 (/slurm-task): the user's Slurm tasks, paged on the server, searchable by name, filtered by the
 * `job_states` dictionary and by origin. States change live: the list's key is under the `slurm-task` root
 * that the socket's `task.state.changed` (kind `slurm`) refreshes; nothing polls.
 */
export function SlurmTaskListPage() {
  const navigate = useNavigate();
  const screens = useBreakpoint();
  const states = useJobStates();
  const templates = useTemplateChoices();
  const { stop, resubmit, remove } = useSlurmTaskActions();
  const [page, setPage] = useState({ pageNum: 1, pageSize: 10 });
  const [keyword, setKeyword] = useState('');
  const [state, setState] = useState<JobState | undefined>();
  const [type, setType] = useState<SlurmTaskType | undefined>();

  const query: TaskPageQuery = { ...page, ...(type ? { type } : {}), ...(state ? { state } : {}), ...(keyword ? { keyword } : {}) };
  const list = useQuery({ queryKey: queryKeys.slurmTask.list(query), queryFn: () => pageSlurmTasks(query), placeholderData: keepPreviousData });
  const rows = list.data?.list ?? [];

  const stateColumn: TableColumnsType<Task>[number] = {
    title: '状态',
    dataIndex: 'state',
    key: 'state',
    width: 110,
    render: (s: JobState, row) => <StateTag state={s} reason={row.reason} testId="slurm-state" />,
  };
  const columns: TableColumnsType<Task> = [
    {
      title: '名称',
      dataIndex: 'name',
      key: 'name',
      width: screens.sm ? 200 : 150,
      ellipsis: { showTitle: false },
      render: (name: string, row) => (
        <Link to={detailPath(row)} title={name} data-testid="slurm-name">
          {name}
        </Link>
      ),
    },
    // On a phone the state comes right after the name, inside the first screen width.
    ...(screens.sm ? [] : [stateColumn]),
    {
      title: '模板/自定义',
      key: 'origin',
      width: 180,
      ellipsis: { showTitle: false },
      render: (_v, row) =>
        row.type === 'template' ? (
          <span title={templates.byId.get(row.templateId ?? '')?.name} data-testid="slurm-origin" data-type="template">
            <Tag color="blue">模板</Tag>
            {templates.byId.get(row.templateId ?? '')?.name ?? ''}
          </span>
        ) : (
          <Tag data-testid="slurm-origin" data-type="custom">
            自定义脚本
          </Tag>
        ),
    },
    { title: '分中心', dataIndex: 'subCenterName', key: 'subCenterName', width: 150, ellipsis: true },
    { title: '资源', key: 'resources', width: 190, ellipsis: true, render: (_v, row) => resourcesText(row) },
    ...(screens.sm ? [stateColumn] : []),
    {
      title: '作业ID',
      dataIndex: 'jobId',
      key: 'jobId',
      width: 110,
      ellipsis: true,
      render: (v: string | null) => <Typography.Text style={{ fontFamily: 'monospace' }}>{v ?? '—'}</Typography.Text>,
    },
    { title: '创建时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
    {
      title: '操作',
      key: 'actions',
      width: 240,
      render: (_v, row) => (
        <Space size={0} wrap>
          <Button type="link" size="small" onClick={() => navigate(detailPath(row))} data-testid="slurm-detail">
            详情
          </Button>
          {canStop(row.state) && (
            <Popconfirm title="确定停止该任务吗？" okText="停止" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => stop.mutateAsync(row.id)}>
              <Button type="link" size="small" danger data-testid="slurm-stop">
                停止
              </Button>
            </Popconfirm>
          )}
          <Popconfirm
            title="确定重新提交该任务吗？"
            description="将以相同的脚本与资源创建一个新任务。"
            okText="重新提交"
            cancelText="取消"
            onConfirm={() => resubmit.mutateAsync(row.id).then((t) => navigate(detailPath(t)))}
          >
            <Button type="link" size="small" data-testid="slurm-resubmit">
              重新提交
            </Button>
          </Popconfirm>
          {isTerminal(row.state) && (
            <Popconfirm title="确定删除该任务吗？删除后不可恢复。" okText="删除" cancelText="取消" okButtonProps={{ danger: true }} onConfirm={() => remove.mutateAsync(row.id)}>
              <Button type="link" size="small" danger data-testid="slurm-delete">
                删除
              </Button>
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];

  const resetPage = () => setPage((p) => ({ ...p, pageNum: 1 }));
  const filtered = Boolean(keyword || state || type);
  const createButtons = (
    <Space wrap>
      <Button type="primary" icon={<FileTextOutlined />} onClick={() => navigate(formPath('template'))} data-testid="slurm-create-template">
        从模板创建
      </Button>
      <Button icon={<CodeOutlined />} onClick={() => navigate(formPath('custom'))} data-testid="slurm-create-custom">
        自定义脚本
      </Button>
    </Space>
  );

  return (
    <PageContainer title="任务管理" description="提交到分中心 Slurm 集群的科学计算作业：排队、运行与完成状态实时更新。" extra={createButtons}>
      <Card styles={{ body: { display: 'flex', flexDirection: 'column', gap: 16, padding: screens.sm ? 24 : 12 } }}>
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12 }}>
          <Input.Search
            allowClear
            placeholder="按任务名称搜索"
            style={{ width: screens.sm ? 240 : '100%' }}
            maxLength={64}
            onSearch={(v) => {
              setKeyword(v.trim());
              resetPage();
            }}
            data-testid="slurm-search"
          />
          <Select<JobState>
            placeholder="全部状态"
            allowClear
            style={{ width: screens.sm ? 150 : '100%' }}
            value={state}
            options={states.options as { label: string; value: JobState }[]}
            onChange={(v) => {
              setState(v ?? undefined);
              resetPage();
            }}
            data-testid="slurm-state-filter"
          />
          <Select<SlurmTaskType>
            placeholder="全部来源"
            allowClear
            style={{ width: screens.sm ? 150 : '100%' }}
            value={type}
            options={(Object.keys(SLURM_TYPE_LABELS) as SlurmTaskType[]).map((t) => ({ value: t, label: SLURM_TYPE_LABELS[t] }))}
            onChange={(v) => {
              setType(isSlurmType(v) ? v : undefined);
              resetPage();
            }}
            data-testid="slurm-type-filter"
          />
          <Button icon={<ReloadOutlined />} onClick={() => list.refetch()} loading={list.isFetching} data-testid="slurm-refresh">
            刷新
          </Button>
        </div>
        <Table<Task>
          rowKey="id"
          columns={columns}
          dataSource={rows}
          loading={list.isLoading}
          tableLayout="fixed"
          scroll={{ x: 1350 }}
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
          onRow={(row) => ({ 'data-testid': 'slurm-row', 'data-id': row.id, 'data-state': row.state }) as HTMLAttributes<HTMLElement>}
          locale={{
            emptyText: (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={
                  filtered ? (
                    '没有符合条件的任务'
                  ) : (
                    <Space orientation="vertical" size={4}>
                      <Typography.Text type="secondary">暂无科学计算任务</Typography.Text>
                      <Button type="link" onClick={() => navigate(formPath('template'))}>
                        从模板创建
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
