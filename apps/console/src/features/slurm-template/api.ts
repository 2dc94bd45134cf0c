/**
 * 任务模板 calls (docs/plan/9.md, base SLURM_BASE), one function per call, through the console's one
 * request pipeline. Platform templates are read-only: the server refuses changes to them (2102).
 */
import { SLURM_BASE, type Page, type SlurmTemplate, type SlurmTemplateSave, type TemplatePageQuery } from '@suanli/contracts';
import { request } from '../../app/request';

const templateUrl = (id: string) => `${SLURM_BASE}/templates/${encodeURIComponent(id)}`;

export function pageTemplates(query: TemplatePageQuery): Promise<Page<SlurmTemplate>> {
  return request.post<Page<SlurmTemplate>>(`${SLURM_BASE}/templates/action/page`, { data: query });
}

/** `silent`: the caller copes with a missing template itself (a task's template may have been deleted). */
export function getTemplate(id: string, opts: { silent?: boolean } = {}): Promise<SlurmTemplate> {
  return request.get<SlurmTemplate>(templateUrl(id), { silent: opts.silent });
}

export function createTemplate(body: SlurmTemplateSave): Promise<SlurmTemplate> {
  return request.post<SlurmTemplate>(`${SLURM_BASE}/templates`, { data: body });
}

export function updateTemplate(id: string, body: SlurmTemplateSave): Promise<SlurmTemplate> {
  return request.put<SlurmTemplate>(templateUrl(id), { data: body });
}

export function deleteTemplate(id: string): Promise<null> {
  return request.delete<null>(templateUrl(id));
}
