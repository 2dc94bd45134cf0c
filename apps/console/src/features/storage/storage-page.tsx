import { CodeOutlined, ReloadOutlined } from '@ant-design/icons';
import { downloadName, PAGE_SIZE_DEFAULT, teamSpace, type FileEntry, type SubCenter } from '@suanli/contracts';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Empty, Flex, Result, Skeleton } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import type { FileApi } from './api';
import { fromDataTransfer, fromFileList } from './collect';
import { CenterSelect } from './components/center-select';
import { DirPickerModal } from './components/dir-picker-modal';
import { DropZone } from './components/drop-zone';
import { FileTable, type TableQuery } from './components/file-table';
import { NameModal } from './components/name-modal';
import { PathBreadcrumb } from './components/path-breadcrumb';
import { Toolbar } from './components/toolbar';
import { UsageBar } from './components/usage-bar';
import { queryKeys } from '../../app/query-keys';
import { cacheScope, pickCenter, recallCenter, rememberCenter, spaceParam, useFileApi, useFileMutations, useMyTeams, useSubCenters } from './hooks';
import { SpaceSelect } from './components/space-select';
import { normalizePath, ROOT } from './paths';
import { useStorageUpload } from './use-storage-upload';
import { SyncModal } from '../sync/sync-modal';

/** `/storage/detail?center=…&path=…` (and `&space=team:<id>` in a team's folder) */
export function detailHref(centerId: string, path: string, space?: string): string {
  return `/storage/detail?${new URLSearchParams({ center: centerId, path, ...(space ? { space } : {}) })}`;
}

/** 存储管理: the user's files on one sub-center. The center and folder live in the URL (back/forward work). */
export function StoragePage() {
  const [params, setParams] = useSearchParams();
  const centers = useSubCenters();
  const center = pickCenter(centers.data ?? [], params.get('center'), recallCenter());
  const path = normalizePath(params.get('path'));
  const space = spaceParam(params.get('space'));
  const teams = useMyTeams();
  const teamName = space ? teams.data?.find((t) => teamSpace(t.id) === space)?.name : undefined;
  const api = useFileApi(center, space);
  const centerId = center?.id;
  const screens = useBreakpoint();
  const navigate = useNavigate();

  useEffect(() => {
    if (centerId) rememberCenter(centerId);
  }, [centerId]);

  const usage = useQuery({
    queryKey: queryKeys.storage.usage(cacheScope(centerId ?? '', space)),
    queryFn: () => api!.usage(),
    enabled: Boolean(api && centerId),
    retry: false,
  });

  const go = (next: { center?: string; path?: string; space?: string | null }) =>
    setParams((p) => {
      const q = new URLSearchParams(p);
      if (next.center !== undefined) {
        q.set('center', next.center);
        q.delete('path'); // each center has its own tree
      }
      if (next.space !== undefined) {
        if (next.space === null) q.delete('space');
        else q.set('space', next.space);
        q.delete('path'); // and each space its own
      }
      if (next.path !== undefined) {
        if (next.path === ROOT) q.delete('path');
        else q.set('path', next.path);
      }
      return q;
    });

  return (
    <PageContainer
      title="存储管理"
      description={
        space
          ? `团队「${teamName ?? '…'}」在各算力分中心的共享文件夹：团队成员都可以读写其中的文件，成员的任务也可直接使用`
          : '管理您在各算力分中心的个人文件，上传到这里的文件可直接在任务中使用'
      }
      extra={
        <Flex gap={16} align="center" wrap>
          {usage.data && <UsageBar usage={usage.data} />}
          {(space || (teams.data?.length ?? 0) > 0) && (
            <SpaceSelect teams={teams.data ?? []} loaded={teams.isSuccess} value={space} onChange={(s) => go({ space: s ?? null })} />
          )}
          <CenterSelect centers={centers.data ?? []} value={centerId} loading={centers.isLoading} onChange={(id) => go({ center: id })} />
          {/* The terminal opens in the home (its cwd is a path there); not offered for a team's folder. */}
          {centerId && !space && (
            <Button
              icon={<CodeOutlined />}
              data-testid="storage-open-terminal"
              onClick={() => navigate(`/slurm-template/eshell?${new URLSearchParams({ center: centerId, cwd: path })}`)}
            >
              在此打开终端
            </Button>
          )}
        </Flex>
      }
    >
      <Card styles={{ body: { padding: screens.sm ? 24 : 12 } }}>
        {centers.isLoading ? (
          <Skeleton active paragraph={{ rows: 8 }} />
        ) : centers.isError ? (
          <Result status="warning" title="无法获取算力分中心列表" extra={<Button onClick={() => centers.refetch()}>重试</Button>} />
        ) : !center || !api ? (
          <Empty description="暂无可用的算力分中心" />
        ) : (
          <StorageBrowser
            // A new folder or center starts with a fresh page, sort, search and selection.
            key={`${center.id}:${space ?? ''}:${path}`}
            center={center}
            space={space}
            spaceName={space ? `团队「${teamName ?? ''}」空间` : undefined}
            centers={centers.data ?? []}
            api={api}
            path={path}
            quotaLeft={usage.data ? usage.data.quota - usage.data.used : undefined}
            onNavigate={(p) => go({ path: p })}
          />
        )}
      </Card>
    </PageContainer>
  );
}

