import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { render, screen, waitFor } from '@testing-library/react';
import { Button, Image, InputNumber, Modal, Result, Segmented, Select, Table, Tabs, Typography } from 'antd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ICON_LABELS, installChineseNames } from './chinese-names';
import { Providers } from './providers';

let stop: () => void;
beforeAll(() => {
  stop = installChineseNames();
});
afterAll(() => stop());

const labels = () => Array.from(document.body.querySelectorAll('[aria-label]')).map((e) => e.getAttribute('aria-label') ?? '');
const hasChinese = (s: string) => /[\u4e00-\u9fa5]/.test(s);

/** `CheckCircleFilled` → `check-circle`: the name antd's icon definition carries (its English aria-label). */
const iconName = (component: string) =>
  component
    .replace(/(Outlined|Filled|TwoTone)$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();

function iconsImportedIn(dir: string, pattern: RegExp): string[] {
  const found = new Set<string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(tsx?|js)$/.test(entry.name)) continue;
    for (const m of fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8').matchAll(pattern)) found.add(iconName(m[1]!));
  }
  return [...found].sort();
}

describe('Chinese accessible names (app/chinese-names.ts)', () => {
  it('names every icon the console and antd itself draw', () => {
    const ours = iconsImportedIn(path.join(import.meta.dirname, '..'), /\b([A-Z][A-Za-z]+(?:Outlined|Filled|TwoTone))\b/g);
    const antd = iconsImportedIn(path.join(path.dirname(createRequire(import.meta.url).resolve('antd')), '../es'), /@ant-design\/icons\/es\/icons\/([A-Za-z]+)"/g);
    expect(ours.length).toBeGreaterThan(20);
    expect(antd.length).toBeGreaterThan(20);
    expect([...ours, ...antd].filter((name) => !(name in ICON_LABELS))).toEqual([]);
  });

  it('antd controls read Chinese: icons, pager, steppers, clear, row selection, segmented, tabs, modal close, image preview toolbar', async () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ key: String(i), name: `任务${i}` }));
    render(
      <Providers>
        <Button icon={<PlusOutlined />}>新建</Button>
        <Button icon={<ReloadOutlined />} />
        <InputNumber defaultValue={3} />
        <Select value="a" allowClear options={[{ value: 'a', label: '甲' }]} />
        <Segmented options={['一', '二']} />
        <Tabs type="editable-card" onEdit={() => undefined} items={[{ key: '1', label: '终端 1', children: '内容' }]} />
        <Typography.Text copyable>复制我</Typography.Text>
        <Table rowSelection={{}} columns={[{ title: '名称', dataIndex: 'name' }]} dataSource={rows} pagination={{ pageSize: 10 }} />
        <Modal open title="对话框">正文</Modal>
        <Image src="data:image/png;base64,iVBORw0KGgo=" alt="截图" preview={{ open: true }} />
      </Providers>,
    );
    await screen.findByText('正文');
    await waitFor(() => expect(labels().filter((l) => !hasChinese(l))).toEqual([]));
    const all = labels();
    // Pager arrows say what they do (the item's title), not which way they point.
    expect(all).toEqual(expect.arrayContaining(['上一页', '下一页', '添加', '刷新', '增大', '减小', '清除', '全选', '选择第 1 行', '分段选择', '新建标签页', '关闭', '上下翻转', '左右翻转', '向左旋转', '向右旋转', '缩小', '放大']));
    expect(document.querySelector('.ant-pagination-prev .anticon')?.getAttribute('aria-label')).toBe('上一页');
  });

  it("names Result's 404, 403 and 500 pictures in Chinese (their SVG title is what a screen reader reads)", async () => {
    render(
      <Providers>
        <Result status="404" title="文件不存在" />
        <Result status="403" title="无权查看" />
        <Result status="500" title="出错了" />
      </Providers>,
    );
    await waitFor(() => expect([...document.querySelectorAll('.ant-result-image svg title')].map((t) => t.textContent)).toEqual(['未找到', '无权访问', '服务器错误']));
  });

  it('translates what changes later and leaves a name that only looks like antd English alone', async () => {
    const { rerender } = render(
      <Providers>
        <span aria-label="Clear" data-testid="user-data">
          Clear
        </span>
        <Select value="a" allowClear options={[{ value: 'a', label: '甲' }]} />
      </Providers>,
    );
    rerender(
      <Providers>
        <span aria-label="Clear" data-testid="user-data">
          Clear
        </span>
        <Select value="a" allowClear options={[{ value: 'a', label: '甲' }]} />
        <Button icon={<ReloadOutlined />} data-testid="late" />
      </Providers>,
    );
    await waitFor(() => expect(screen.getByTestId('late').querySelector('.anticon')?.getAttribute('aria-label')).toBe('刷新'));
    expect(screen.getByTestId('user-data').getAttribute('aria-label')).toBe('Clear');
    expect(document.querySelector('.ant-select-clear')?.getAttribute('aria-label')).toBe('清除');
  });
});
