import type { TrainingTaskCreate } from '@suanli/contracts';

/**
 * A valid 创建训练任务 form on the default centers file (config/centers.yaml): one A100 card at sz-a100 with the
 * PyTorch image, working in `/work`, at most 10 minutes. Tests give what their case is about (`name`, `command`,
 * a center, mounts…) and keep the rest.
 */
export const trainingForm = (over: Partial<TrainingTaskCreate> = {}): TrainingTaskCreate => ({
  name: '测试任务',
  type: 'train',
  subCenterId: 'sz-a100',
  cardTypeId: 'a100-80g',
  cardNum: 1,
  nodeNum: 1,
  imageId: 'pytorch-2.3-cuda12',
  command: 'echo hello',
  workDir: '/work',
  env: [],
  maxDurationMinutes: 10,
  ...over,
});
