import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { createFakeSlurm, NUMPY_PI, template } from '../slurm-task/test/fake-slurm';
import { renderSlurm } from '../slurm-task/test/render';
import { setupPageTests } from '../../test/page-test';
import { choose, confirmPop } from '../../test/ui';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

beforeEach(() => {
  backend.putTemplate(template('u-1', { name: '我的 GROMACS', category: '分子动力学', description: '水盒子平衡', createTime: 2 }));
  backend.putTemplate(template('u-2', { name: '我的后处理', category: '自定义类别', createTime: 1 }));
});

const rows = () => screen.queryAllByTestId('tpl-row');
const ids = () => rows().map((r) => r.getAttribute('data-id'));
const pageBodies = () => backend.callsTo('/slurm/api/v1/templates/action/page', 'POST').map((c) => c.body);

describe('Slurm template list', () => {
  it('lists platform templates first with 平台, own ones with 我的, and only own ones can be edited or deleted', async () => {
    renderSlurm('/slurm-template');
    await waitFor(() => expect(ids()).toEqual([NUMPY_PI.id, 'platform-lammps-melt', 'u-1', 'u-2']));
    const [platform, , own] = rows();
    expect(within(platform).getByTestId('tpl-source').textContent).toBe('平台');
    expect(within(own).getByTestId('tpl-source').textContent).toBe('我的');
    expect(platform.textContent).toContain('4 个');
    expect(platform.textContent).toContain('仅 CPU × 2 节点 · 120 分钟');
    expect(within(platform).queryByTestId('tpl-edit')).toBeNull();
    expect(within(platform).queryByTestId('tpl-delete')).toBeNull();
    expect(within(platform).getByTestId('tpl-copy')).toBeTruthy();
    expect(within(own).getByTestId('tpl-edit')).toBeTruthy();
    expect(within(own).getByTestId('tpl-delete')).toBeTruthy();
  });

  it('filters by name, category and source on the server', async () => {
    renderSlurm('/slurm-template');
    await waitFor(() => expect(rows()).toHaveLength(4));

    await choose('tpl-category-filter', '分子动力学');
    await waitFor(() => expect(ids()).toEqual(['platform-lammps-melt', 'u-1']));
    expect(pageBodies().at(-1)).toEqual({ pageNum: 1, pageSize: 10, category: '分子动力学' });

    fireEvent.click(screen.getByTestId('tpl-source-user'));
    await waitFor(() => expect(ids()).toEqual(['u-1']));
    expect(pageBodies().at(-1)).toEqual({ pageNum: 1, pageSize: 10, category: '分子动力学', source: 'user' });

    fireEvent.click(within(screen.getByTestId('tpl-category-filter')).getByLabelText('close-circle'));
    await waitFor(() => expect(ids()).toEqual(['u-1', 'u-2']));
    // A category the lists have shown is offered too.
    await choose('tpl-category-filter', '自定义类别');
    await waitFor(() => expect(ids()).toEqual(['u-2']));

    fireEvent.click(within(screen.getByTestId('tpl-category-filter')).getByLabelText('close-circle'));
    fireEvent.click(screen.getByTestId('tpl-source-all'));
    const search = within(screen.getByTestId('tpl-search')).getByRole('searchbox');
    fireEvent.change(search, { target: { value: 'NumPy' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    fireEvent.keyUp(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(ids()).toEqual([NUMPY_PI.id]));
    expect(pageBodies().at(-1)).toEqual({ pageNum: 1, pageSize: 10, keyword: 'NumPy' });

    fireEvent.change(search, { target: { value: '没有这个' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    expect(await screen.findByText('没有符合条件的模板')).toBeTruthy();
  });

  it('opens the task form with 使用此模板 and deletes an own template after confirming', async () => {
    const router = renderSlurm('/slurm-template');
    await waitFor(() => expect(rows()).toHaveLength(4));
    fireEvent.click(within(rows()[3]).getByTestId('tpl-delete'));
    await confirmPop('确定删除模板「我的后处理」吗？');
    await waitFor(() => expect(ids()).toEqual([NUMPY_PI.id, 'platform-lammps-melt', 'u-1']));
    expect(backend.templates.has('u-2')).toBe(false);

    fireEvent.click(within(rows()[0]).getByTestId('tpl-use'));
    await waitFor(() => expect(router.state.location.pathname + router.state.location.search).toBe(`/slurm-task/task/template?templateId=${NUMPY_PI.id}`));
    await waitFor(() => expect(screen.getByTestId('slurm-form-template').textContent).toContain('NumPy 蒙特卡洛求 π'));
  });
});
