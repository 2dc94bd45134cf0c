/** The work-order route group (/workorder, /workorder/detail/:id). */
export { WorkorderDetailPage } from './workorder-detail-page';
export { WorkorderListPage as WorkorderPage } from './workorder-list-page';
