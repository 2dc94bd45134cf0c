/** The team route group (/team, /team/detail/:id). */
export { TeamDetailPage } from './team-detail-page';
export { TeamListPage } from './team-list-page';
