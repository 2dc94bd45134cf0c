import { DownloadOutlined, FileOutlined, FolderOutlined } from '@ant-design/icons';
import { formatFileSize, type AssetDetail, type AssetVersion } from '@suanli/contracts';
import { useQuery } from '@tanstack/react-query';
import { Breadcrumb, Button, Card, Empty, Space, Spin, Table, Tag, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { queryKeys } from '../../app/query-keys';
import { formatTime } from '../../shared/time';
import type { AssetCalls } from './api';
import styles from './asset.module.css';

/**
 * A dataset's or model's versions as its detail page shows them: their state, the list (cards on a phone, a
 * table on a wider screen), and one version's README and files.
 */

const STATE: Record<AssetVersion['state'], { color: string; text: string }> = {
  creating: { color: 'processing', text: '生成中' },
  ready: { color: 'success', text: '可用' },
  failed: { color: 'error', text: '失败' },
};

function VersionState({ v }: { v: AssetVersion }) {
  if (v.state !== 'creating') return <Tag color={STATE[v.state].color}>{STATE[v.state].text}</Tag>;
  return (
    <Space orientation="vertical" size={0} style={{ minWidth: 140 }}>
      <Tag color="processing">生成中</Tag>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        已复制 {formatFileSize(v.copiedBytes)}
      </Typography.Text>
    </Space>
  );
}

/** Versions on a phone: one small card each instead of a wide table. */
export function VersionCards({ versions, actions }: { versions: AssetVersion[]; actions: (v: AssetVersion) => ReactNode }) {
  if (!versions.length) return <Empty description="还没有版本" />;
  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="asset-versions">
      {versions.map((v) => (
        <Card key={v.id} size="small">
          <Space wrap>
            <b data-testid="asset-version-no">v{v.version}</b>
            {v.state === 'failed' ? <Typography.Text type="danger">{v.reason || '失败'}</Typography.Text> : <VersionState v={v} />}
            {v.state === 'ready' ? (
              <Typography.Text type="secondary">
                {formatFileSize(v.sizeBytes)} · {v.fileCount} 个文件
              </Typography.Text>
            ) : null}
          </Space>
          <div className={styles.cardMeta}>
            <span>
              {v.subCenterName} {v.sourcePath}
            </span>
            {v.note ? <span>{v.note}</span> : null}
            <span>{formatTime(v.createTime)}</span>
          </div>
          <div>{actions(v)}</div>
        </Card>
      ))}
    </Space>
  );
}

/** Versions on a wider screen: one row each, the actions fixed on the right. */
export function VersionTable({ versions, mine, actions }: { versions: AssetVersion[]; mine: boolean; actions: (v: AssetVersion) => ReactNode }) {
  return (
    <Table
      rowKey="id"
      size="small"
      dataSource={versions}
      pagination={false}
      scroll={{ x: 840 }}
      data-testid="asset-versions"
      locale={{ emptyText: mine ? '还没有版本：点击“新建版本”从存储中的文件夹生成' : '还没有版本' }}
      columns={[
        { title: '版本', dataIndex: 'version', width: 70, render: (n: number) => <b data-testid="asset-version-no">v{n}</b> },
        { title: '状态', width: 150, render: (_: unknown, v) => (v.state === 'failed' ? <Typography.Text type="danger">{v.reason || '失败'}</Typography.Text> : <VersionState v={v} />) },
        { title: '大小', width: 110, render: (_: unknown, v) => (v.state === 'ready' ? formatFileSize(v.sizeBytes) : '—') },
        { title: '文件数', dataIndex: 'fileCount', width: 80, render: (n: number, v) => (v.state === 'ready' ? n : '—') },
        { title: '来源', render: (_: unknown, v) => `${v.subCenterName} ${v.sourcePath}` },
        { title: '说明', dataIndex: 'note', render: (s: string) => s || '—' },
        { title: '创建时间', dataIndex: 'createTime', width: 170, render: (t: number) => formatTime(t) },
        { title: '操作', width: 230, fixed: 'right', render: (_: unknown, v) => actions(v) },
      ]}
    />
  );
}

/** The README of a version, rendered as GitHub-flavoured Markdown (tables, task lists) with raw HTML left out (`skipHtml`). */
export function ReadmeView({ calls, asset, version }: { calls: AssetCalls; asset: AssetDetail; version: AssetVersion }) {
  const readme = useQuery({ queryKey: queryKeys.asset.readme(calls.kind, asset.id, version.id), queryFn: () => calls.readme(asset.id, version.id) });
  if (readme.isLoading) return <Spin className={styles.loading} />;
  if (!readme.data?.markdown) return <Empty description="该版本没有 README.md" data-testid="asset-readme-empty" />;
  return (
    <div className={styles.markdown} data-testid="asset-readme">
      <Markdown remarkPlugins={[remarkGfm]} skipHtml>{readme.data.markdown}</Markdown>
    </div>
  );
}

/** A read-only file browser over one version: folders to enter, files to download. */
export function FilesView({ calls, asset, version }: { calls: AssetCalls; asset: AssetDetail; version: AssetVersion }) {
  const [dir, setDir] = useState('/');
  const files = useQuery({ queryKey: queryKeys.asset.files(calls.kind, asset.id, version.id, dir), queryFn: () => calls.files(asset.id, version.id, dir) });
  const segs = dir.split('/').filter(Boolean);
  const join = (name: string) => `${dir.replace(/\/$/, '')}/${name}`;
  return (
    <>
      <Breadcrumb
        className={styles.versionBar}
        items={[{ title: <a onClick={() => setDir('/')}>根目录</a> }, ...segs.map((s, i) => ({ title: <a onClick={() => setDir(`/${segs.slice(0, i + 1).join('/')}`)}>{s}</a> }))]}
      />
      <Table
        size="small"
        rowKey="name"
        loading={files.isLoading}
        dataSource={files.data ?? []}
        pagination={false}
        scroll={{ x: 480 }}
        locale={{ emptyText: '空文件夹' }}
        data-testid="asset-files"
        columns={[
          {
            title: '名称',
            dataIndex: 'name',
            render: (name: string, e) =>
              e.type === 'dir' ? (
                <a onClick={() => setDir(join(name))} data-testid="asset-file-dir">
                  <FolderOutlined /> {name}
                </a>
              ) : (
                <span data-testid="asset-file">
                  <FileOutlined /> {name}
                </span>
              ),
          },
          { title: '大小', dataIndex: 'size', width: 120, render: (n: number, e) => (e.type === 'dir' ? '—' : formatFileSize(n)) },
          {
            title: '操作',
            width: 90,
            render: (_: unknown, e) =>
              e.type === 'file' ? (
                <Button size="small" type="link" icon={<DownloadOutlined />} onClick={() => void calls.download(asset.id, version.id, join(e.name))}>
                  下载
                </Button>
              ) : null,
          },
        ]}
      />
    </>
  );
}
