import { CloudUploadOutlined } from '@ant-design/icons';
import { Badge, Button, Popover, Tabs } from 'antd';
import { useState } from 'react';
import { useActiveSyncs } from '../../features/sync/hooks';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { SyncPanel } from '../../features/sync/sync-panel';
import { selectRunningCount, UploadClearFinished, UploadPanel, useUploadStore } from '../../shared/upload';

export type TaskTab = 'upload' | 'sync';

/**
 * The header's task panel (loaded lazily by upload-slot.tsx, with the uploader and the sync list): two tabs,
 * 上传任务 (this browser's uploads) and 跨中心同步 (the caller's sync jobs, kept current by the socket). The
 * badge counts unfinished uploads plus unfinished sync jobs. The panel opens by itself on the matching tab
 * when the number of uploads changes or a new sync job appears.
 */
export function TaskPanelButton() {
  const screens = useBreakpoint();
  const uploadCount = useUploadStore((s) => s.count);
  const uploadsRunning = useUploadStore(selectRunningCount);
  const active = useActiveSyncs();
  const syncIds = (active.data?.list ?? []).map((j) => j.id).join(',');
  const syncsRunning = active.data?.total ?? 0;
  const [open, setOpen] = useState(false);
  const [tab, setTab] = useState<TaskTab>('upload');

  // Adjusting state while rendering (not in an effect) so the popover opens in the same commit.
  const [seenUploads, setSeenUploads] = useState(uploadCount);
  if (uploadCount !== seenUploads) {
    setSeenUploads(uploadCount);
    setOpen(true);
    setTab('upload');
  }
  // The first answer is what was there already; a job id not seen before is a new job (made on the storage
  // page, or in another tab).
  const [seenSyncs, setSeenSyncs] = useState<string | null>(null);
  if (active.data && syncIds !== seenSyncs) {
    setSeenSyncs(syncIds);
    const before = new Set(seenSyncs?.split(',') ?? []);
    if (seenSyncs !== null && syncIds.split(',').some((id) => id && !before.has(id))) {
      setOpen(true);
      setTab('sync');
    }
  }

  const content = (
    <Tabs
      size="small"
      activeKey={tab}
      onChange={(k) => setTab(k as TaskTab)}
      aria-label="任务类型"
      tabBarExtraContent={tab === 'upload' ? <UploadClearFinished /> : null}
      items={[
        { key: 'upload', label: <span data-testid="task-tab-upload">上传任务</span>, children: <UploadPanel /> },
        {
          key: 'sync',
          label: <span data-testid="task-tab-sync">跨中心同步{syncsRunning > 0 ? `（${syncsRunning}）` : ''}</span>,
          children: <SyncPanel />,
        },
      ]}
    />
  );
  return (
    // Right-aligned under its button on wide screens (the page's own buttons below stay free); centred on
    // phones, where only a centred popover can shift into the viewport's width instead of overflowing it.
    <Popover trigger="click" placement={screens.md ? 'bottomRight' : 'bottom'} open={open} onOpenChange={setOpen} content={content}>
      <Badge count={uploadsRunning + syncsRunning} size="small" offset={[-4, 4]}>
        <Button type="text" icon={<CloudUploadOutlined aria-hidden />} aria-label="任务面板" title="上传与同步任务" data-testid="upload-panel-button" />
      </Badge>
    </Popover>
  );
}
