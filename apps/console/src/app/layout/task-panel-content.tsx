import { Tabs } from 'antd';
import { SyncPanel } from '../../features/sync/sync-panel';
import type { InterruptedUploads } from '../../shared/upload/interrupted-query';
import { UploadClearFinished, UploadPanel } from '../../shared/upload/upload-panel';

export type TaskTab = 'upload' | 'sync';

interface TaskPanelContentProps {
  tab: TaskTab;
  onTab: (tab: TaskTab) => void;
  syncsRunning: number;
  interrupted: InterruptedUploads;
}

/**
 * What the task panel shows once opened (task-panel.tsx loads it then): 上传任务 and 跨中心同步. Its own chunk:
 * the upload table, the progress bars and the sync list are not part of a signed-in page's first load.
 */
export function TaskPanelContent({ tab, onTab, syncsRunning, interrupted }: TaskPanelContentProps) {
  return (
    <Tabs
      size="small"
      activeKey={tab}
      onChange={(k) => onTab(k as TaskTab)}
      aria-label="任务类型"
      tabBarExtraContent={tab === 'upload' ? <UploadClearFinished /> : null}
      items={[
        { key: 'upload', label: <span data-testid="task-tab-upload">上传任务</span>, children: <UploadPanel interrupted={interrupted} /> },
        {
          key: 'sync',
          label: <span data-testid="task-tab-sync">跨中心同步{syncsRunning > 0 ? `（${syncsRunning}）` : ''}</span>,
          children: <SyncPanel />,
        },
      ]}
    />
  );
}
