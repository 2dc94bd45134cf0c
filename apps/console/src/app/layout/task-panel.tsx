import { CloudUploadOutlined } from '@ant-design/icons';
import { FoundationApi, UPLOAD_PANEL_WIDTH } from '@suanli/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Popover } from 'antd';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useActiveSyncs, useSyncsCreatedHere } from '../../features/sync/hooks';
import { getClusterAccounts } from '../../features/user-center/api';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { useInterruptedUploads, type UploadCenter } from '../../shared/upload/interrupted-query';
import { selectRunningCount, useUploadStore } from '../../shared/upload/store';
import { queryKeys } from '../query-keys';
import { call } from '../request';
import type { TaskTab } from './task-panel-content';

export type { TaskTab } from './task-panel-content';

// The panel's tabs, upload table and sync list load when it first opens (or when the pointer or focus comes to
// its button, so that a click rarely waits): the button and its badge are on every signed-in page's first load.
const loadContent = () => import('./task-panel-content');
const TaskPanelContent = lazy(() => loadContent().then((m) => ({ default: m.TaskPanelContent })));

/**
 * The centers whose file services may hold an interrupted upload of the caller: those where the caller has an
 * active cluster account. Asking any other center's file service would create an account there.
 */
function useUploadCenters(): UploadCenter[] {
  const accounts = useQuery({ queryKey: queryKeys.clusterAccounts, queryFn: getClusterAccounts });
  const centers = useQuery({ queryKey: queryKeys.storage.centers, queryFn: () => call(FoundationApi.centers), staleTime: 5 * 60_000 });
  return useMemo(() => {
    const active = new Set((Array.isArray(accounts.data) ? accounts.data : []).filter((a) => a.status === 'active').map((a) => a.subCenterId));
    return (Array.isArray(centers.data) ? centers.data : []).filter((c) => active.has(c.id));
  }, [accounts.data, centers.data]);
}

/**
 * The header's task panel (loaded lazily by upload-slot.tsx, with the uploader and the sync list): two tabs,
 * 上传任务 (this browser's uploads, and above them the interrupted uploads the file services still hold, with
 * 继续 / 放弃) and 跨中心同步 (the caller's sync jobs, kept current by the socket). The badge counts unfinished
 * uploads plus unfinished sync jobs, and shows a dot when only interrupted uploads wait. The panel opens by
 * itself on the matching tab when the number of uploads changes or a new sync job appears.
 */
export function TaskPanelButton() {
  const screens = useBreakpoint();
  const uploadCount = useUploadStore((s) => s.count);
  const uploadsRunning = useUploadStore(selectRunningCount);
  const active = useActiveSyncs();
  const syncIds = (active.data?.list ?? []).map((j) => j.id).join(',');
  const syncsRunning = active.data?.total ?? 0;
  const uploadCenters = useUploadCenters();
  const interrupted = useInterruptedUploads(uploadCenters);
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [tab, setTab] = useState<TaskTab>('upload');
  const onOpenChange = (next: boolean) => {
    // Opening by hand asks the file services again: another tab may have resumed or discarded an upload.
    if (next && !open) for (const c of uploadCenters) void queryClient.invalidateQueries({ queryKey: queryKeys.storage.staged(c.id) });
    setOpen(next);
  };

  // Adjusting state while rendering (not in an effect) so the popover opens in the same commit.
  const [seenUploads, setSeenUploads] = useState(uploadCount);
  if (uploadCount !== seenUploads) {
    setSeenUploads(uploadCount);
    setOpen(true);
    setTab('upload');
  }
  // A job made on this page's storage view opens the sync tab at once, whatever the active list has answered.
  const createdHere = useSyncsCreatedHere((s) => s.count);
  const [seenCreated, setSeenCreated] = useState(createdHere);
  if (createdHere !== seenCreated) {
    setSeenCreated(createdHere);
    setOpen(true);
    setTab('sync');
  }
  // The active list's first answer is what was there already; a job id not seen before is a new job (made in
  // another tab, or by the platform for a task's dataset).
  const [seenSyncs, setSeenSyncs] = useState<string | null>(null);
  if (active.data && syncIds !== seenSyncs) {
    setSeenSyncs(syncIds);
    const before = new Set(seenSyncs?.split(',') ?? []);
    if (seenSyncs !== null && syncIds.split(',').some((id) => id && !before.has(id))) {
      setOpen(true);
      setTab('sync');
    }
  }

  const onlyInterrupted = uploadsRunning + syncsRunning === 0 && interrupted.items.length > 0;
  const content = (
    // The panel's width while it loads, so the popover does not move when the content arrives.
    <Suspense fallback={<div role="status" aria-label="加载中" style={{ width: UPLOAD_PANEL_WIDTH, maxWidth: '100%', minHeight: 120 }} />}>
      <TaskPanelContent tab={tab} onTab={setTab} syncsRunning={syncsRunning} interrupted={interrupted} />
    </Suspense>
  );
  return (
    // Right-aligned under its button on wide screens (the page's own buttons below stay free); centred on
    // phones, where only a centred popover can shift into the viewport's width instead of overflowing it.
    <Popover trigger="click" placement={screens.md ? 'bottomRight' : 'bottom'} open={open} onOpenChange={onOpenChange} content={content}>
      <Badge
        // antd draws no dot for a zero count: the dot stands for "something waits", so any non-zero does.
        count={onlyInterrupted ? 1 : uploadsRunning + syncsRunning}
        dot={onlyInterrupted}
        size="small"
        offset={[-4, 4]}
      >
        <Button type="text" onPointerEnter={() => void loadContent()} onFocus={() => void loadContent()} icon={<CloudUploadOutlined aria-hidden />} aria-label="任务面板" title={interrupted.items.length > 0 ? `上传与同步任务（${interrupted.items.length} 个中断的上传）` : '上传与同步任务'} data-testid="upload-panel-button" />
      </Badge>
    </Popover>
  );
}
