/** The training create form (/training/task/:type): a chunk of its own, loaded when a task is created. */
export { TrainingTaskPage } from './training-form-page';
