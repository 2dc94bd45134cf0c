import fs from 'node:fs';
import path from 'node:path';
import { Value } from '@sinclair/typebox/value';
import YAML from 'yaml';
import { SlurmTemplateSave, type SlurmTemplate } from '@suanli/contracts';
import { AppError } from '../../errors';
import { validateTemplate } from './template-render';

/** Id of a platform template: the file's name (`numpy-pi.yaml` → `platform-numpy-pi`). */
export const PLATFORM_ID_PREFIX = 'platform-';

/**
 * The platform's templates: one YAML file per template in `dir` (`config/slurm-templates/` beside the
 * centers file), each `{name, description, category, script, params, defaults}`, checked with the same rules
 * as a user's template. Read once at start; a broken file stops the start with the file and the reason.
 * A missing folder means no platform templates.
 */
export function loadPlatformTemplates(dir: string): SlurmTemplate[] {
  if (!fs.existsSync(dir)) return [];
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  return files.map((f) => {
    const file = path.join(dir, f);
    const raw = YAML.parse(fs.readFileSync(file, 'utf8')) as unknown;
    const doc = Value.Default(SlurmTemplateSave, Value.Clean(SlurmTemplateSave, structuredClone(raw ?? {})));
    const err = Value.Errors(SlurmTemplateSave, doc).First();
    if (err) throw new Error(`${file}: ${err.path || '/'} ${err.message}`);
    const t = doc as SlurmTemplateSave;
    try {
      validateTemplate(t);
    } catch (e) {
      if (e instanceof AppError) throw new Error(`${file}: ${e.message}`);
      throw e;
    }
    const id = `${PLATFORM_ID_PREFIX}${f.replace(/\.ya?ml$/, '')}`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new Error(`${file}: the file name makes the id ${id}, which must match [A-Za-z0-9_.-]{1,64}`);
    const mtime = Math.floor(fs.statSync(file).mtimeMs);
    return { ...t, id, source: 'platform' as const, createTime: mtime, updateTime: mtime };
  });
}