type Dialog =
  | { kind: 'mkdir' }
  | { kind: 'rename'; entry: FileEntry }
  | { kind: 'move' | 'copy'; entries: FileEntry[] }
  | { kind: 'sync'; entry: FileEntry }
  | null;

interface BrowserProps {
  center: SubCenter;
  /** A team's folder (`team:<id>`) rather than the user's home, and how the upload panel names it. */
  space?: string;
  spaceName?: string;
  /** Every sub-center (跨中心同步 copies to one of the others). */
  centers: SubCenter[];
  api: FileApi;
  path: string;
  quotaLeft?: number;
  onNavigate: (path: string) => void;
}

function StorageBrowser({ center, space, spaceName, centers, api, path, quotaLeft, onNavigate }: BrowserProps) {
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [query, setQuery] = useState<TableQuery & { keyword: string }>({ pageNum: 1, pageSize: PAGE_SIZE_DEFAULT, keyword: '' });
  const [selected, setSelected] = useState<FileEntry[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  // Listings, usage and details of this space of the center (a team's folder is cached apart from the home).
  const scope = cacheScope(center.id, space);
  const mutations = useFileMutations(api, scope);

  const params = { path, ...query, keyword: query.keyword || undefined };
  const list = useQuery({
    queryKey: queryKeys.storage.list(scope, params),
    // Silent: a refusal (a missing folder in the URL, …) is shown once, on the page, with its reason and a
    // way out — not also as a toast.
    queryFn: () => api.list(params, { silent: true }),
    placeholderData: keepPreviousData,
  });

  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.storage.center(scope) });
  // The mutation already invalidated the center's cache; this is what the user sees of it.
  const afterChange = (text: string) => {
    message.success(text);
    setSelected([]);
  };

  // ---- upload (conflicts asked, folders made, files queued: use-storage-upload.ts) -------------------------
  const upload = useStorageUpload({ api, center, space, spaceName, scope, path, quotaLeft, refresh });

  // ---- download ----------------------------------------------------------------------------------------
  // The browser downloads straight to disk (progress, pause and resume in its own download list), so a
  // multi-GiB file or zip never sits in the page's memory.
  const download = async (entries: FileEntry[]) => {
    if (entries.length === 0) return;
    // The name the file service saves it under (contracts), so the toast names the file the user will find.
    const label = downloadName(entries);
    const key = `storage-download-${label}`;
    message.open({ key, type: 'loading', content: `正在准备下载 ${label}…`, duration: 0 });
    try {
      await api.download(entries.map((e) => e.path));
      message.open({ key, type: 'success', content: `${label} 已开始下载，可在浏览器的下载列表中查看进度`, duration: 3 });
    } catch {
      message.destroy(key); // the pipeline already explained the failure
    }
  };

  // ---- delete ------------------------------------------------------------------------------------------
  const removePaths = async (entries: FileEntry[]) => {
    await mutations.remove.mutateAsync(entries.map((e) => e.path));
    afterChange(entries.length === 1 ? `已删除“${entries[0].name}”` : `已删除 ${entries.length} 项`);
  };
  const confirmDelete = () => {
    const entries = selected;
    modal.confirm({
      title: `确定删除选中的 ${entries.length} 项吗？`,
      content: entries.some((e) => e.type === 'dir') ? '所选文件夹内的所有内容也将被删除，删除后不可恢复。' : '删除后不可恢复。',
      okText: '删除',
      okType: 'danger',
      cancelText: '取消',
      okButtonProps: { ...({ 'data-testid': 'storage-confirm-ok' } as object) },
      onOk: () => removePaths(entries).catch(() => undefined),
    });
  };

  const open = (entry: FileEntry) => {
    if (entry.type === 'dir') onNavigate(entry.path);
    else navigate(detailHref(center.id, entry.path, space));
  };

  // 跨中心同步 takes one file or folder, and needs another center to go to.
  const syncBlocked = selected.length > 1 ? '一次只能同步一个文件或文件夹' : selected[0]?.type === 'link' ? '符号链接不能同步' : null;

  const keyword = query.keyword;
  const emptyText = keyword ? (
    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={`没有找到名称包含“${keyword}”的文件或文件夹`} />
  ) : (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        <>
          此文件夹为空
          <br />
          将文件或文件夹拖拽到这里，或点击“上传文件”
        </>
      }
    />
  );

  return (
    <>
      <Flex justify="space-between" align="center" wrap>
        <PathBreadcrumb path={path} onNavigate={onNavigate} />
        <Button type="text" size="small" icon={<ReloadOutlined />} onClick={() => refresh()} loading={list.isFetching && !list.isLoading} data-testid="storage-refresh">
          刷新
        </Button>
      </Flex>
      <Toolbar
        selectedCount={selected.length}
        keyword={keyword}
        onUploadFiles={(files) => upload(fromFileList(files))}
        onUploadFolder={(files) => upload(fromFileList(files))}
        onMkdir={() => setDialog({ kind: 'mkdir' })}
        onDownload={() => download(selected)}
        onMove={() => setDialog({ kind: 'move', entries: selected })}
        onCopy={() => setDialog({ kind: 'copy', entries: selected })}
        // 跨中心同步 copies from the home (its jobs name home paths): not offered in a team's folder.
        onSync={centers.length > 1 && !space ? () => selected.length === 1 && !syncBlocked && setDialog({ kind: 'sync', entry: selected[0] }) : undefined}
        syncBlocked={syncBlocked}
        onDelete={confirmDelete}
        onSearch={(k) => setQuery((q) => ({ ...q, keyword: k, pageNum: 1 }))}
      />
      <DropZone
        onDrop={(dt) => {
          // Read the DataTransfer now; it is emptied when this handler returns.
          void fromDataTransfer(dt).then(upload);
        }}
      >
        {list.isError && !list.data ? (
          <Result
            status="warning"
            title="无法读取该文件夹"
            subTitle={list.error instanceof Error ? list.error.message : undefined}
            extra={
              <Flex gap={8} justify="center">
                <Button onClick={() => list.refetch()}>重试</Button>
                {path !== ROOT && <Button onClick={() => onNavigate(ROOT)}>返回全部文件</Button>}
              </Flex>
            }
          />
        ) : (
          <>
            {list.isError && (
              // An earlier page is still shown; say why the requested one is not.
              <Alert
                type="warning"
                showIcon
                style={{ marginBottom: 12 }}
                title={list.error instanceof Error ? list.error.message : '无法读取该文件夹'}
                action={
                  <Button size="small" onClick={() => list.refetch()}>
                    重试
                  </Button>
                }
                data-testid="storage-list-error"
              />
            )}
            <FileTable
              entries={list.data?.list ?? []}
              total={list.data?.total ?? 0}
              loading={list.isFetching}
              pageNum={query.pageNum}
              pageSize={query.pageSize}
              sortField={query.sortField}
              sortOrder={query.sortOrder}
              selectedKeys={selected.map((e) => e.path)}
              emptyText={emptyText}
              onSelect={(_, rows) => setSelected(rows)}
              onQueryChange={(q) => {
                setQuery((prev) => ({ ...prev, ...q }));
                setSelected([]);
              }}
              onOpen={open}
              onRename={(entry) => setDialog({ kind: 'rename', entry })}
              onDownload={(entry) => download([entry])}
              onDelete={(entry) => removePaths([entry]).catch(() => undefined)}
            />
          </>
        )}
      </DropZone>

      {dialog?.kind === 'mkdir' && (
        <NameModal
          open
          title="新建文件夹"
          initialName="新建文件夹"
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            await mutations.mkdir.mutateAsync({ parentPath: path, name });
            afterChange(`已创建文件夹“${name}”`);
          }}
        />
      )}
      {dialog?.kind === 'rename' && (
        <NameModal
          open
          title="重命名"
          initialName={dialog.entry.name}
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            if (name === dialog.entry.name) return;
            await mutations.rename.mutateAsync({ path: dialog.entry.path, newName: name });
            afterChange('重命名成功');
          }}
        />
      )}
      {dialog?.kind === 'sync' && <SyncModal source={center} centers={centers} entry={dialog.entry} onClose={() => setDialog(null)} />}
      {(dialog?.kind === 'move' || dialog?.kind === 'copy') && (
        <DirPickerModal
          open
          title={`${dialog.kind === 'move' ? '移动' : '复制'} ${dialog.entries.length} 项到`}
          okText={dialog.kind === 'move' ? '移动到此处' : '复制到此处'}
          loadDirs={(p) => api.listDirs(p)}
          // A folder can go neither into itself nor anywhere below it.
          excluded={dialog.entries.filter((e) => e.type === 'dir').map((e) => e.path)}
          onClose={() => setDialog(null)}
          onSubmit={async (targetDir) => {
            const paths = dialog.entries.map((e) => e.path);
            if (dialog.kind === 'move') {
              if (targetDir === path) {
                message.warning('所选项目已在该文件夹中');
                throw new Error('same folder');
              }
              await mutations.move.mutateAsync({ paths, targetDir });
              afterChange(`已移动 ${paths.length} 项`);
            } else {
              await mutations.copy.mutateAsync({ paths, targetDir });
              afterChange(`已复制 ${paths.length} 项`);
            }
          }}
        />
      )}
    </>
  );
}
