/** The Slurm template route group (/slurm-template, form, form/:id); Shell工具 is features/eshell. */
export { SlurmTemplateFormPage } from './template-form-page';
export { SlurmTemplateListPage as SlurmTemplatePage } from './template-list-page';
