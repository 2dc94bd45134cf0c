import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeSlurm, NUMPY_PI, template } from '../slurm-task/test/fake-slurm';
import { renderSlurm } from '../slurm-task/test/render';
import { setupPageTests } from '../../test/page-test';
import { choose, errors, input } from '../../test/ui';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

const submit = () => fireEvent.click(screen.getByTestId('tpl-form-submit'));
const paramRows = () => screen.getAllByTestId('tpl-param-row');
const saves = (method: string) => backend.calls.filter((c) => c.method === method && /\/slurm\/api\/v1\/templates(\/[^/]+)?$/.test(c.url.pathname) && !c.url.pathname.endsWith('/action/page'));

describe('Slurm template form', () => {
  it('checks the script, parameter names, options and defaults in Chinese before saving', async () => {
    renderSlurm('/slurm-template/form');
    await screen.findByTestId('tpl-form');
    // A new template starts from a runnable script with its one parameter declared.
    expect(input('tpl-form-script').value).toContain('{{steps}}');
    expect(paramRows()).toHaveLength(1);
    expect(screen.getByTestId('tpl-form-placeholders').textContent).toBe('脚本引用的参数：{{steps}}');

    fireEvent.change(input('tpl-form-script'), { target: { value: 'echo {{steps}} {{size}}' } });
    submit();
    await waitFor(() => expect(errors()).toEqual(['请输入模板名称', '脚本第一行必须以 #! 开头（如 #!/bin/bash）']));
    fireEvent.change(input('tpl-form-script'), { target: { value: '#!/bin/bash\necho {{steps}} {{size}}\n' } });
    fireEvent.change(input('tpl-form-name'), { target: { value: '矩阵计算' } });
    submit();
    expect(await screen.findByText('脚本中的 {{size}} 未在参数中声明')).toBeTruthy();

    // A second parameter: same name first, then a select without options, a default outside them.
    fireEvent.click(screen.getByTestId('tpl-param-add'));
    const row = paramRows()[1];
    fireEvent.change(input('tpl-param-name', row), { target: { value: 'steps' } });
    expect(await within(row).findByText('参数名 steps 重复')).toBeTruthy();
    fireEvent.change(input('tpl-param-name', row), { target: { value: '9size' } });
    expect(await within(row).findByText('参数名只能包含字母、数字和下划线，不能以数字开头，最长32个字符')).toBeTruthy();
    fireEvent.change(input('tpl-param-name', row), { target: { value: 'size' } });
    // Declaring {{size}} settles the script's message without another submit.
    await waitFor(() => expect(errors()).not.toContain('脚本中的 {{size}} 未在参数中声明'));
    fireEvent.change(input('tpl-param-label', row), { target: { value: '矩阵阶数' } });
    await choose('tpl-param-type', '下拉选择', row);
    await within(row).findByTestId('tpl-param-options');
    submit();
    await waitFor(() => expect(errors()).toContain('下拉选择参数至少需要一个选项'));
    expect(saves('POST')).toHaveLength(0);
  });

  it('saves a template with typed parameters (a number default as a number)', async () => {
    const router = renderSlurm('/slurm-template/form');
    await screen.findByTestId('tpl-form');
    fireEvent.change(input('tpl-form-name'), { target: { value: '矩阵计算' } });
    fireEvent.change(input('tpl-form-category'), { target: { value: '通用计算' } });
    fireEvent.change(input('tpl-form-script'), { target: { value: '#!/bin/bash\necho {{steps}} {{out}}\n' } });
    fireEvent.click(screen.getByTestId('tpl-param-add'));
    const row = paramRows()[1];
    fireEvent.change(input('tpl-param-name', row), { target: { value: 'out' } });
    fireEvent.change(input('tpl-param-label', row), { target: { value: '输出目录' } });
    await choose('tpl-param-type', '路径', row);
    await waitFor(() => expect(input('tpl-param-default', row).placeholder).toBe('例如 /results'));
    fireEvent.click(input('tpl-param-required', row));
    fireEvent.change(input('tpl-param-default', row), { target: { value: 'results' } });
    expect(await within(row).findByText('默认路径须以 / 开头（/ 表示个人目录）')).toBeTruthy();
    fireEvent.change(input('tpl-param-default', row), { target: { value: '/results' } });
    fireEvent.change(input('tpl-form-node-num'), { target: { value: '2' } });
    submit();

    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-template'));
    expect(saves('POST')[0].body).toEqual({
      name: '矩阵计算',
      description: '',
      category: '通用计算',
      script: '#!/bin/bash\necho {{steps}} {{out}}\n',
      params: [
        { name: 'steps', label: '步数', type: 'number', required: true, default: 5, min: 1, max: 600, description: '循环次数，每步 1 秒' },
        { name: 'out', label: '输出目录', type: 'path', required: false, default: '/results' },
      ],
      defaults: { cardNum: 0, nodeNum: 2, maxDurationMinutes: 60 },
    });
    await waitFor(() => expect(screen.getAllByTestId('tpl-row').map((r) => r.getAttribute('data-id'))).toContain('tpl-100'));
  });

  it('edits an own template in place and sends platform ones to a copy', async () => {
    backend.putTemplate(template('u-1', { name: '我的模板', script: '#!/bin/bash\necho {{n}}\n', params: [{ name: 'n', label: '次数', type: 'number', required: true, default: 3 }] }));
    const router = renderSlurm('/slurm-template/form/u-1');
    await waitFor(() => expect(input('tpl-form-name').value).toBe('我的模板'));
    expect(input('tpl-param-name').value).toBe('n');
    expect(input('tpl-param-default').value).toBe('3');
    fireEvent.change(input('tpl-form-name'), { target: { value: '我的模板 v2' } });
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-template'));
    expect(saves('PUT')[0].url.pathname).toMatch(/\/templates\/u-1$/);
    expect(saves('PUT')[0].body).toMatchObject({ name: '我的模板 v2', params: [{ name: 'n', label: '次数', type: 'number', required: true, default: 3 }] });

    await router.navigate(`/slurm-template/form/${NUMPY_PI.id}`);
    expect(await screen.findByText('平台模板为只读')).toBeTruthy();
    fireEvent.click(screen.getByText('复制为我的模板'));
    await waitFor(() => expect(input('tpl-form-name').value).toBe('NumPy 蒙特卡洛求 π-副本'));
    expect(router.state.location.search).toBe(`?from=${NUMPY_PI.id}`);
    expect(paramRows()).toHaveLength(4);
  });
});
