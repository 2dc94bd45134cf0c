/**
 * slurmrestd does not read a script's `#SBATCH` lines (only the sbatch command does; checked on the
 * harness: `#SBATCH --time=7` and `--mem=200` were ignored). The executor honours the ones below itself for
 * `launch: 'batch'` jobs; the platform's own choices (partition, gres, nodes, time limit, name, comment,
 * output, working directory, account) always win, so those options are ignored here, as are options without
 * a meaning for a platform task (arrays, dependencies, mail).
 */
export interface SbatchOptions {
  tasks?: number;
  tasksPerNode?: number;
  cpusPerTask?: number;
  memoryPerNodeMB?: number;
  memoryPerCpuMB?: number;
  constraints?: string;
  qos?: string;
  exclusive?: boolean;
}

const SHORT: Record<string, string> = { n: 'ntasks', c: 'cpus-per-task', C: 'constraint', q: 'qos' };

/** `--mem` style sizes: a number with an optional K/M/G/T suffix (default M) → MB. */
export function memoryMB(v: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)B?$/i.exec(v.trim());
  if (!m) return undefined;
  const f = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024, '': 1 }[m[2].toUpperCase() as 'K' | 'M' | 'G' | 'T' | ''];
  return Math.max(1, Math.ceil(Number(m[1]) * f));
}

const positive = (v: string) => (/^\d+$/.test(v) && Number(v) > 0 ? Number(v) : undefined);

/** The `#SBATCH` header of a script (up to the first command line, as sbatch reads it). */
export function parseSbatchOptions(script: string): SbatchOptions {
  const out: SbatchOptions = {};
  const lines = script.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (i === 0 && line.startsWith('#!')) continue;
    if (!line) continue;
    if (!line.startsWith('#')) break;
    const m = /^#SBATCH\s+(.*)$/.exec(line);
    if (!m) continue;
    const words = m[1].replace(/\s+#.*$/, '').split(/\s+/);
    for (let w = 0; w < words.length; w++) {
      let key: string;
      let value: string | undefined;
      const long = /^--([\w-]+)(?:=(.*))?$/.exec(words[w]);
      const short = /^-(\w)(.*)$/.exec(words[w]);
      if (long) [key, value] = [long[1], long[2]];
      else if (short) [key, value] = [SHORT[short[1]] ?? `-${short[1]}`, short[2] || undefined];
      else continue;
      if (key === 'exclusive') {
        out.exclusive = true;
        continue;
      }
      if (value === undefined && w + 1 < words.length && !words[w + 1].startsWith('-')) value = words[++w];
      if (value === undefined) continue;
      switch (key) {
        case 'ntasks':
          out.tasks = positive(value);
          break;
        case 'ntasks-per-node':
          out.tasksPerNode = positive(value);
          break;
        case 'cpus-per-task':
          out.cpusPerTask = positive(value);
          break;
        case 'mem':
          out.memoryPerNodeMB = memoryMB(value);
          break;
        case 'mem-per-cpu':
          out.memoryPerCpuMB = memoryMB(value);
          break;
        case 'constraint':
          out.constraints = value;
          break;
        case 'qos':
          out.qos = value;
          break;
      }
    }
  }
  return out;
}
