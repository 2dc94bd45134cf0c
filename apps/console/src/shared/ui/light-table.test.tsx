import type { Page, PageQuery } from '@suanli/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { usePagedList } from '../hooks/use-paged-list';
import { LightPagedTable, type LightColumn } from './light-table';

interface Row {
  id: string;
  name: string;
}

const ALL: Row[] = Array.from({ length: 12 }, (_, i) => ({ id: `r${i + 1}`, name: `任务${i + 1}` }));
const asked: PageQuery[] = [];
const fetchPage = async (q: PageQuery): Promise<Page<Row>> => {
  asked.push(q);
  const list = ALL.slice((q.pageNum - 1) * q.pageSize, q.pageNum * q.pageSize);
  return { list, total: ALL.length, pageNum: q.pageNum, pageSize: q.pageSize } as Page<Row>;
};

const columns: LightColumn<Row>[] = [
  { key: 'name', title: '名称', dataIndex: 'name', width: 200, ellipsis: true },
  { key: 'op', title: '操作', width: 100, render: (_v, row) => <span data-testid="op">{`操作${row.id}`}</span> },
];

function Table({ fetch }: { fetch: (q: PageQuery) => Promise<Page<Row>> }) {
  const list = usePagedList<PageQuery, Row>({ key: (q) => ['light', q], fetch });
  return <LightPagedTable<Row> list={list} columns={columns} rowData={(r) => ({ 'data-testid': 'row', 'data-id': r.id })} empty={{ filtered: '没有符合条件的数据', none: '暂无数据', action: { label: '立即新建', onClick: () => {} } }} />;
}

function renderTable(fetch = fetchPage) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <Table fetch={fetch} />
    </QueryClientProvider>,
  );
}

afterEach(() => {
  cleanup();
  asked.length = 0;
});

describe('LightPagedTable', () => {
  it('draws a header cell per column, a row per item with its data- attributes, and pages on the server', async () => {
    renderTable();
    await waitFor(() => expect(screen.getAllByTestId('row')).toHaveLength(10));
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['名称', '操作']);
    const first = screen.getAllByTestId('row')[0];
    expect(first.getAttribute('data-id')).toBe('r1');
    // An ellipsis cell carries its text as a title (it may be cut); a rendered cell shows what render gave.
    expect(within(first).getByText('任务1').getAttribute('title')).toBe('任务1');
    expect(within(first).getByTestId('op').textContent).toBe('操作r1');
    expect(screen.getByText('共 12 条')).toBeTruthy();

    fireEvent.click(screen.getByTitle('2'));
    await waitFor(() => expect(screen.getAllByTestId('row').map((r) => r.getAttribute('data-id'))).toEqual(['r11', 'r12']));
    expect(asked.at(-1)).toMatchObject({ pageNum: 2, pageSize: 10 });
  });

  it('says so in Chinese when there is nothing, with no pager', async () => {
    renderTable(async (q) => ({ list: [], total: 0, pageNum: q.pageNum, pageSize: q.pageSize }) as Page<Row>);
    expect(await screen.findByText('暂无数据')).toBeTruthy();
    expect(screen.getByText('立即新建')).toBeTruthy();
    expect(screen.queryByText(/共 \d+ 条/)).toBeNull();
    expect(screen.queryAllByTestId('row')).toHaveLength(0);
  });

  it('marks itself busy with a Chinese status while the first page loads', async () => {
    let answer: (p: Page<Row>) => void = () => {};
    renderTable((q) => new Promise((resolve) => (answer = (p) => resolve({ ...p, pageNum: q.pageNum, pageSize: q.pageSize }))));
    expect(screen.getByRole('status').getAttribute('aria-label')).toBe('加载中');
    answer({ list: ALL.slice(0, 2), total: 2 } as Page<Row>);
    await waitFor(() => expect(screen.getAllByTestId('row')).toHaveLength(2));
    expect(screen.queryByRole('status')).toBeNull();
  });
});
