import { renderRoutes } from '../../../test/render-routes';
import { TrainingDetailPage, TrainingDevelopPage, TrainingDistributedPage, TrainingListPage, TrainingTaskPage } from '../routes';

/** The training routes, opened at `url`. */
export function renderTraining(url: string) {
  return renderRoutes(
    {
      '/training': <TrainingListPage />,
      '/training/develop': <TrainingDevelopPage />,
      '/training/distributed': <TrainingDistributedPage />,
      '/training/task/:type': <TrainingTaskPage />,
      '/training/detail/:type/:id': <TrainingDetailPage />,
    },
    url,
  );
}
