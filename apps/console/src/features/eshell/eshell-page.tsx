import { useQuery } from '@tanstack/react-query';
import type { AccessSession, ShellCenter } from '@suanli/contracts';
import { Alert, Card, Empty, Select, Skeleton, Table, Tabs, Typography, type TableColumnsType } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { dayjs } from '../../shared/dayjs';
import { PageContainer } from '../../shared/ui/page-container';
import { fetchShellCenters, pageShellSessions } from './api';
import { TerminalPane } from './terminal-pane';

interface TabInfo {
  key: string;
  centerId: string;
  label: string;
  cwd?: string;
}

const formatDateTime = (v: number) => dayjs(v).format('YYYY-MM-DD HH:mm:ss');

const END_REASON: Record<string, string> = {
  '': '进行中',
  exited: '已退出',
  closed: '已关闭',
  idle: '空闲超时',
  revoked: '登录失效',
  refused: '被拒绝',
  error: '连接出错',
  server: '服务重启',
};

/**
 * Shell工具 (`/slurm-template/eshell?center=…&cwd=…`): terminals on the centers' login nodes (or, embedded
 * default, a local shell in the home when the gateway listens on loopback), several tabs, and the caller's
 * own session records. xterm.js loads with this page only (its own chunk).
 */
export function EshellPage() {
  const [params] = useSearchParams();
  const centers = useQuery({ queryKey: queryKeys.eshell.centers, queryFn: fetchShellCenters, staleTime: 60_000 });
  const usable = (centers.data ?? []).filter((c) => c.transport !== 'none');
  const [centerId, setCenterId] = useState<string>();
  const [tabs, setTabs] = useState<TabInfo[]>([]);
  const [active, setActive] = useState<string>();
  const counter = useRef(0);
  const picked = centerId ?? (usable.find((c) => c.centerId === params.get('center')) ?? usable[0])?.centerId;

  const add = (c: ShellCenter, cwd?: string) => {
    const key = `t${++counter.current}`;
    setTabs((list) => [...list, { key, centerId: c.centerId, cwd, label: `${c.centerName} ${counter.current}` }]);
    setActive(key);
  };

  // The first tab opens by itself, in the folder the storage page asked for.
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current || !centers.data) return;
    const c = usable.find((x) => x.centerId === picked);
    if (!c) return;
    opened.current = true;
    add(c, params.get('cwd') || undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [centers.data]);

  const remove = (key: string) => {
    setTabs((list) => {
      const next = list.filter((t) => t.key !== key);
      if (active === key) setActive(next.at(-1)?.key);
      return next;
    });
  };

  const notes = (centers.data ?? []).filter((c) => c.transport === 'none');
  const local = usable.some((c) => c.transport === 'local');
  return (
    <PageContainer
      title="Shell工具"
      description="在浏览器中打开分中心登录节点的终端，以您的集群账号操作文件与作业"
      extra={
        <Select
          style={{ minWidth: 200 }}
          placeholder="选择分中心"
          value={picked}
          loading={centers.isLoading}
          onChange={setCenterId}
          data-testid="eshell-center"
          options={(centers.data ?? []).map((c) => ({ value: c.centerId, label: c.centerName, disabled: c.transport === 'none' }))}
        />
      }
    >
      {notes.length > 0 && (
        <Alert
          type={usable.length ? 'info' : 'warning'}
          showIcon
          data-testid="eshell-note"
          message={usable.length ? '部分分中心暂不能打开终端' : '当前没有可用的终端'}
          description={notes.map((c) => `${c.centerName}：${c.note}`).join('；')}
        />
      )}
      {local && (
        <Alert
          type="info"
          showIcon
          data-testid="eshell-local-note"
          message="嵌入式默认：终端在本机运行，位于您在该分中心的主目录中（仅在服务只监听本机地址时提供）"
        />
      )}
      <Card styles={{ body: { padding: 12 } }}>
        {centers.isLoading ? (
          <Skeleton active />
        ) : (
          <Tabs
            type="editable-card"
            activeKey={active}
            onChange={setActive}
            data-testid="eshell-tabs"
            addIcon={<span data-testid="eshell-add">新建终端</span>}
            // Screen readers otherwise hear rc-tabs' English defaults (Add tab / remove / expanded dropdown).
            locale={{ addAriaLabel: '新建终端', removeAriaLabel: '关闭终端', dropdownAriaLabel: '更多终端' }}
            onEdit={(key, action) => {
              if (action === 'add') {
                const c = usable.find((x) => x.centerId === picked);
                if (c) add(c);
              } else if (typeof key === 'string') remove(key);
            }}
            items={tabs.map((t) => ({
              key: t.key,
              label: t.label,
              children: <TerminalPane centerId={t.centerId} cwd={t.cwd} active={t.key === active} />,
            }))}
          />
        )}
        {!centers.isLoading && tabs.length === 0 && <Empty description={usable.length ? '点击“新建终端”打开一个终端' : '没有可用的终端'} />}
      </Card>
      <SessionRecords />
    </PageContainer>
  );
}

/** The caller's own shell (and proxy) sessions: who, where, as which account, when, and how each ended. */
function SessionRecords() {
  const [pageNum, setPageNum] = useState(1);
  const query = { pageNum, pageSize: 10 };
  const records = useQuery({ queryKey: queryKeys.eshell.sessions(query), queryFn: () => pageShellSessions(query), refetchInterval: 30_000 });
  const columns: TableColumnsType<AccessSession> = [
    { title: '分中心', dataIndex: 'centerName' },
    { title: '集群账号', dataIndex: 'account' },
    { title: '方式', dataIndex: 'target', render: (v: string, r) => (r.kind === 'proxy' ? '开发环境' : v === 'ssh' ? 'SSH' : '本地终端') },
    { title: '开始时间', dataIndex: 'startTime', render: (v: number) => formatDateTime(v) },
    { title: '结束时间', dataIndex: 'endTime', render: (v: number | null) => (v ? formatDateTime(v) : '—') },
    { title: '结束原因', dataIndex: 'endReason', render: (v: string) => END_REASON[v] ?? v },
  ];
  return (
    <Card title={<Typography.Text strong>访问记录</Typography.Text>} size="small">
      <Table
        rowKey="id"
        size="small"
        data-testid="eshell-sessions"
        loading={records.isLoading}
        columns={columns}
        dataSource={records.data?.list ?? []}
        scroll={{ x: 640 }}
        pagination={{ current: pageNum, pageSize: 10, total: records.data?.total ?? 0, onChange: setPageNum, hideOnSinglePage: true }}
      />
    </Card>
  );
}
