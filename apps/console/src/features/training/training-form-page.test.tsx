import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ErrorCode } from '@suanli/contracts';
import { describe, expect, it } from 'vitest';
import { createFakeTraining, PRIVATE_IMAGES, task } from './test/fake-training';
import { renderTraining } from './test/render';
import { DatasetDetailPage } from '../dataset/routes';
import { ModelDetailPage } from '../model/routes';
import { renderRoutes } from '../../test/render-routes';
import { TrainingDetailPage } from './detail-routes';
import { TrainingTaskPage } from './form-routes';
import { setupPageTests } from '../../test/page-test';
import { choose, errors, input } from '../../test/ui';

let backend: ReturnType<typeof createFakeTraining>;
setupPageTests(() => (backend = createFakeTraining()));

const submit = () => fireEvent.click(screen.getByTestId('training-form-submit'));

describe('training task form', () => {
  it('names each missing field in Chinese', async () => {
    renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    submit();
    await waitFor(() => expect(errors()).toEqual(['请输入任务名称', '请选择卡型', '请选择镜像', '请输入启动命令']));

    fireEvent.change(input('training-form-name'), { target: { value: '   ' } });
    expect(await screen.findByText('任务名称不能为空白字符')).toBeTruthy();
    fireEvent.change(input('training-form-workdir'), { target: { value: 'code' } });
    expect(await screen.findByText('工作目录须以 / 开头（/ 表示个人目录）')).toBeTruthy();

    fireEvent.click(screen.getByTestId('training-form-env-add'));
    const envName = within(screen.getByTestId('training-form-env-row')).getByLabelText('环境变量名');
    fireEvent.change(envName, { target: { value: 'SUANLI_METRICS_FILE' } });
    expect(await screen.findByText('环境变量 SUANLI_METRICS_FILE 由平台设置，不能自定义')).toBeTruthy();
    fireEvent.change(envName, { target: { value: '1ABC' } });
    expect(await screen.findByText('环境变量名只能包含字母、数字和下划线，不能以数字开头，最长64个字符')).toBeTruthy();

    fireEvent.change(input('training-form-duration'), { target: { value: '20000' } });
    fireEvent.blur(input('training-form-duration'));
    submit();
    expect(await screen.findByText('最长运行时长不能超过 7 天')).toBeTruthy();
    expect(backend.callsTo('/training/api/v1/tasks', 'POST')).toHaveLength(0);
  });

  it('shows where 智能调度 places the task and why, then submits and opens the detail', async () => {
    const router = renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    await waitFor(() => expect(backend.callsTo('/sub-centers/action/list')).not.toHaveLength(0));
    fireEvent.change(input('training-form-name'), { target: { value: '图像分类' } });
    await choose('training-form-card-type', 'NVIDIA A100 80G');

    const reason = await screen.findByTestId('training-placement-reason');
    expect(reason.textContent).toBe('智能调度：深圳算力分中心现有 30 张空闲的NVIDIA A100 80G，可立即满足 1 张的需求');
    expect(screen.getByTestId('training-placement-center').textContent).toBe('深圳算力分中心');
    expect(backend.callsTo('/placement', 'POST').at(-1)!.body).toEqual({ cardTypeId: 'a100-80g', cardNum: 1, nodeNum: 1 });
    // 工作目录 left empty: the task gets a folder of its own, which the field says.
    expect(input('training-form-workdir').value).toBe('');
    expect(input('training-form-workdir').placeholder).toBe('留空则新建本任务自己的目录 /tasks/<名称>-<编号>');

    // Only images that run on the card's vendor are offered.
    await choose('training-form-image', 'PyTorch 2.3 (CUDA 12.1)');
    expect(document.querySelector('.ant-select-item-option[title="MindSpore"]')).toBeNull();
    expect(backend.callsTo('/images').at(-1)!.url.searchParams.get('cardTypeId')).toBe('a100-80g');

    fireEvent.change(input('training-form-command'), { target: { value: 'python train.py' } });
    fireEvent.click(screen.getByTestId('training-form-env-add'));
    const row = screen.getByTestId('training-form-env-row');
    fireEvent.change(within(row).getByLabelText('环境变量名'), { target: { value: 'EPOCHS' } });
    fireEvent.change(within(row).getByLabelText('环境变量值'), { target: { value: '3' } });
    submit();

    await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
    expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toEqual({
      name: '图像分类',
      type: 'train',
      subCenterId: 'auto',
      cardTypeId: 'a100-80g',
      cardNum: 1,
      nodeNum: 1,
      imageId: 'pytorch-2.3-cuda12',
      command: 'python train.py',
      env: [{ name: 'EPOCHS', value: '3' }],
      maxDurationMinutes: 60,
      mounts: [],
      clientRequestId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('付费方: 个人 by default (nothing sent); a team the user belongs to is sent as payerTeamId', async () => {
    const router = renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    expect(screen.getByTestId('training-form-payer').textContent).toContain('个人');
    await waitFor(() => expect(backend.callsTo('/sub-centers/action/list')).not.toHaveLength(0));
    fireEvent.change(input('training-form-name'), { target: { value: '团队付费' } });
    await choose('training-form-card-type', 'NVIDIA A100 80G');
    await screen.findByTestId('training-placement-reason');
    await choose('training-form-image', 'PyTorch 2.3 (CUDA 12.1)');
    fireEvent.change(input('training-form-command'), { target: { value: 'python train.py' } });
    await choose('training-form-payer', '团队：蛋白质组（成员）');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
    expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toMatchObject({ name: '团队付费', payerTeamId: 'tm1' });
  });

  it('prefills 复制并重新提交 from the old task and keeps its center', async () => {
    backend.put(task('7', { name: '旧任务', subCenterId: 'gz-ascend', subCenterName: '广州算力分中心', cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'python ms.py', workDir: '/code', maxDurationMinutes: 180, cardNum: 4 }));
    const router = renderTraining('/training/task/train?from=7');
    await screen.findByTestId('training-form');
    await waitFor(() => expect(input('training-form-name').value).toBe('旧任务-副本'));
    expect(input('training-form-command').value).toBe('python ms.py');
    expect(input('training-form-workdir').value).toBe('/code');
    expect(screen.getByTestId('training-form-center').textContent).toContain('广州算力分中心');
    // A chosen center needs no placement preview.
    expect(screen.queryByTestId('training-placement')).toBeNull();
    await waitFor(() => expect(screen.getByTestId('training-form-image').textContent).toContain('MindSpore 2.3 (CANN 8.0)'));
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
    expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toMatchObject({
      name: '旧任务-副本',
      subCenterId: 'gz-ascend',
      cardTypeId: 'ascend-910b',
      cardNum: 4,
      imageId: 'mindspore-2.3-cann8',
      env: [{ name: 'EPOCHS', value: '3' }],
      maxDurationMinutes: 180,
    });
  });

  it('复制并重新提交 keeps 付费方: the old task\'s team is chosen and sent again', async () => {
    backend.put(task('7', { name: '团队任务', payerTeamId: 'tm1' }));
    const router = renderTraining('/training/task/train?from=7');
    await waitFor(() => expect(input('training-form-name').value).toBe('团队任务-副本'));
    await waitFor(() => expect(screen.getByTestId('training-form-payer').textContent).toContain('团队：蛋白质组（成员）'));
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
    expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toMatchObject({ name: '团队任务-副本', payerTeamId: 'tm1' });
  });

  it('复制并重新提交 of a personally paid task stays 个人; of a team the user has left names it so', async () => {
    backend.put(task('7', { name: '个人任务', payerTeamId: null }));
    renderTraining('/training/task/train?from=7');
    await waitFor(() => expect(input('training-form-name').value).toBe('个人任务-副本'));
    expect(screen.getByTestId('training-form-payer').textContent).toContain('个人');
    cleanup();

    backend.put(task('8', { name: '旧团队任务', payerTeamId: 'gone' }));
    renderTraining('/training/task/train?from=8');
    await waitFor(() => expect(input('training-form-name').value).toBe('旧团队任务-副本'));
    await waitFor(() => expect(screen.getByTestId('training-form-payer').textContent).toContain('原付费团队（您已不是该团队成员，请改选）'));
    expect(screen.getByTestId('training-form-payer').textContent).not.toContain('gone');
  });

  it('a copy of a task that ran in its own folder gets a folder of its own again', async () => {
    backend.put(task('7', { name: '旧任务', subCenterId: 'gz-ascend', subCenterName: '广州算力分中心', cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'python ms.py', workDir: '/tasks/旧任务-7' }));
    renderTraining('/training/task/train?from=7');
    await waitFor(() => expect(input('training-form-name').value).toBe('旧任务-副本'));
    expect(input('training-form-command').value).toBe('python ms.py');
    expect(input('training-form-workdir').value).toBe('');
  });

  describe('a submission whose answer is lost (network error)', () => {
    /** The copy form of an old task: every field filled, ready to submit. */
    const ready = async () => {
      backend.put(task('7', { name: '旧任务', subCenterId: 'gz-ascend', subCenterName: '广州算力分中心', cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'python ms.py' }));
      const router = renderTraining('/training/task/train?from=7');
      await waitFor(() => expect(screen.getByTestId('training-form-image').textContent).toContain('MindSpore 2.3 (CANN 8.0)'));
      return router;
    };
    const posts = () => backend.callsTo('/training/api/v1/tasks', 'POST');

    it('is sent again with the same id when the user retries, and opens the one task it made', async () => {
      const router = await ready();
      backend.faults.loseAnswers = 1;
      submit();
      await waitFor(() => expect(posts()).toHaveLength(1));
      // The gateway made task 100, but the page never heard: it stays on the form.
      await waitFor(() => expect(screen.getByTestId('training-form-submit').closest('button')!.classList.contains('ant-btn-loading')).toBe(false));
      expect(router.state.location.pathname).toBe('/training/task/train');
      submit();
      await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
      expect(posts()).toHaveLength(2);
      expect(posts()[0].body.clientRequestId).toMatch(/^[0-9a-f]{32}$/);
      expect(posts()[1].body.clientRequestId).toBe(posts()[0].body.clientRequestId);
      expect([...backend.tasks.keys()].sort()).toEqual(['100', '7']);
    });

    it('a form changed after the failure is a new submission with a new id', async () => {
      const router = await ready();
      backend.faults.loseAnswers = 1;
      submit();
      await waitFor(() => expect(posts()).toHaveLength(1));
      await waitFor(() => expect(screen.getByTestId('training-form-submit').closest('button')!.classList.contains('ant-btn-loading')).toBe(false));
      fireEvent.change(input('training-form-name'), { target: { value: '改过的任务' } });
      submit();
      await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/101'));
      expect(posts()[1].body).toMatchObject({ name: '改过的任务' });
      expect(posts()[1].body.clientRequestId).toMatch(/^[0-9a-f]{32}$/);
      expect(posts()[1].body.clientRequestId).not.toBe(posts()[0].body.clientRequestId);
    });
  });

  it('a submission refused for lack of compute power (2507) says why and links to 购买算力', async () => {
    backend.put(task('7', { name: '旧任务', subCenterId: 'gz-ascend', subCenterName: '广州算力分中心', cardTypeId: 'ascend-910b', imageId: 'mindspore-2.3-cann8', command: 'python ms.py' }));
    const router = renderTraining('/training/task/train?from=7');
    await waitFor(() => expect(screen.getByTestId('training-form-image').textContent).toContain('MindSpore 2.3 (CANN 8.0)'));
    const text = '算力不足：广州算力分中心 昇腾 910B 剩余 0.00 卡时，本任务（1 卡）每个计费周期（1 分钟）需 0.02 卡时，请先购买算力';
    backend.faults.refuse = { code: ErrorCode.COMP_POWER_INSUFFICIENT, message: text };
    submit();
    await waitFor(() => expect(screen.getByTestId('training-form-underpowered').textContent).toContain(text));
    expect(router.state.location.pathname).toBe('/training/task/train');
    // 购买算力 is the console's buy page (/console/pay under the app's basename).
    expect(screen.getByTestId('training-form-buy').closest('a')!.getAttribute('href')).toBe('/pay');
  });

  it('mounts a chosen dataset version (数据集) read-only', async () => {
    const router = renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    fireEvent.change(input('training-form-name'), { target: { value: '带数据' } });
    await choose('training-form-card-type', 'NVIDIA A100 80G');
    await screen.findByTestId('training-placement-reason');
    await choose('training-form-image', 'PyTorch 2.3 (CUDA 12.1)');
    fireEvent.change(input('training-form-command'), { target: { value: 'python train.py' } });
    await choose('mount-dataset', 'MNIST v1 · 2.00 KB');
    submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
    expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toMatchObject({ mounts: [{ kind: 'dataset', assetId: 'ds1', versionId: 'v1' }] });
  });

  describe('用于训练 on a dataset or model page', () => {
    const renderFrom = (url: string) =>
      renderRoutes(
        {
          '/dataset/detail/:id': <DatasetDetailPage />,
          '/model/detail/:id': <ModelDetailPage />,
          '/training/task/:type': <TrainingTaskPage />,
          '/training/detail/:type/:id': <TrainingDetailPage />,
        },
        url,
      );
    const picked = (kind: string) => [...screen.getByTestId(`mount-${kind}`).querySelectorAll('.ant-select-selection-item')].map((e) => e.textContent);

    it('opens the form with the version of that row (an older one of a shared dataset) in 数据集, and submits it mounted', async () => {
      const router = renderFrom('/dataset/detail/ds2');
      const rows = await screen.findAllByTestId('asset-version-train');
      expect(rows).toHaveLength(2);
      fireEvent.click(rows[1]); // versions are newest first: this is v1
      await screen.findByTestId('training-form');
      expect(router.state.location.pathname).toBe('/training/task/train');
      expect(new URLSearchParams(router.state.location.search).get('dataset')).toBe('ds2:c1');
      await waitFor(() => expect(picked('dataset')).toEqual(['CIFAR v1（bob 共享） · 2.00 KB']));
      expect(picked('model')).toEqual([]);
      // A shared (not public) asset is already in the caller's list: nothing is added.
      expect(backend.calls.some((c) => c.url.pathname.endsWith('/add-to-mine'))).toBe(false);

      fireEvent.change(input('training-form-name'), { target: { value: '用共享数据' } });
      await choose('training-form-card-type', 'NVIDIA A100 80G');
      await screen.findByTestId('training-placement-reason');
      await choose('training-form-image', 'PyTorch 2.3 (CUDA 12.1)');
      fireEvent.change(input('training-form-command'), { target: { value: 'python train.py' } });
      submit();
      await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
      expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toMatchObject({ mounts: [{ kind: 'dataset', assetId: 'ds2', versionId: 'c1' }] });
    });

    it('opens the form from the own model page\'s header with the newest ready version in 模型', async () => {
      const router = renderFrom('/model/detail/m1');
      fireEvent.click(await screen.findByTestId('asset-use-for-training'));
      await screen.findByTestId('training-form');
      expect(new URLSearchParams(router.state.location.search).get('model')).toBe('m1:mv2');
      await waitFor(() => expect(picked('model')).toEqual(['ResNet v2 · 4.00 KB']));
      expect(picked('dataset')).toEqual([]);
    });
  });

  it('offers the caller\'s private images in their own group, for any card type', async () => {
    PRIVATE_IMAGES.push({ id: 'alice/app:v1', name: 'alice/app:v1', framework: '', version: 'v1', accelerator: '', cardVendors: [], uri: 'docker://r/alice/app:v1', description: '私有镜像', visibility: 'private', owner: 'alice' });
    try {
      const router = renderTraining('/training/task/train');
      await screen.findByTestId('training-form');
      fireEvent.change(input('training-form-name'), { target: { value: '私有镜像' } });
      await choose('training-form-card-type', 'NVIDIA A100 80G');
      await screen.findByTestId('training-placement-reason');
      await choose('training-form-image', 'alice/app:v1');
      const groups = [...document.querySelectorAll('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-group')].map((g) => g.textContent);
      expect(groups).toEqual(['公共镜像', '我的私有镜像']);
      fireEvent.change(input('training-form-command'), { target: { value: 'python train.py' } });
      submit();
      await waitFor(() => expect(router.state.location.pathname).toBe('/training/detail/train/100'));
      expect(backend.callsTo('/training/api/v1/tasks', 'POST')[0].body).toMatchObject({ imageId: 'alice/app:v1' });
    } finally {
      PRIVATE_IMAGES.length = 0;
    }
  });

  it('picks the work directory from the center storage', async () => {
    renderTraining('/training/task/train');
    await screen.findByTestId('training-form');
    await waitFor(() => expect(screen.getByTestId('training-form-workdir-pick').hasAttribute('disabled')).toBe(false));
    fireEvent.click(screen.getByTestId('training-form-workdir-pick'));
    const node = await waitFor(() => {
      const el = document.querySelector('[data-testid="storage-picker-node"][data-path="/code"]');
      expect(el).toBeTruthy();
      return el as HTMLElement;
    });
    fireEvent.click(node);
    fireEvent.click(screen.getByTestId('storage-picker-ok'));
    await waitFor(() => expect(input('training-form-workdir').value).toBe('/code'));
  });

  it('asks distributed tasks for nodes × cards of at least 2', async () => {
    renderTraining('/training/task/distributed');
    await screen.findByTestId('training-form');
    expect(input('training-form-node-num').value).toBe('2');
    fireEvent.change(input('training-form-node-num'), { target: { value: '1' } });
    fireEvent.blur(input('training-form-node-num'));
    submit();
    await waitFor(() => expect(errors()).toContain('分布式训练至少需要 2 个工作进程（节点数 × 每节点卡数 ≥ 2）'));
  });
});
