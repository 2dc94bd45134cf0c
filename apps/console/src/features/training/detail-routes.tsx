/** A training task's detail (/training/detail/:type/:id): its own chunk (log, curves, register as model). */
export { TrainingDetailPage } from './training-detail-page';
/** 任务对比 (/training/compare?ids=…): beside the detail, it draws curves with the same chart. */
export { TrainingComparePage } from './compare-page';
