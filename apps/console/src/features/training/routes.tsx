/** The training route group (/training, develop, distributed, task/:type, detail/:type/:id). */
export { TrainingDetailPage } from './training-detail-page';
export { TrainingTaskPage } from './training-form-page';
export { TrainingDevelopPage, TrainingDistributedPage, TrainingListPage } from './training-list-page';
