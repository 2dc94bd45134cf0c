import { renderRoutes } from '../../../test/render-routes';
import { SlurmTemplateFormPage, SlurmTemplatePage } from '../../slurm-template/routes';
import { SlurmTaskComparePage, SlurmTaskDetailPage, SlurmTaskFormPage, SlurmTaskListPage } from '../routes';

/** The 科学计算 routes (templates and tasks), opened at `url`. */
export function renderSlurm(url: string) {
  return renderRoutes(
    {
      '/slurm-template': <SlurmTemplatePage />,
      '/slurm-template/form': <SlurmTemplateFormPage />,
      '/slurm-template/form/:id': <SlurmTemplateFormPage />,
      '/slurm-task': <SlurmTaskListPage />,
      '/slurm-task/task/:type': <SlurmTaskFormPage />,
      '/slurm-task/detail/:type/:id': <SlurmTaskDetailPage />,
      '/slurm-task/compare': <SlurmTaskComparePage />,
    },
    url,
  );
}
