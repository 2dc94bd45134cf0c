/** The Slurm task route group (/slurm-task, task/:type, detail/:type/:id). */
export { SlurmTaskComparePage } from './compare-page';
export { SlurmTaskDetailPage } from './task-detail-page';
export { SlurmTaskFormPage } from './task-form-page';
export { SlurmTaskListPage } from './task-list-page';
