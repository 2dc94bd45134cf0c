import { CodeOutlined, FileTextOutlined } from '@ant-design/icons';
import type { SlurmTaskType, Task } from '@suanli/contracts';
import { Button, Select, Space, Tabs, Tag, Typography } from 'antd';
import { useNavigate, useSearchParams } from 'react-router';
import { useComparePick } from '../../shared/task/compare-pick';
import { ResubmitTask, useTaskActions } from '../../shared/task/task-actions';
import { TASK_COLUMNS, TaskTable, TaskToolbar, useTaskList } from '../../shared/task/task-list';
import { ListCard, useFilterWidth } from '../../shared/ui/paged-list';
import { PageContainer } from '../../shared/ui/page-container';
import { resourcesText } from '../slurm-template/template-view';
import { useTemplateChoices } from './hooks';
import { OutsideJobsTab } from './outside-jobs-tab';
import { comparePath, formPath, isSlurmType, SLURM, SLURM_TYPE_LABELS } from './task-view';

/**
 * 任务管理 (/slurm-task) on the task kit: the user's Slurm tasks, also filtered by origin, with the Slurm
 * columns (template or custom script, resources, the job id) and 重新提交; beside them (tab 外部作业, `?tab=outside`)
 * the jobs the user ran on a center without the console, metered all the same (issue 25).
 */
export function SlurmTaskListPage() {
  const navigate = useNavigate();
  const list = useTaskList(SLURM);
  const actions = useTaskActions(SLURM);
  const templates = useTemplateChoices();
  const filterWidth = useFilterWidth(150);
  const compare = useComparePick(SLURM, comparePath);
  const templateName = (row: Task) => templates.byId.get(row.templateId ?? '')?.name;
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'outside' ? 'outside' : 'console';

  return (
    <PageContainer
      title="任务管理"
      description="提交到分中心 Slurm 集群的科学计算作业：排队、运行与完成状态实时更新。"
      extra={
        <Space wrap>
          <Button type="primary" icon={<FileTextOutlined />} onClick={() => navigate(formPath('template'))} data-testid="slurm-create-template">
            从模板创建
          </Button>
          <Button icon={<CodeOutlined />} onClick={() => navigate(formPath('custom'))} data-testid="slurm-create-custom">
            自定义脚本
          </Button>
        </Space>
      }
    >
      <Tabs
        activeKey={tab}
        onChange={(k) => setParams(k === 'outside' ? { tab: 'outside' } : {}, { replace: true })}
        items={[
          {
            key: 'console',
            label: '控制台任务',
            children: (
              <ListCard>
                <TaskToolbar family={SLURM} list={list}>
                  <Select<SlurmTaskType>
                    placeholder="全部来源"
                    style={{ width: filterWidth }}
                    value={list.filters.type as SlurmTaskType | undefined}
                    options={(Object.keys(SLURM_TYPE_LABELS) as SlurmTaskType[]).map((t) => ({ value: t, label: SLURM_TYPE_LABELS[t] }))}
                    onChange={(v) => list.setFilter('type', isSlurmType(v) ? v : undefined)}
                    data-testid="slurm-type-filter"
                  />
                  {compare.button}
                </TaskToolbar>
                <TaskTable
                  list={list}
                  actions={actions}
                  columns={{
                    beforeState: [
                      {
                        title: '模板/自定义',
                        key: 'origin',
                        width: 180,
                        ellipsis: { showTitle: false },
                        render: (_v, row: Task) =>
                          row.type === 'template' ? (
                            <span title={templateName(row)} data-testid="slurm-origin" data-type="template">
                              <Tag color="blue">模板</Tag>
                              {templateName(row) ?? ''}
                            </span>
                          ) : (
                            <Tag data-testid="slurm-origin" data-type="custom">
                              自定义脚本
                            </Tag>
                          ),
                      },
                      TASK_COLUMNS.center,
                      { title: '资源', key: 'resources', width: 190, ellipsis: true, render: (_v, row: Task) => resourcesText(row) },
                    ],
                    afterState: [
                      {
                        title: '作业ID',
                        dataIndex: 'jobId',
                        key: 'jobId',
                        width: 110,
                        ellipsis: true,
                        render: (v: string | null) => <Typography.Text style={{ fontFamily: 'monospace' }}>{v ?? '—'}</Typography.Text>,
                      },
                      TASK_COLUMNS.createTime,
                    ],
                  }}
                  rowAction={(row) => <ResubmitTask task={row} actions={actions} place="row" />}
                  actionsWidth={240}
                  selection={compare.selection}
                  empty={{ none: '暂无科学计算任务', action: { label: '从模板创建', onClick: () => navigate(formPath('template')) } }}
                />
              </ListCard>
            ),
          },
          { key: 'outside', label: <span data-testid="slurm-outside-tab">外部作业</span>, children: <OutsideJobsTab /> },
        ]}
      />
    </PageContainer>
  );
}
