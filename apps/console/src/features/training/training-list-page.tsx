import { PlusOutlined } from '@ant-design/icons';
import type { Task, TrainingType } from '@suanli/contracts';
import { Button } from 'antd';
import { useNavigate } from 'react-router';
import { useComparePick } from '../../shared/task/compare-pick';
import { useTaskActions } from '../../shared/task/task-actions';
import { TASK_COLUMNS, TaskTable, TaskToolbar, useTaskList } from '../../shared/task/task-list';
import { runningTime, useNow } from '../../shared/task/task-view';
import { ListCard } from '../../shared/ui/paged-list';
import { PageContainer } from '../../shared/ui/page-container';
import { TypeTabs } from './components/type-tabs';
import { cardsText, comparePath, copyPath, formPath, TRAINING, TYPE_INFO } from './task-view';

/**
 * One list page per training type (/training, /training/develop, /training/distributed) on the task kit,
 * with the training columns: cards and running time (ticking while a task on the page runs).
 */
export function TrainingList({ type }: { type: TrainingType }) {
  const navigate = useNavigate();
  const list = useTaskList(TRAINING, { type });
  const actions = useTaskActions(TRAINING);
  const now = useNow(list.rows.some((r) => r.startTime && !r.endTime), 1000);
  const info = TYPE_INFO[type];
  const create = () => navigate(formPath(type));
  const distributed = type === 'distributed';
  const compare = useComparePick(TRAINING, comparePath);

  return (
    <PageContainer
      title="训练任务"
      description={info.description}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={create} data-testid="training-create">
          新建任务
        </Button>
      }
    >
      <ListCard>
        <TypeTabs type={type} />
        <TaskToolbar family={TRAINING} list={list}>
          {compare.button}
        </TaskToolbar>
        <TaskTable
          list={list}
          actions={actions}
          columns={{
            beforeState: [
              TASK_COLUMNS.center,
              { title: distributed ? '卡型×卡数×节点' : '卡型×卡数', key: 'cards', width: distributed ? 220 : 180, render: (_v, row: Task) => cardsText(row) },
            ],
            afterState: [TASK_COLUMNS.createTime, { title: '运行时长', key: 'duration', width: 120, render: (_v, row: Task) => runningTime(row, now) }],
          }}
          rowAction={(row) => (
            <Button type="link" size="small" onClick={() => navigate(copyPath(row))} data-testid="training-copy">
              复制并重新提交
            </Button>
          )}
          actionsWidth={260}
          selection={compare.selection}
          empty={{ none: `暂无${info.label}任务`, action: { label: '立即新建', onClick: create } }}
        />
      </ListCard>
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
