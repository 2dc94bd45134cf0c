/** The training lists (/training, develop, distributed): the page most users see right after signing in. */
export { TrainingDevelopPage, TrainingDistributedPage, TrainingListPage } from './training-list-page';
