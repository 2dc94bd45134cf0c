import { ArrowLeftOutlined, DownloadOutlined } from '@ant-design/icons';
import { formatFileSize, type FileEntry } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Descriptions, Empty, Flex, Result, Skeleton, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useBreakpoint } from '../../shared/hooks/use-breakpoint';
import { PageContainer } from '../../shared/ui/page-container';
import type { FileApi } from './api';
import { formatTime } from './components/file-table';
import { queryKeys } from '../../app/query-keys';
import { cacheScope, pickCenter, spaceParam, useFileApi, useSubCenters } from './hooks';
import { baseName, normalizePath, parentOf } from './paths';
import { previewKind, PREVIEW_BYTES, decodePreview, type Preview } from './preview';

/** The entry at `path`, found by listing its folder (the contract has no stat call). */
async function findEntry(api: FileApi, path: string): Promise<FileEntry | null> {
  const name = baseName(path);
  const parent = parentOf(path);
  for (let pageNum = 1; pageNum <= 20; pageNum++) {
    const page = await api.list({ path: parent, pageNum, pageSize: 100, keyword: name });
    const hit = page.list.find((e) => e.path === path);
    if (hit) return hit;
    if (pageNum * 100 >= page.total) return null;
  }
  return null;
}

/** 文件详情: what a file is, a text preview of small text files, and its download. */
export function StorageDetailPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const screens = useBreakpoint();
  const path = normalizePath(params.get('path'));
  const centers = useSubCenters();
  const center = pickCenter(centers.data ?? [], params.get('center'), null);
  const space = spaceParam(params.get('space'));
  const api = useFileApi(center, space);
  // Keyed like the storage page's listings: a team's folder apart from the home.
  const centerId = cacheScope(center?.id ?? '', space);

  const entry = useQuery({
    queryKey: queryKeys.storage.entry(centerId, path),
    queryFn: () => findEntry(api!, path),
    enabled: Boolean(api),
  });
  const file = entry.data;
  // A link is never read through (the service refuses it): nothing to preview.
  const kind = file && file.type !== 'link' ? previewKind(file) : 'none';
  const preview = useQuery({
    queryKey: queryKeys.storage.preview(centerId, path, file?.updateTime ?? 0),
    queryFn: async (): Promise<Preview> => {
      const end = Math.min(file!.size, PREVIEW_BYTES) - 1;
      const blob = await api!.read(path, { range: [0, end], maxBytes: PREVIEW_BYTES });
      return decodePreview(new Uint8Array(await blob.arrayBuffer()), file!.size);
    },
    enabled: Boolean(api && file && kind === 'text'),
  });

  // Handed to the browser's download manager (see StoragePage): busy only while the ticket is requested.
  const [preparing, setPreparing] = useState(false);
  const download = async () => {
    if (!api || !file) return;
    setPreparing(true);
    try {
      await api.download([path]);
      message.success(`${file.name} 已开始下载，可在浏览器的下载列表中查看进度`);
    } catch {
      // Shown by the pipeline.
    } finally {
      setPreparing(false);
    }
  };

  const folderHref = `/storage?${new URLSearchParams({ center: center?.id ?? '', ...(space ? { space } : {}), ...(parentOf(path) !== '/' ? { path: parentOf(path) } : {}) })}`;
  const back = () => navigate(folderHref);

  let body;
  if (centers.isLoading || entry.isLoading) body = <Skeleton active paragraph={{ rows: 6 }} />;
  else if (!center) body = <Empty description="暂无可用的算力分中心" />;
  else if (entry.isError) body = <Result status="warning" title="无法读取文件信息" extra={<Button onClick={() => entry.refetch()}>重试</Button>} />;
  else if (!file)
    body = (
      <Result
        status="404"
        title="文件不存在"
        subTitle="该文件可能已被移动、重命名或删除"
        extra={
          <Button type="primary" onClick={back}>
            返回所在文件夹
          </Button>
        }
      />
    );
  else
    body = (
      <Flex vertical gap={16}>
        <Descriptions
          bordered
          column={{ xs: 1, md: 2 }}
          size="middle"
          // Labels stay on one line; a long name or path wraps in the value instead.
          styles={{ label: { whiteSpace: 'nowrap' }, content: { overflowWrap: 'anywhere' } }}
          data-testid="storage-detail"
        >
          <Descriptions.Item label="名称">{file.name}</Descriptions.Item>
          <Descriptions.Item label="大小">
            {formatFileSize(file.size)}
            <Typography.Text type="secondary">（{file.size.toLocaleString('zh-CN')} 字节）</Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label="路径">
            <Typography.Text copyable>{file.path}</Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label="修改时间">{formatTime(file.updateTime)}</Descriptions.Item>
          <Descriptions.Item label="所在分中心">{center.name}</Descriptions.Item>
          <Descriptions.Item label="类型">{file.type === 'dir' ? '文件夹' : file.type === 'link' ? '符号链接（平台不会跟随，不能预览或下载）' : '文件'}</Descriptions.Item>
        </Descriptions>
        <Card size="small" title="内容预览">
          <PreviewBody kind={kind} preview={preview.data} loading={preview.isLoading} failed={preview.isError} />
        </Card>
      </Flex>
    );

  return (
    <PageContainer
      title={file?.name ?? (baseName(path) || '文件详情')}
      description={center ? `${center.name} · ${parentOf(path)}` : undefined}
      extra={
        <Flex gap={8} align="center">
          <Button icon={<ArrowLeftOutlined />} onClick={back}>
            返回
          </Button>
          <Button type="primary" icon={<DownloadOutlined />} disabled={!file} loading={preparing} onClick={download} data-testid="storage-detail-download">
            下载
          </Button>
        </Flex>
      }
    >
      <Card styles={{ body: { padding: screens.sm ? 24 : 12 } }}>{body}</Card>
    </PageContainer>
  );
}

function PreviewBody({ kind, preview, loading, failed }: { kind: ReturnType<typeof previewKind>; preview?: Preview; loading: boolean; failed: boolean }) {
  if (kind === 'empty') return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="空文件" />;
  if (kind === 'none') return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="该类型的文件暂不支持预览，请下载后查看" />;
  if (loading) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (failed || !preview) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="预览加载失败" />;
  if (preview.binary) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="该文件不是文本文件，无法预览" />;
  return (
    <>
      {preview.truncated && (
        <Typography.Paragraph type="secondary">文件较大，仅显示前 {PREVIEW_BYTES / 1024} KB 内容</Typography.Paragraph>
      )}
      <pre
        data-testid="storage-preview"
        style={{ maxHeight: 480, overflow: 'auto', margin: 0, padding: 12, background: '#fafafa', borderRadius: 6, fontSize: 13, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
      >
        {preview.text}
      </pre>
    </>
  );
}
