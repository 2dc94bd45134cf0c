/** A training task's detail (/training/detail/:type/:id): its own chunk (log, curves, register as model). */
export { TrainingDetailPage } from './training-detail-page';
