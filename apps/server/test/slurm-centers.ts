import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { SlurmClusterInfo, SlurmHarness } from './slurm-harness';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Card type names per harness gres type (the harness fakes two A100s on cluster a, two 910Bs on b). */
const CARDS: Record<string, { id: string; name: string; vendor: string; memoryGB: number }> = {
  a100: { id: 'a100-80g', name: 'NVIDIA A100 80G', vendor: 'NVIDIA', memoryGB: 80 },
  ascend: { id: 'ascend-910b', name: '昇腾 910B', vendor: 'Huawei', memoryGB: 64 },
};

/**
 * A centers file for a gateway whose sub-centers are the harness's real Slurm clusters, written the way
 * docs/operations/slurm-center.md tells an operator to (center keys, pool, partitions and gres → card
 * types); the image catalogue is the repository's. Returns the file's path.
 */
export function writeSlurmCentersFile(h: SlurmHarness, dir: string, extra: (c: SlurmClusterInfo) => Record<string, unknown> = () => ({})): string {
  const images = (YAML.parse(fs.readFileSync(path.join(repoRoot, 'config/centers.yaml'), 'utf8')) as { images: unknown[] }).images;
  const centers = h.clusters.map((c) => {
    const g = c.gres[0];
    const card = CARDS[g.type] ?? { id: `${g.type}-card`, name: g.type, vendor: 'NVIDIA', memoryGB: 16 };
    return {
      id: `slurm-${c.id}`,
      name: c.id === 'a' ? '测试集群甲' : '测试集群乙',
      region: '本机',
      description: `Slurm 集群 ${c.cluster}`,
      status: 'online',
      loginHost: '127.0.0.1',
      loginPort: c.sshPort,
      scheduler: { kind: 'slurm', cluster: c.cluster, restUrl: c.restUrl, apiVersion: 'v0.0.38', jwtKeyFile: c.jwtKeyFile, account: c.account },
      storageRoot: c.storageRoot,
      accounts: { prefix: c.accounts.prefix, uidStart: c.accounts.uidStart, size: c.accounts.names.length },
      cardTypes: [
        {
          ...card,
          nodes: c.nodes.length,
          cardsPerNode: g.perNode,
          cpusPerCard: 1,
          memoryGBPerCard: 0.25,
          partition: c.partitions[0],
          gres: `${g.name}:${g.type}`,
        },
      ],
      ...extra(c),
    };
  });
  const file = path.join(dir, 'centers.slurm.yaml');
  fs.writeFileSync(file, YAML.stringify({ centers, images }));
  return file;
}
