/**
 * 任务模板 calls (docs/plan/9.md), one function per call, through the route descriptors (SlurmApi). Platform
 * templates are read-only: the server refuses changes to them (2102).
 */
import { SlurmApi, type SlurmTemplate, type SlurmTemplatePage, type SlurmTemplateSave, type TemplatePageQuery } from '@suanli/contracts';
import { call } from '../../app/request';

export function pageTemplates(query: TemplatePageQuery): Promise<SlurmTemplatePage> {
  return call(SlurmApi.templatePage, { body: query });
}

/** `silent`: the caller copes with a missing template itself (a task's template may have been deleted). */
export function getTemplate(id: string, opts: { silent?: boolean } = {}): Promise<SlurmTemplate> {
  return call(SlurmApi.template, { params: { id } }, { silent: opts.silent });
}

export function createTemplate(body: SlurmTemplateSave): Promise<SlurmTemplate> {
  return call(SlurmApi.createTemplate, { body });
}

export function updateTemplate(id: string, body: SlurmTemplateSave): Promise<SlurmTemplate> {
  return call(SlurmApi.updateTemplate, { params: { id }, body });
}

export function deleteTemplate(id: string): Promise<null> {
  return call(SlurmApi.removeTemplate, { params: { id } });
}
