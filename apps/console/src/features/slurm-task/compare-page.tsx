import { TaskComparePage, type CompareFamily } from '../training/compare-page';
import { resourcesText } from '../slurm-template/template-view';
import { isSlurmType, LIST_PATH, SLURM, SLURM_TYPE_LABELS } from './task-view';

const SLURM_FAMILY: CompareFamily = {
  family: SLURM,
  // A Slurm task has no image or mounts; its script is what is compared (with its #SBATCH lines).
  kind: { cards: resourcesText, commandLabel: '作业脚本', training: false },
  listPath: () => LIST_PATH,
  typeLabel: (type) => (isSlurmType(type) ? SLURM_TYPE_LABELS[type] : 'Slurm '),
};

/** 任务对比 of Slurm tasks (/slurm-task/compare?ids=…): the training page's comparison on this family. */
export function SlurmTaskComparePage() {
  return <TaskComparePage of={SLURM_FAMILY} />;
}
