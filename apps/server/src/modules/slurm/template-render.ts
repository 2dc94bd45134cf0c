import path from 'node:path';
import { ErrorCode, type SlurmTemplateSave, type TemplateParam } from '@suanli/contracts';
import { AppError, invalid } from '../../errors';
import { parseUserPath } from '../../center-storage/center-storage';

/**
 * Slurm templates are sbatch scripts with `{{name}}` placeholders, each declared as a typed parameter
 * (design/domain.md, 任务模板). Pure functions: checking a template before it is stored, and rendering it
 * with a user's values into the script the scheduler runs.
 */

export type ParamValue = string | number;
export type ParamValues = Record<string, ParamValue>;

/** `{{name}}`, spaces inside the braces allowed (`{{ name }}`). */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The names the script refers to, in order of first use. */
export function placeholders(script: string): string[] {
  const seen = new Set<string>();
  for (const m of script.matchAll(PLACEHOLDER)) seen.add(m[1]);
  return [...seen];
}

/** sbatch runs only scripts that name their interpreter. */
export function checkScript(script: string, field: string) {
  if (!script.startsWith('#!')) throw invalid(field, '脚本第一行必须以 #! 开头（如 #!/bin/bash）');
  if (script.includes('\0')) throw invalid(field, '脚本中不能包含空字符');
}

/** A bash word that is exactly `s`: single quotes, each `'` written as `'\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The rules of a template beyond its schema, each failure a 1005 naming the field: parameter names unique,
 * every placeholder declared, select fields with options, defaults of the declared type and inside the range.
 */
export function validateTemplate(t: Pick<SlurmTemplateSave, 'name' | 'script' | 'params'>) {
  if (!t.name.trim()) throw invalid('name', '模板名称不能为空');
  checkScript(t.script, 'script');
  const names = new Set<string>();
  t.params.forEach((p, i) => {
    const field = `params[${i}]`;
    if (names.has(p.name)) throw invalid(`${field}.name`, `参数名 ${p.name} 重复`);
    names.add(p.name);
    if (!p.label.trim()) throw invalid(`${field}.label`, `参数 ${p.name} 的显示名称不能为空`);
    if (p.type !== 'number' && (p.min !== undefined || p.max !== undefined)) throw invalid(`${field}.min`, `只有数值参数可以设置取值范围（${p.name}）`);
    if (p.type !== 'select' && p.options !== undefined) throw invalid(`${field}.options`, `只有下拉选择参数可以设置选项（${p.name}）`);
    if (p.type === 'number' && p.min !== undefined && p.max !== undefined && p.min > p.max) {
      throw invalid(`${field}.min`, `参数 ${p.name} 的最小值 ${p.min} 大于最大值 ${p.max}`);
    }
    if (p.type === 'select') {
      if (!p.options?.length) throw invalid(`${field}.options`, `下拉选择参数 ${p.name} 至少需要一个选项`);
      if (new Set(p.options).size !== p.options.length) throw invalid(`${field}.options`, `参数 ${p.name} 的选项重复`);
    }
    if (p.default === undefined || p.default === '') return;
    const dfield = `${field}.default`;
    switch (p.type) {
      case 'number': {
        const n = typeof p.default === 'number' ? p.default : Number(p.default);
        if (!Number.isFinite(n)) throw invalid(dfield, `参数 ${p.name} 的默认值应为数字`);
        if ((p.min !== undefined && n < p.min) || (p.max !== undefined && n > p.max)) throw invalid(dfield, `参数 ${p.name} 的默认值 ${n} 超出范围${range(p)}`);
        break;
      }
      case 'select':
        if (!p.options!.includes(String(p.default))) throw invalid(dfield, `参数 ${p.name} 的默认值 ${p.default} 不在选项中`);
        break;
      case 'path':
        try {
          parseUserPath(String(p.default));
        } catch (e) {
          if (e instanceof AppError) throw invalid(dfield, `参数 ${p.name} 的默认路径不合法：${e.message}`);
          throw e;
        }
        break;
      case 'text':
        if (String(p.default).includes('\0')) throw invalid(dfield, `参数 ${p.name} 的默认值不能包含空字符`);
        break;
    }
  });
  for (const name of placeholders(t.script)) {
    if (!names.has(name)) throw invalid('script', `脚本中的 {{${name}}} 未在参数中声明`);
  }
}

const range = (p: TemplateParam) => `（${p.min ?? '-∞'} ~ ${p.max ?? '+∞'}）`;
const paramInvalid = (reason: string) => new AppError(ErrorCode.TEMPLATE_PARAM_INVALID, `模板参数不合法：${reason}`);

export interface Rendered {
  script: string;
  /** The values used (given or default), as the task keeps them. */
  values: ParamValues;
}

/**
 * The script with every `{{name}}` replaced by its value (given, else the parameter's default): text and
 * paths shell-single-quoted, numbers checked against the range, selects against the options (2101 naming
 * the parameter). A path is a user-visible path inside the home (`..` refused with 1308) and is written as
 * the absolute path the job sees: `home` joined with it. A required parameter without a value is a 1005
 * naming it.
 */
export function renderTemplate(script: string, params: TemplateParam[], given: ParamValues, home: string): Rendered {
  const declared = new Map(params.map((p) => [p.name, p]));
  for (const name of Object.keys(given)) {
    if (!declared.has(name)) throw paramInvalid(`模板没有参数 ${name}`);
  }
  const values: ParamValues = {};
  const words = new Map<string, string>();
  for (const p of params) {
    const field = `params.${p.name}`;
    const raw = given[p.name] ?? p.default;
    if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) {
      if (p.required) throw invalid(field, `「${p.label}」不能为空`);
      words.set(p.name, p.type === 'text' || p.type === 'path' ? "''" : '');
      continue;
    }
    switch (p.type) {
      case 'number': {
        const n = typeof raw === 'number' ? raw : Number(raw.trim());
        if (!Number.isFinite(n)) throw paramInvalid(`${field}「${p.label}」应为数字`);
        if ((p.min !== undefined && n < p.min) || (p.max !== undefined && n > p.max)) throw paramInvalid(`${field}「${p.label}」应在范围${range(p)}内，实际为 ${n}`);
        values[p.name] = n;
        words.set(p.name, String(n));
        break;
      }
      case 'select': {
        const v = String(raw);
        if (!p.options?.includes(v)) throw paramInvalid(`${field}「${p.label}」只能取 ${p.options?.join(' / ') ?? '（无选项）'}，实际为 ${v}`);
        values[p.name] = v;
        words.set(p.name, v);
        break;
      }
      case 'path': {
        const v = String(raw);
        const segs = parseUserPath(v);
        values[p.name] = `/${segs.join('/')}`;
        words.set(p.name, shellQuote(path.posix.join(home, ...segs)));
        break;
      }
      case 'text': {
        const v = String(raw);
        if (v.includes('\0')) throw paramInvalid(`${field}「${p.label}」不能包含空字符`);
        values[p.name] = v;
        words.set(p.name, shellQuote(v));
        break;
      }
    }
  }
  const out = script.replace(PLACEHOLDER, (_m, name: string) => {
    const w = words.get(name);
    if (w === undefined) throw paramInvalid(`脚本中的 {{${name}}} 未在参数中声明`);
    return w;
  });
  return { script: out, values };
}
