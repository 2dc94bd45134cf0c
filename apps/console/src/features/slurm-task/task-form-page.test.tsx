import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { createFakeSlurm, NUMPY_PI } from './test/fake-slurm';
import { renderSlurm } from './test/render';
import { setupPageTests } from '../../test/page-test';
import { choose, errors, input } from '../../test/ui';

let backend: ReturnType<typeof createFakeSlurm>;
setupPageTests(() => (backend = createFakeSlurm()));

const submit = () => fireEvent.click(screen.getByTestId('slurm-form-submit'));
const created = () => backend.callsTo('/slurm/api/v1/tasks', 'POST');

describe('Slurm task form from a template', () => {
  it('renders the parameters as typed fields with the defaults and the suggested resources', async () => {
    renderSlurm(`/slurm-task/task/template?templateId=${NUMPY_PI.id}`);
    await screen.findByTestId('slurm-param-samples');

    // number → InputNumber, select → Select, text → Input, path → the storage path input with its picker.
    expect(screen.getByTestId('slurm-param-samples').closest('.ant-input-number')).toBeTruthy();
    await waitFor(() => expect(input('slurm-param-samples').value).toBe('2000000'));
    expect(screen.getByTestId('slurm-param-dtype').classList.contains('ant-select')).toBe(true);
    expect(screen.getByTestId('slurm-param-dtype').textContent).toBe('float64');
    expect(input('slurm-param-tag').value).toBe('');
    expect(input('slurm-param-result').value).toBe('');
    expect(screen.getByTestId('slurm-param-result-pick')).toBeTruthy();
    // Labels, description and range come from the template.
    const form = screen.getByTestId('slurm-form');
    expect(form.textContent).toContain('投点数');
    expect(form.textContent).toContain('随机点越多结果越准；范围：1000 - 100000000');

    // The template's suggested resources and a name from its own.
    await waitFor(() => expect(input('slurm-form-node-num').value).toBe('2'));
    expect(input('slurm-form-card-num').value).toBe('0');
    expect(input('slurm-form-duration').value).toBe('2');
    expect(input('slurm-form-name').value).toMatch(/^NumPy 蒙特卡洛求 π-\d{4}-\d{4}$/);
    expect(screen.getByTestId('slurm-form-center').textContent).toContain('无锡超算分中心');
    // 0 cards: the center's CPU type rather than its first (an accelerator).
    expect(screen.getByTestId('slurm-form-card-type').textContent).toContain('CPU 通用型');
    // The per-node bound follows the chosen card type's partition.
    expect(screen.getByTestId('slurm-form').textContent).toContain('最多 32 核');
  });

  it('names each parameter in its Chinese validation message', async () => {
    renderSlurm(`/slurm-task/task/template?templateId=${NUMPY_PI.id}`);
    await screen.findByTestId('slurm-param-samples');
    await waitFor(() => expect(input('slurm-form-node-num').value).toBe('2'));

    fireEvent.change(input('slurm-param-samples'), { target: { value: '' } });
    submit();
    await waitFor(() => expect(errors()).toEqual(['请输入投点数', '请输入运行标签']));

    fireEvent.change(input('slurm-param-samples'), { target: { value: '5' } });
    expect(await screen.findByText('投点数须在 1000 - 100000000 之间')).toBeTruthy();
    fireEvent.change(input('slurm-param-result'), { target: { value: 'results/pi.txt' } });
    expect(await screen.findByText('结果文件须以 / 开头（/ 表示个人目录）')).toBeTruthy();
    fireEvent.change(input('slurm-param-result'), { target: { value: '/../etc/passwd' } });
    expect(await screen.findByText('结果文件不能包含 ..')).toBeTruthy();

    submit();
    await waitFor(() => expect(errors()).toContain('请输入运行标签'));
    expect(created()).toHaveLength(0);
  });

  it('submits the typed values and opens the new task', async () => {
    const router = renderSlurm(`/slurm-task/task/template?templateId=${NUMPY_PI.id}`);
    await screen.findByTestId('slurm-param-samples');
    await waitFor(() => expect(input('slurm-form-node-num').value).toBe('2'));
    fireEvent.change(input('slurm-form-name'), { target: { value: '求π' } });
    fireEvent.change(input('slurm-param-samples'), { target: { value: '5000' } });
    await choose('slurm-param-dtype', 'float32');
    fireEvent.change(input('slurm-param-tag'), { target: { value: "it's 1" } });
    fireEvent.change(input('slurm-param-result'), { target: { value: '/results/pi.txt' } });
    fireEvent.click(screen.getByTestId('slurm-form-env-add'));
    fireEvent.change(screen.getByLabelText('环境变量名'), { target: { value: 'OMP_NUM_THREADS' } });
    fireEvent.change(screen.getByLabelText('环境变量值'), { target: { value: '4' } });
    submit();

    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/detail/template/100'));
    expect(created()[0].body).toEqual({
      name: '求π',
      type: 'template',
      templateId: NUMPY_PI.id,
      params: { samples: 5000, dtype: 'float32', tag: "it's 1", result: '/results/pi.txt' },
      subCenterId: 'hpc-a',
      cardTypeId: 'cpu-std',
      cardNum: 0,
      nodeNum: 2,
      env: [{ name: 'OMP_NUM_THREADS', value: '4' }],
      maxDurationMinutes: 120,
      clientRequestId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('sends a submission whose answer was lost again with the same id, and opens the one task it made', async () => {
    const router = renderSlurm(`/slurm-task/task/template?templateId=${NUMPY_PI.id}`);
    await screen.findByTestId('slurm-param-samples');
    await waitFor(() => expect(input('slurm-form-node-num').value).toBe('2'));
    fireEvent.change(input('slurm-param-tag'), { target: { value: 'x' } });
    fireEvent.change(input('slurm-param-result'), { target: { value: '/results/pi.txt' } });
    backend.faults.loseAnswers = 1;
    submit();
    await waitFor(() => expect(created()).toHaveLength(1));
    // The gateway made task 100, but the page never heard: it stays on the form.
    await waitFor(() => expect(screen.getByTestId('slurm-form-submit').classList.contains('ant-btn-loading')).toBe(false));
    expect(router.state.location.pathname).toBe('/slurm-task/task/template');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/detail/template/100'));
    expect(created()).toHaveLength(2);
    expect(created()[0].body.clientRequestId).toMatch(/^[0-9a-f]{32}$/);
    expect(created()[1].body.clientRequestId).toBe(created()[0].body.clientRequestId);
    expect([...backend.tasks.keys()]).toEqual(['100']);
  });

  it('asks for a template when none is given, and fills the form once one is chosen', async () => {
    renderSlurm('/slurm-task/task/template');
    await screen.findByTestId('slurm-form');
    submit();
    expect(await screen.findByText('请选择任务模板')).toBeTruthy();
    await choose('slurm-form-template', 'NumPy 蒙特卡洛求 π（通用计算）');
    await waitFor(() => expect(input('slurm-param-samples').value).toBe('2000000'));
    // A center with Slurm gets no note about running locally.
    expect(screen.queryByTestId('slurm-form-local')).toBeNull();
  });

  it('says when the center runs jobs on the platform itself instead of Slurm (the embedded default)', async () => {
    backend = createFakeSlurm({ schedulerKind: 'local' });
    vi.stubGlobal('fetch', vi.fn(backend.fetch));
    renderSlurm(`/slurm-task/task/template?templateId=${NUMPY_PI.id}`);
    const note = await screen.findByTestId('slurm-form-local');
    expect(note.textContent).toContain('未接入 Slurm 调度系统，作业由平台直接在本机运行');
    expect(note.textContent).toContain('SLURM_JOB_ID');
  });
});

describe('Slurm task form with a custom script', () => {
  it('starts from a runnable sbatch example and checks the interpreter line', async () => {
    const router = renderSlurm('/slurm-task/task/custom');
    await screen.findByTestId('slurm-form');
    const script = input('slurm-form-script');
    expect(script.value.startsWith('#!/bin/bash\n')).toBe(true);
    expect(script.value).toContain('#SBATCH --ntasks=1');
    await waitFor(() => expect(screen.getByTestId('slurm-form-card-type').textContent).toContain('CPU 通用型'));

    fireEvent.change(script, { target: { value: 'echo hi' } });
    expect(await screen.findByText('脚本第一行必须以 #! 开头（如 #!/bin/bash）')).toBeTruthy();
    fireEvent.change(script, { target: { value: '#!/bin/bash\necho hi\n' } });
    fireEvent.change(input('slurm-form-name'), { target: { value: '自定义作业' } });
    fireEvent.change(input('slurm-form-workdir'), { target: { value: '/results' } });
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/slurm-task/detail/custom/100'));
    expect(created()[0].body).toEqual({
      name: '自定义作业',
      type: 'custom',
      script: '#!/bin/bash\necho hi\n',
      subCenterId: 'hpc-a',
      cardTypeId: 'cpu-std',
      cardNum: 0,
      nodeNum: 1,
      workDir: '/results',
      env: [],
      maxDurationMinutes: 60,
      clientRequestId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });
});
