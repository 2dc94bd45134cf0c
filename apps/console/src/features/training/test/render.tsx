import { renderRoutes } from '../../../test/render-routes';
import { TrainingComparePage, TrainingDetailPage } from '../detail-routes';
import { TrainingTaskPage } from '../form-routes';
import { TrainingDevelopPage, TrainingDistributedPage, TrainingListPage } from '../routes';

/** The training routes, opened at `url`. */
export function renderTraining(url: string) {
  return renderRoutes(
    {
      '/training': <TrainingListPage />,
      '/training/develop': <TrainingDevelopPage />,
      '/training/distributed': <TrainingDistributedPage />,
      '/training/task/:type': <TrainingTaskPage />,
      '/training/detail/:type/:id': <TrainingDetailPage />,
      '/training/compare': <TrainingComparePage />,
    },
    url,
  );
}
