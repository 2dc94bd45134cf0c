import { PlusOutlined } from '@ant-design/icons';
import type { SlurmTemplate, TemplatePageQuery } from '@suanli/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Descriptions, Popconfirm, Segmented, Select, Space, Tag, Typography, type TableColumnsType } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from '../../app/feedback';
import { queryKeys } from '../../app/query-keys';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { usePagedList } from '../../shared/hooks/use-paged-list';
import { formatTime } from '../../shared/time';
import { ListCard, ListToolbar, useFilterWidth } from '../../shared/ui/paged-list';
import { PagedTable } from '../../shared/ui/paged-table';
import { PageContainer } from '../../shared/ui/page-container';
import { templateFormPath } from '../slurm-task/task-view';
import { deleteTemplate, pageTemplates } from './api';
import { defaultsText, PARAM_TYPE_LABELS, SOURCE_LABELS, TEMPLATE_CATEGORIES } from './template-view';

type SourceFilter = 'all' | SlurmTemplate['source'];

/**
 * 任务模板 (/slurm-template): platform templates (read-only, from the platform's configuration) and the
 * user's own, paged on the server, searchable by name and filterable by category and source. 使用此模板
 * opens the task form with the template chosen.
 */
export function SlurmTemplateListPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const screens = useBreakpoint();
  const list = usePagedList<TemplatePageQuery, SlurmTemplate>({ key: queryKeys.slurmTemplate.list, fetch: pageTemplates });
  const { rows } = list;
  const source: SourceFilter = list.filters.source ?? 'all';

  // The category filter offers the usual areas plus every one the lists have shown.
  const [seen, setSeen] = useState<string[]>([]);
  useEffect(() => {
    const fresh = rows.map((r) => r.category).filter((c) => c && !TEMPLATE_CATEGORIES.includes(c));
    if (fresh.length) setSeen((s) => [...new Set([...s, ...fresh])]);
  }, [rows]);
  const categoryOptions = [...TEMPLATE_CATEGORIES, ...seen].map((c) => ({ value: c, label: c }));
  const categoryWidth = useFilterWidth(180);

  const remove = useMutation({
    mutationFn: (id: string) => deleteTemplate(id),
    onSuccess: (_d, id) => {
      toast.success('模板已删除');
      queryClient.removeQueries({ queryKey: queryKeys.slurmTemplate.detail(id) });
      return queryClient.invalidateQueries({ queryKey: queryKeys.slurmTemplate.root });
    },
  });

  const actionsColumn: TableColumnsType<SlurmTemplate>[number] = {
    title: '操作',
    key: 'actions',
    width: screens.sm ? 250 : 110,
    fixed: screens.md ? 'right' : undefined,
    render: (_v, row) => (
      <Space size={0} wrap>
        <Button type="link" size="small" onClick={() => navigate(templateFormPath(row.id))} data-testid="tpl-use">
          使用此模板
        </Button>
        {row.source === 'user' ? (
          <>
            <Button type="link" size="small" onClick={() => navigate(`/slurm-template/form/${encodeURIComponent(row.id)}`)} data-testid="tpl-edit">
              编辑
            </Button>
            <Popconfirm
              title={`确定删除模板「${row.name}」吗？`}
              description="删除后不可恢复，已提交的任务不受影响。"
              okText="删除"
              cancelText="取消"
              okButtonProps={{ danger: true }}
              onConfirm={() => remove.mutateAsync(row.id)}
            >
              <Button type="link" size="small" danger data-testid="tpl-delete">
                删除
              </Button>
            </Popconfirm>
          </>
        ) : (
          <Button type="link" size="small" onClick={() => navigate(`/slurm-template/form?from=${encodeURIComponent(row.id)}`)} data-testid="tpl-copy">
            复制为我的模板
          </Button>
        )}
      </Space>
    ),
  };

  const columns: TableColumnsType<SlurmTemplate> = [
    {
      title: '名称',
      dataIndex: 'name',
      key: 'name',
      width: screens.sm ? 260 : 150,
      render: (name: string, row) => (
        <div style={{ minWidth: 0 }}>
          <Space size={4} wrap>
            <Typography.Text strong style={{ overflowWrap: 'anywhere' }} data-testid="tpl-name">
              {name}
            </Typography.Text>
            <Tag color={row.source === 'platform' ? 'blue' : 'green'} data-testid="tpl-source" data-source={row.source} style={{ marginInlineEnd: 0 }}>
              {SOURCE_LABELS[row.source]}
            </Tag>
          </Space>
          {row.description && (
            <Typography.Paragraph type="secondary" ellipsis={{ rows: 2, tooltip: row.description }} style={{ margin: '4px 0 0', fontSize: 12 }}>
              {row.description}
            </Typography.Paragraph>
          )}
        </div>
      ),
    },
    // On a phone the actions come right after the name, inside the first screen width.
    ...(screens.sm ? [] : [actionsColumn]),
    { title: '应用类别', dataIndex: 'category', key: 'category', width: 120, render: (c: string) => (c ? <Tag data-testid="tpl-category">{c}</Tag> : '—') },
    { title: '参数', key: 'params', width: 80, render: (_v, row) => `${row.params.length} 个` },
    { title: '默认资源', key: 'defaults', width: 180, render: (_v, row) => defaultsText(row.defaults) },
    { title: '更新时间', dataIndex: 'updateTime', key: 'updateTime', width: 170, render: (v: number) => formatTime(v) },
    ...(screens.sm ? [actionsColumn] : []),
  ];

  return (
    <PageContainer
      title="任务模板"
      description="使用平台提供的科学计算模板或自己的模板，填写参数即可生成 Slurm 作业脚本并提交。"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/slurm-template/form')} data-testid="tpl-create">
          新建模板
        </Button>
      }
    >
      <ListCard>
        <div style={{ overflowX: 'auto', maxWidth: '100%' }}>
          <Segmented<SourceFilter>
            value={source}
            onChange={(v) => list.setFilter('source', v === 'all' ? undefined : v)}
            options={[
              { value: 'all', label: <span data-testid="tpl-source-all">全部模板</span> },
              { value: 'platform', label: <span data-testid="tpl-source-platform">平台模板</span> },
              { value: 'user', label: <span data-testid="tpl-source-user">我的模板</span> },
            ]}
            data-testid="tpl-source-filter"
          />
        </div>
        <ListToolbar list={list} search={{ placeholder: '按模板名称搜索', testId: 'tpl-search' }} refreshTestId="tpl-refresh">
          <Select<string>
            placeholder="全部应用类别"
            style={{ width: categoryWidth }}
            value={list.filters.category}
            options={categoryOptions}
            virtual={false}
            onChange={(v) => list.setFilter('category', v ?? undefined)}
            data-testid="tpl-category-filter"
          />
        </ListToolbar>
        <PagedTable<SlurmTemplate>
          list={list}
          columns={columns}
          scrollX={screens.sm ? 1060 : 720}
          pageSizeOptions={[10, 20, 50]}
          expandable={{ expandedRowRender: (row) => <TemplateSummary template={row} />, columnWidth: 40 }}
          rowData={(row) => ({ 'data-testid': 'tpl-row', 'data-id': row.id, 'data-source': row.source })}
          empty={{ filtered: '没有符合条件的模板', none: '暂无任务模板', action: { label: '新建模板', onClick: () => navigate('/slurm-template/form') } }}
        />
      </ListCard>
    </PageContainer>
  );
}

/** The expanded row: description and the parameters the task form will ask for. */
function TemplateSummary({ template }: { template: SlurmTemplate }) {
  return (
    <div data-testid="tpl-summary" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      {template.description && <Typography.Paragraph style={{ margin: 0, overflowWrap: 'anywhere' }}>{template.description}</Typography.Paragraph>}
      {template.params.length ? (
        <Descriptions
          size="small"
          bordered
          column={1}
          items={template.params.map((p) => ({
            key: p.name,
            label: p.label,
            children: (
              <span style={{ overflowWrap: 'anywhere' }}>
                {PARAM_TYPE_LABELS[p.type]}
                {p.required ? '，必填' : '，选填'}
                {p.default !== undefined && p.default !== '' ? `，默认 ${p.default}` : ''}
                {p.type === 'select' && p.options?.length ? `，可选 ${p.options.join(' / ')}` : ''}
                {p.description ? `。${p.description}` : ''}
              </span>
            ),
          }))}
        />
      ) : (
        <Typography.Text type="secondary">该模板没有参数。</Typography.Text>
      )}
    </div>
  );
}
