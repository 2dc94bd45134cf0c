import { DiffOutlined } from '@ant-design/icons';
import { TASK_COMPARE_MAX, type Task } from '@suanli/contracts';
import { Button, Tooltip } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { LightSelection } from '../ui/light-table';
import type { TaskFamily } from './task-family';

/**
 * 任务对比's pick in a family's list (issue 23 item 4): check boxes on the rows — at most TASK_COMPARE_MAX,
 * and once one is checked only rows of its type (the server answers 2015 otherwise) — kept across pages, and
 * the toolbar's 对比（n）, enabled from two, opening `comparePath(ids)` in the order picked.
 */
export function useComparePick(family: Pick<TaskFamily, 'testId'>, comparePath: (ids: string[]) => string) {
  const navigate = useNavigate();
  const [picked, setPicked] = useState<Pick<Task, 'id' | 'type'>[]>([]);
  const full = picked.length >= TASK_COMPARE_MAX;
  const type = picked[0]?.type;
  const blocked = (row: Task) => !picked.some((p) => p.id === row.id) && (full || (type !== undefined && row.type !== type));

  const selection: LightSelection<Task> = {
    selected: picked.map((p) => p.id),
    onToggle: (row, checked) => setPicked((now) => (checked ? [...now.filter((p) => p.id !== row.id), { id: row.id, type: row.type }] : now.filter((p) => p.id !== row.id))),
    blocked: (row) => (blocked(row) ? (full ? `最多对比 ${TASK_COMPARE_MAX} 个任务` : '只能对比同一类型的任务') : undefined),
    title: '选择以对比',
  };
  const button = (
    <Tooltip title={picked.length < 2 ? `勾选 2–${TASK_COMPARE_MAX} 个同类型的任务进行对比` : undefined}>
      <Button icon={<DiffOutlined />} disabled={picked.length < 2} onClick={() => navigate(comparePath(picked.map((p) => p.id)))} data-testid={`${family.testId}-compare`}>
        对比{picked.length ? `（${picked.length}）` : ''}
      </Button>
    </Tooltip>
  );
  return { selection, button };
}
