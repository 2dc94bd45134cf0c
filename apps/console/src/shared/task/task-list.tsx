import type { JobState, Task, TaskPageQuery } from '@suanli/contracts';
import { Button, Select, Space } from 'antd';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useJobStates } from '../../app/dicts';
import { useBreakpoint } from '../hooks/use-breakpoint';
import { usePagedList, type PagedList } from '../hooks/use-paged-list';
import { LightPagedTable, type LightColumn, type LightSelection } from '../ui/light-table';
import { ListToolbar, useFilterWidth } from '../ui/paged-list';
import { formatTime } from '../time';
import { DeleteTask, StopTask, type TaskActions } from './task-actions';
import type { TaskFamily } from './task-family';
import { StateTag } from './task-view';

type TaskList = PagedList<TaskPageQuery, Task>;

/**
 * A family's tasks, newest first, paged and filtered on the server. Nothing polls: the list's key is under
 * the family's root, which the socket's `task.state.changed` refreshes.
 */
export function useTaskList(family: TaskFamily, fixed?: Pick<TaskPageQuery, 'type'>): TaskList {
  return usePagedList<TaskPageQuery, Task>({ key: family.keys.list, fetch: family.calls.page, fixed });
}

/** The name search, the state filter (the `job_states` dictionary), the family's own filters and 刷新. */
export function TaskToolbar({ family, list, children }: { family: TaskFamily; list: TaskList; children?: ReactNode }) {
  const states = useJobStates();
  const width = useFilterWidth(160);
  return (
    <ListToolbar list={list} search={{ placeholder: '按任务名称搜索', testId: `${family.testId}-search` }} refreshTestId={`${family.testId}-refresh`}>
      <Select<JobState>
        placeholder="全部状态"
        style={{ width }}
        value={list.filters.state}
        options={states.options as { label: string; value: JobState }[]}
        onChange={(v) => list.setFilter('state', v ?? undefined)}
        data-testid={`${family.testId}-state-filter`}
      />
      {children}
    </ListToolbar>
  );
}

/** Columns that read the same in every family's list. */
export const TASK_COLUMNS = {
  center: { title: '分中心', dataIndex: 'subCenterName', key: 'subCenterName', width: 150, ellipsis: true },
  createTime: { title: '创建时间', dataIndex: 'createTime', key: 'createTime', width: 170, render: (v: number) => formatTime(v) },
} satisfies Record<string, LightColumn<Task>>;

interface TaskTableProps {
  list: TaskList;
  actions: TaskActions;
  /** The family's own columns, around the state: on phones the state comes right after the name instead. */
  columns: { beforeState: LightColumn<Task>[]; afterState: LightColumn<Task>[] };
  /** The family's own row action, between 停止 and 删除 (复制并重新提交, 重新提交), and the width they all need. */
  rowAction: (row: Task) => ReactNode;
  actionsWidth: number;
  /** What an empty list says before any filter, and its way to create the first task. */
  empty: { none: string; action: { label: string; onClick: () => void } };
  /** Check boxes on the rows (任务对比 picks runs with them). */
  selection?: LightSelection<Task>;
}

/**
 * A family's task table: the name (→ detail), its own columns around the state tag, and 详情 · 停止 · its
 * own action · 删除. Rows carry `<family>-row` with `data-id` and `data-state`.
 */
export function TaskTable({ list, actions, columns, rowAction, actionsWidth, empty, selection }: TaskTableProps) {
  const navigate = useNavigate();
  const screens = useBreakpoint();
  const { family } = actions;
  const prefix = family.testId;
  const name: LightColumn<Task> = {
    title: '名称',
    dataIndex: 'name',
    key: 'name',
    width: screens.sm ? 200 : 170,
    ellipsis: { showTitle: false },
    render: (text: string, row) => (
      <Link to={family.detailPath(row)} title={text} data-testid={`${prefix}-name`}>
        {text}
      </Link>
    ),
  };
  const state: LightColumn<Task> = {
    title: '状态',
    dataIndex: 'state',
    key: 'state',
    width: 110,
    render: (s: JobState, row) => <StateTag state={s} reason={row.reason} testId={`${prefix}-state`} />,
  };
  const actionsColumn: LightColumn<Task> = {
    title: '操作',
    key: 'actions',
    width: actionsWidth,
    render: (_v, row) => (
      <Space size={0} wrap>
        <Button type="link" size="small" onClick={() => navigate(family.detailPath(row))} data-testid={`${prefix}-detail`}>
          详情
        </Button>
        <StopTask task={row} actions={actions} place="row" />
        {rowAction(row)}
        <DeleteTask task={row} actions={actions} place="row" />
      </Space>
    ),
  };
  // On a phone the state comes right after the name, inside the first screen width.
  const stateOnPhone = screens.sm ? [] : [state];
  const stateOnWide = screens.sm ? [state] : [];
  // Plain markup rather than antd's Table: this list is the page most users see right after signing in.
  return (
    <LightPagedTable<Task>
      list={list}
      columns={[name, ...stateOnPhone, ...columns.beforeState, ...stateOnWide, ...columns.afterState, actionsColumn]}
      rowData={(row) => ({ 'data-testid': `${prefix}-row`, 'data-id': row.id, 'data-state': row.state })}
      empty={{ filtered: '没有符合条件的任务', ...empty }}
      selection={selection}
    />
  );
}
