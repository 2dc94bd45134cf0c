import { CliError, type Target } from './api';
import { readSaved } from './config';

/** Every option of every command (node:util parseArgs, strict: an unknown option is refused). */
export const OPTIONS = {
  server: { type: 'string' },
  account: { type: 'string' },
  password: { type: 'string' },
  json: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
  follow: { type: 'boolean', short: 'f' },
  name: { type: 'string' },
  type: { type: 'string' },
  center: { type: 'string' },
  'card-type': { type: 'string' },
  cards: { type: 'string' },
  nodes: { type: 'string' },
  image: { type: 'string' },
  command: { type: 'string' },
  workdir: { type: 'string' },
  env: { type: 'string', multiple: true },
  param: { type: 'string', multiple: true },
  duration: { type: 'string' },
  template: { type: 'string' },
  script: { type: 'string' },
  state: { type: 'string' },
  keyword: { type: 'string' },
  page: { type: 'string' },
  scope: { type: 'string' },
  note: { type: 'string' },
  interval: { type: 'string' },
} as const;

export type Opts = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[] : (typeof OPTIONS)[K] extends { type: 'boolean' } ? boolean : string };

export const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : s + '\n');

export function gateway(opts: Opts, needToken = true): Target {
  const saved = readSaved();
  const base = (opts.server ?? process.env.SUANLI_SERVER ?? saved.server)?.replace(/\/+$/, '');
  if (!base) throw new CliError('未指定服务器：请先执行 suanli login --server <地址>');
  if (!/^https?:\/\//.test(base)) throw new CliError(`服务器地址应以 http:// 或 https:// 开头：${base}`);
  const token = process.env.SUANLI_TOKEN ?? (saved.server?.replace(/\/+$/, '') === base ? saved.token : undefined);
  if (needToken && !token) throw new CliError('尚未登录：请先执行 suanli login');
  return { base, token };
}

export function int(v: string | undefined, what: string, def?: number): number {
  if (v === undefined) {
    if (def === undefined) throw new CliError(`缺少参数：${what}`);
    return def;
  }
  if (!/^\d+$/.test(v)) throw new CliError(`${what}应为非负整数：${v}`);
  return Number(v);
}

export function required(v: string | undefined, flag: string): string {
  if (!v) throw new CliError(`缺少参数：--${flag}`);
  return v;
}

export function pairs(list: string[] | undefined, what: string): [string, string][] {
  return (list ?? []).map((s) => {
    const i = s.indexOf('=');
    if (i <= 0) throw new CliError(`${what}格式应为 名称=值：${s}`);
    return [s.slice(0, i), s.slice(i + 1)];
  });
}

