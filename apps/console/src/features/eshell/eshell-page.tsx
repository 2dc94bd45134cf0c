import { useQuery } from '@tanstack/react-query';
import type { ShellCenter } from '@suanli/contracts';
import { Alert, Card, Empty, Select, Skeleton, Tabs } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { queryKeys } from '../../app/query-keys';
import { PageContainer } from '../../shared/ui/page-container';
import { AccessRecords } from './access-records';
import { fetchShellCenters } from './api';
import { TerminalPane } from './terminal-pane';

interface TabInfo {
  key: string;
  centerId: string;
  label: string;
  cwd?: string;
}

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
          title={usable.length ? '部分分中心暂不能打开终端' : '当前没有可用的终端'}
          description={notes.map((c) => `${c.centerName}：${c.note}`).join('；')}
        />
      )}
      {local && (
        <Alert
          type="info"
          showIcon
          data-testid="eshell-local-note"
          title="终端运行在平台所在的服务器上，以您在该分中心的账号登录，打开后位于您的主目录中。"
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
        {!centers.isLoading && !usable.length && (
          // Issue 22: without a terminal the page was a dead end; what the user can do instead, and whom to ask.
          <div data-testid="eshell-instead" style={{ textAlign: 'center', color: 'rgba(0,0,0,0.65)' }}>
            没有终端也可以：在<Link to="/storage">存储管理</Link>中上传、下载和编辑文件，在<Link to="/slurm-task">任务管理</Link>
            中提交 Slurm 作业并查看日志；确需命令行时请<Link to="/workorder">提交工单</Link>。
          </div>
        )}
      </Card>
      <AccessRecords />
    </PageContainer>
  );
}
