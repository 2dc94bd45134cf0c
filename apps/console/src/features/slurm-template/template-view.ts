import type { SlurmTemplate, TemplateDefaults, TemplateParam } from '@suanli/contracts';

/** The four parameter kinds as the forms name them. */
export const PARAM_TYPE_LABELS: Record<TemplateParam['type'], string> = {
  text: '文本',
  number: '数值',
  select: '下拉选择',
  path: '路径',
};

export const SOURCE_LABELS: Record<SlurmTemplate['source'], string> = { platform: '平台', user: '我的' };

/**
 * Application areas offered in the category filter and the template form (a template may name any other;
 * the filter adds the ones it has seen).
 */
export const TEMPLATE_CATEGORIES = ['通用计算', '并行计算', '分子动力学', '计算化学', '材料科学', '流体力学', '气象海洋', '生物信息', '人工智能', '其他'];

/** Same rule as the server (`template-render.ts`): `{{name}}`, spaces inside the braces allowed. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The parameter names a script refers to, in order of first use. */
export function placeholders(script: string): string[] {
  const seen = new Set<string>();
  for (const m of script.matchAll(PLACEHOLDER)) seen.add(m[1]);
  return [...seen];
}

export const PARAM_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
export const PARAM_OPTION_PATTERN = /^[A-Za-z0-9_.:/+-]{1,64}$/;

/** `仅 CPU` / `4 卡` / `4 卡 × 2 节点`, with the card type's name when known. */
export function resourcesText(r: { cardNum: number; nodeNum: number; cardTypeName?: string }): string {
  const cards = r.cardNum > 0 ? `${r.cardTypeName ? `${r.cardTypeName} × ` : ''}${r.cardNum} 卡` : '仅 CPU';
  return r.nodeNum > 1 ? `${cards} × ${r.nodeNum} 节点` : cards;
}

export function defaultsText(d: TemplateDefaults): string {
  return `${resourcesText(d)} · ${d.maxDurationMinutes} 分钟`;
}

/**
 * The platform sets partition, cards, nodes, time limit, job name, output and working directory from the
 * form; a script may still ask for tasks, CPUs per task and memory with `#SBATCH` lines.
 */
const SBATCH_NOTE = `# 分区、卡数、节点数、最长运行时长、作业名、输出文件与工作目录由平台按表单设置；
# 其余资源可用 #SBATCH 指定，例如 --ntasks、--cpus-per-task、--mem。`;

/** The starter of a new template: `{{steps}}` is its one parameter (STARTER_PARAMS). */
export const STARTER_TEMPLATE_SCRIPT = `#!/bin/bash
${SBATCH_NOTE}
#SBATCH --ntasks=1
set -euo pipefail

echo "作业 \${SLURM_JOB_ID:-} 运行在 $(hostname)，工作目录 $(pwd)"
for i in $(seq 1 {{steps}}); do
  echo "第 $i 步"
  sleep 1
done
`;

export const STARTER_PARAMS: TemplateParam[] = [
  { name: 'steps', label: '步数', type: 'number', required: true, default: 5, min: 1, max: 600, description: '循环次数，每步 1 秒' },
];

/** The starter of a custom task: a complete sbatch script without parameters. */
export const STARTER_CUSTOM_SCRIPT = `#!/bin/bash
${SBATCH_NOTE}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
set -euo pipefail

echo "作业 \${SLURM_JOB_ID:-} 运行在 $(hostname)，工作目录 $(pwd)"
echo "节点数 \${SLURM_JOB_NUM_NODES:-1}，任务数 \${SLURM_NTASKS:-1}"
python3 -c 'import math; print("pi =", math.pi)'
`;
