import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { writeSlurmCentersFile } from '../../test/slurm-centers';
import type { SlurmClusterInfo, SlurmHarness } from '../../test/slurm-harness';
import { ConfigError } from '../lib/config-check';
import { loadCentersFile } from './centers-file';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
const shipped = path.join(repoRoot, 'config/centers.yaml');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suanli-centers-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Writes `text` as a centers file and answers its path. */
function write(text: string): string {
  const f = path.join(dir, `centers-${++n}.yaml`);
  fs.writeFileSync(f, text);
  return f;
}

/** A card type with every required field; `over` replaces some. */
const card = (over: Record<string, unknown> = {}) => ({
  id: 't1',
  name: 'T1',
  vendor: 'NVIDIA',
  memoryGB: 80,
  nodes: 1,
  cardsPerNode: 8,
  cpusPerCard: 8,
  memoryGBPerCard: 64,
  partition: 'gpu',
  ...over,
});
const center = (over: Record<string, unknown> = {}) => ({ id: 'c1', cardTypes: [card()], ...over });
const doc = (d: Record<string, unknown>) => write(YAML.stringify(d));

/** The ConfigError `load` throws (fails the test when it throws nothing or something else). */
function mistakes(file: string): ConfigError {
  try {
    loadCentersFile(file, dir);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error(`${file} loaded without an error`);
}

describe('centers file: what loads', () => {
  it('the shipped config/centers.yaml: two local centers, their packages, the offline account and the image catalogue', () => {
    const { centers, offlinePayment, images } = loadCentersFile(shipped, dir);
    expect(centers.map((c) => [c.id, c.scheduler.kind, c.cardTypes.length, c.status])).toEqual([
      ['sz-a100', 'local', 2, 'online'],
      ['gz-ascend', 'local', 2, 'online'],
    ]);
    const [sz] = centers;
    expect(sz).toMatchObject({ loginPort: 22, homePrefix: '/home', storageRoot: path.join(dir, 'centers/sz-a100'), quotaBytes: 50 * 1024 ** 3 });
    expect(sz.accounts).toEqual({ prefix: 'szu', uidStart: 20001, size: 5000 });
    expect(sz.cardTypes[0].packages!.map((p) => [p.id, p.cardHours, p.price, p.validDays])).toEqual([
      ['sz-a100-10h', 10, 12800, 30],
      ['sz-a100-100h', 100, 118000, 90],
      ['sz-a100-1000h', 1000, 1080000, 365],
    ]);
    expect(offlinePayment).toMatchObject({ accountName: '示例算力科技有限公司', accountNo: '6200 0000 0000 0000', holdMs: 24 * 3600_000 });
    expect(images.map((i) => i.id)).toContain('pytorch-2.1-cann8');
    expect(images.find((i) => i.id === 'pytorch-2.1-cann8')).toMatchObject({ name: 'PyTorch 2.1 (torch_npu, CANN 8.0)', cardVendors: ['Huawei'], visibility: 'public' });
  });

  it('a Slurm centers file as the test harness writes it (apps/server/test/slurm-centers.ts), with a login host key', () => {
    const cluster = (id: string, gres: string, prefix: string, uidStart: number): SlurmClusterInfo => ({
      id,
      cluster: `slx${id}`,
      restUrl: 'http://127.0.0.1:6820/',
      jwtKeyFile: '/tmp/jwt.key',
      slurmConf: '/tmp/slurm.conf',
      partitions: [`p-${gres}`],
      gres: [{ name: 'gpu', type: gres, perNode: 2 }],
      nodes: ['n1'],
      account: 'suanli',
      accounts: { prefix, uidStart, names: [`${prefix}0001`, `${prefix}0002`] },
      storageRoot: `/srv/${id}`,
      sshPort: 2222,
    });
    const harness: SlurmHarness = { workDir: dir, clusters: [cluster('a', 'a100', 'sla', 61001), cluster('b', 'ascend', 'slb', 62001)] };
    const key = `SHA256:${'A'.repeat(43)}`;
    const { centers, images } = loadCentersFile(writeSlurmCentersFile(harness, dir, () => ({ loginHostKey: key })), dir);
    expect(centers.map((c) => c.id)).toEqual(['slurm-a', 'slurm-b']);
    expect(centers[0]).toMatchObject({
      loginPort: 2222,
      loginHostKey: key,
      storageRoot: '/srv/a',
      accounts: { prefix: 'sla', uidStart: 61001, size: 2 },
      scheduler: { kind: 'slurm', cluster: 'slxa', restUrl: 'http://127.0.0.1:6820', apiVersion: 'v0.0.38', jwtKeyFile: '/tmp/jwt.key', account: 'suanli' },
    });
    expect(centers[1].cardTypes[0]).toMatchObject({ id: 'ascend-910b', gres: 'gpu:ascend', memoryGBPerCard: 0.25, packages: [] });
    expect(images.length).toBeGreaterThan(0);
  });

  it('fills the defaults of a minimal center; `key:` with no value counts as absent', () => {
    const [c] = loadCentersFile(write('centers:\n  - id: c1\n    fileServiceUrl:\n    cardTypes:\n      - { id: t1, name: T1, vendor: V, memoryGB: 0, nodes: 1, cardsPerNode: 1, cpusPerCard: 1, memoryGBPerCard: 1, partition: cpu }\n'), dir).centers;
    expect(c).toEqual({
      id: 'c1',
      name: 'c1',
      region: '',
      description: '',
      status: 'online',
      loginHost: '127.0.0.1',
      loginPort: 22,
      shell: undefined,
      loginHostKey: undefined,
      scheduler: { kind: 'local' },
      imageLauncher: undefined,
      storageRoot: path.join(dir, 'centers/c1'),
      homePrefix: '/home',
      quotaBytes: 50 * 1024 ** 3,
      accounts: { prefix: 'uc1', uidStart: 20000, size: 1000 },
      cardTypes: [{ id: 't1', name: 'T1', vendor: 'V', memoryGB: 0, nodes: 1, cardsPerNode: 1, cpusPerCard: 1, memoryGBPerCard: 1, partition: 'cpu', packages: [], standardFactor: 1 }],
      fileServiceUrl: undefined,
      storageAccess: 'local',
    });
    const { offlinePayment, images } = loadCentersFile(write('centers:\n  - id: c1\n    cardTypes: [{ id: t1, name: T1, vendor: V, memoryGB: 0, nodes: 1, cardsPerNode: 1, cpusPerCard: 1, memoryGBPerCard: 1, partition: cpu }]\n'), dir);
    expect(offlinePayment).toBeUndefined();
    expect(images).toEqual([]);
  });
});

describe('centers file: a mistake stops the start, naming the file and the field', () => {
  it('an integer below its minimum, as the operator reads it', () => {
    const f = doc({ centers: [center(), center({ id: 'c2', cardTypes: [card({ cardsPerNode: 0 })] })] });
    expect(mistakes(f).message).toBe(`${f}: centers[1].cardTypes[0].cardsPerNode must be an integer ≥ 1 (got 0)`);
  });

  it('every kind of mistake in one file, each on its own line with its path', () => {
    const f = doc({
      centers: [
        center({ status: 'paused', loginPort: 70000, quotaGb: 10, accounts: { prefix: 'szu', uidStart: 'abc', size: 10 } }),
        center({ id: 'c2', cardTypes: [card({ memoryGBPerCard: 0, gres: 'gpu a100' }), card({ id: 't1' })], scheduler: { kind: 'slurm', cluster: 'x', jwtKeyFile: '/k' } }),
        { id: 'C3!' },
        center({ id: 'c4', scheduler: { kind: 'pbs' }, homePrefix: 'home', loginHostKey: 'ab:cd' }),
        center({ id: 'c1' }),
      ],
      payment: { offline: { bankName: 'B', accountName: 'A', accountNo: 6200000000000000, note: 'n', holdHours: 1000 } },
      images: [{ id: 'i1', name: 'PyTorch (CUDA', ' CANN)': null, uri: 'docker://x' }, { id: 'i2' }],
    });
    const e = mistakes(f);
    expect(e.source).toBe(f);
    expect(e.message.split('\n')[0]).toBe(`${f}: ${e.issues.length} mistakes`);
    expect(e.issues).toEqual(
      expect.arrayContaining([
        'centers[0].status must be one of online, maintenance, offline (got "paused")',
        'centers[0].loginPort must be an integer ≥ 1 and ≤ 65535 (got 70000)',
        expect.stringMatching(/^centers\[0\]\.quotaGb is not a known field/),
        'centers[0].accounts.uidStart must be an integer ≥ 1 (got "abc")',
        'centers[1].cardTypes[0].memoryGBPerCard must be a number > 0 (got 0)',
        'centers[1].cardTypes[0].gres must be a Slurm gres name:type such as gpu:a100 (got "gpu a100")',
        'centers[2].id must be lower-case letters, digits and -, 2 to 32 of them (got "C3!")',
        'centers[2].cardTypes is required',
        'centers[3].scheduler.kind must be one of local, slurm (got "pbs")',
        'centers[3].homePrefix must be an absolute path such as /home (got "home")',
        'centers[3].loginHostKey must be a SHA256:… fingerprint as ssh-keygen -lf prints it (got "ab:cd")',
        expect.stringMatching(/^payment\.offline\.accountNo must be text \(quote it/),
        'payment.offline.holdHours must be a number > 0 and ≤ 720 (got 1000)',
        expect.stringMatching(/^images\[0\]\. CANN\) is not a known field/),
        'images[1].uri is required',
      ]),
    );
    // Nothing else: the rules across entries (the duplicate c1, the Slurm keys) wait until every entry has its shape.
    expect(e.issues).toHaveLength(15);
  });

  it('rules across entries once every entry has the right shape: unique ids, what a Slurm scheduler needs', () => {
    const p = { id: 'p1', name: 'P', cardHours: 1, price: 100, validDays: 30 };
    const f = doc({
      centers: [
        center({ cardTypes: [card({ packages: [p] }), card({ packages: [p] })] }),
        center({ id: 'c2', scheduler: { kind: 'slurm', cluster: 'x', jwtKeyFile: '/k' } }),
        center({ id: 'c3', scheduler: { kind: 'slurm', cluster: 'x', restUrl: 'http://h:1', account: 'a' } }),
        center({ id: 'c4', scheduler: { kind: 'local', account: 'a' } }),
        center({ id: 'c2' }),
      ],
      images: [{ id: 'i1', uri: 'docker://a' }, { id: 'i1', uri: 'docker://b' }],
    });
    expect(mistakes(f).issues).toEqual([
      'centers[0].cardTypes[1].id t1 is already the id of centers[0].cardTypes[0]',
      'centers[0].cardTypes[1].packages[0].id p1 is already the id of centers[0].cardTypes[0].packages[0]',
      'centers[1].scheduler.restUrl is required for kind: slurm',
      'centers[1].scheduler.account is required for kind: slurm',
      'centers[2].scheduler needs jwtKeyFile or tokenCommand for kind: slurm',
      'centers[3].scheduler.account is only for kind: slurm',
      'centers[4].id c2 is already the id of centers[1]',
      'images[1].id i1 is already the id of images[0]',
    ]);
  });

  it('how the gateway reaches a center\'s storage: local by default, the file service once it has a URL, never a file service without one', () => {
    const { centers } = loadCentersFile(
      doc({
        centers: [
          center({ id: 'c1' }),
          center({ id: 'c2', fileServiceUrl: 'http://fs-c2:8081' }),
          center({ id: 'c3', fileServiceUrl: 'http://fs-c3:8081', storageAccess: 'local' }),
          center({ id: 'c4', fileServiceUrl: 'http://fs-c4:8081', storageAccess: 'fileService', storageRoot: '/share/c4' }),
        ],
      }),
      dir,
    );
    expect(centers.map((c) => [c.id, c.storageAccess])).toEqual([
      ['c1', 'local'],
      ['c2', 'fileService'],
      ['c3', 'local'],
      ['c4', 'fileService'],
    ]);
    // The jobs' paths still come from storageRoot, wherever the gateway reaches the disk from.
    expect(centers[3].storageRoot).toBe('/share/c4');
    const f = doc({ centers: [center({ storageAccess: 'fileService' }), center({ id: 'c2', storageAccess: 'nfs' })] });
    expect(mistakes(f).issues).toEqual(['centers[1].storageAccess must be one of local, fileService (got "nfs")']);
    const g = doc({ centers: [center({ storageAccess: 'fileService' })] });
    expect(mistakes(g).issues).toEqual([
      "centers[0].storageAccess fileService needs centers[0].fileServiceUrl (the gateway reaches this center's storage only through its file service)",
    ]);
  });

  it('a value cut short by a comma in a flow mapping shows up as an unknown field', () => {
    const f = write(`centers: [{ id: c1, cardTypes: [{ id: t1, name: T1, vendor: V, memoryGB: 0, nodes: 1, cardsPerNode: 1, cpusPerCard: 1, memoryGBPerCard: 1, partition: cpu }] }]
images:
  - { id: i1, name: PyTorch 2.1 (torch_npu, CANN 8.0), uri: 'docker://x' }
`);
    expect(mistakes(f).issues).toEqual([expect.stringMatching(/^images\[0\]\.CANN 8\.0\) is not a known field .*quote values that contain a comma/)]);
  });

  it('packages: whole 分, whole 卡时, whole days; ids unique across centers', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ price: 12.5 }, 'price must be an integer ≥ 1 (got 12.5)'],
      [{ price: 0 }, 'price must be an integer ≥ 1 (got 0)'],
      [{ cardHours: -1 }, 'cardHours must be an integer ≥ 1 (got -1)'],
      [{ cardHours: '10' }, 'cardHours must be an integer ≥ 1 (got "10")'],
      [{ validDays: 0.5 }, 'validDays must be an integer ≥ 1 (got 0.5)'],
      [{ id: 'P_1' }, 'id must be lower-case letters, digits and -, 2 to 64 of them (got "P_1")'],
    ];
    for (const [bad, field] of cases) {
      const f = doc({ centers: [center({ cardTypes: [card({ packages: [{ id: 'p1', name: 'P', cardHours: 1, price: 100, validDays: 30, ...bad }] })] })] });
      expect(mistakes(f).issues).toEqual([`centers[0].cardTypes[0].packages[0].${field}`]);
    }
    const p = { id: 'p1', name: 'P', cardHours: 1, price: 100, validDays: 30 };
    const f = doc({ centers: [center({ cardTypes: [card({ packages: [p] })] }), center({ id: 'c2', cardTypes: [card({ packages: [p] })] })] });
    expect(mistakes(f).issues).toEqual(['centers[1].cardTypes[0].packages[0].id p1 is already the id of centers[0].cardTypes[0].packages[0]']);
    expect(mistakes(doc({ centers: [center({ cardTypes: [card({ packages: { id: 'p1' } })] })] })).issues).toEqual(['centers[0].cardTypes[0].packages must be a list']);
  });

  it('标准卡时 factor: 1 when absent, the shipped ones as written; a wrong one is named with its field', () => {
    expect(loadCentersFile(doc({ centers: [center()] }), dir).centers[0].cardTypes[0].standardFactor).toBe(1);
    expect(loadCentersFile(shipped, dir).centers.flatMap((c) => c.cardTypes.map((t) => [t.id, t.standardFactor]))).toEqual([
      ['a100-80g', 1],
      ['cpu-std', 0.02],
      ['ascend-910b', 0.8],
      ['dcu-z100', 0.5],
    ]);
    expect(loadCentersFile(doc({ centers: [center({ cardTypes: [card({ standardFactor: 0.0125 })] })] }), dir).centers[0].cardTypes[0].standardFactor).toBe(0.0125);
    const cases: [unknown, string][] = [
      [0, 'standardFactor must be a number > 0 and ≤ 1000 (got 0)'],
      [-1, 'standardFactor must be a number > 0 and ≤ 1000 (got -1)'],
      [5000, 'standardFactor must be a number > 0 and ≤ 1000 (got 5000)'],
      ['1.2', 'standardFactor must be a number > 0 and ≤ 1000 (got "1.2")'],
      [0.12345, 'standardFactor must have at most 4 decimals (got 0.12345)'],
    ];
    for (const [bad, issue] of cases) {
      const f = doc({ centers: [center({ cardTypes: [card({ standardFactor: bad })] })] });
      expect(mistakes(f).issues).toEqual([`centers[0].cardTypes[0].${issue}`]);
    }
  });

  it('a file that is missing, not YAML, empty or without centers', () => {
    const missing = path.join(dir, 'nope.yaml');
    expect(mistakes(missing).message).toMatch(new RegExp(`^${missing}: cannot be read \\(ENOENT.*CENTERS_FILE names it$`));
    const broken = write('centers:\n  - id: c1\n   bad indent: [\n');
    expect(mistakes(broken).message).toMatch(new RegExp(`^${broken}: is not valid YAML: `));
    expect(mistakes(write('')).issues).toEqual(['centers is required']);
    expect(mistakes(write('centers: []\n')).issues).toEqual(['centers must list at least 1']);
    expect(mistakes(write('- a\n- b\n')).issues).toEqual(['(the whole file) must be a mapping (key: value)']);
  });
});
