import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/** The Slurm part of the integration tier: these files get two real clusters (apps/server/test/slurm-harness.ts). */
const slurmTier = ['apps/server/src/executors/slurm/**/*.int.test.ts', 'apps/server/src/**/*.slurm.int.test.ts'];

/**
 * Test tiers (see docs/testing.md): unit (`*.test.ts[x]`), api (`*.api.test.ts`, run on SQLite and
 * PostgreSQL), integration (`*.int.test.ts`, real SMTP/Redis/extra processes on loopback; those under
 * executors/slurm/ and `*.slurm.int.test.ts` run against two real Slurm clusters) and e2e
 * (`e2e/**\/*.e2e.ts`, real Chromium against the built console).
 */
/**
 * Test files at once. Vitest's default is one less than the cores — on this 2-core machine that is ONE, so the
 * api tier ran its ~170 files one after another although most of their time is spent waiting (sockets, child
 * processes, databases, timers). Each file has its own databases, data dirs and ports, so three at a time is
 * safe (issue 26). TEST_WORKERS overrides it (TEST_WORKERS=1: the old one-at-a-time run).
 */
const workers = Number(process.env.TEST_WORKERS) || 3;
/** e2e files at once (one Chromium and one built console for all, each file its own gateway and data dir). */
const e2eWorkers = Number(process.env.TEST_E2E_WORKERS) || 2;
/**
 * Server test files share a worker's module cache instead of importing the whole server again per file: the
 * api tier spent ~5 of its ~12 CPU-minutes importing (issue 26; `modules/order` alone: 159 s → 91 s wall, 104 →
 * 59 s CPU). Each file still builds its own app, databases, data dir and ports; a spy on a shared prototype is
 * restored by its test. The console project shares its cache too (apps/console/vitest.config.ts: its
 * test-setup.ts puts back the module-level state and the window a file leaves). TEST_ISOLATE=1 isolates every
 * file again, in every project.
 */
const isolate = process.env.TEST_ISOLATE === '1';

/**
 * The files that take longest, in that order, per project (CI17 and session 18's runs: the e2e walks since their
 * split in session 17; the Slurm files that wait out Slurm's one-minute time limit). A clean clone has no
 * vitest timings cache, so vitest would start the largest files first — the three walk files, small but long
 * (each route at a width), would run last, one of them alone at the tier's end, and training.slurm.int (the
 * Slurm tier's longest path, ~4 min) would start after three others.
 */
const LONGEST: Record<string, string[]> = {
  // reload.e2e (one test, ~65 s) ran last and alone for a minute in CI30.
  e2e: ['e2e/walk-user-375.e2e.ts', 'e2e/walk-user-1440.e2e.ts', 'e2e/storage.e2e.ts', 'e2e/walk-operator.e2e.ts', 'e2e/responsive.e2e.ts', 'e2e/reload.e2e.ts', 'e2e/newuser.e2e.ts', 'e2e/billing.e2e.ts'],
  'server-slurm': ['modules/training/training.slurm.int.test.ts', 'modules/task/diagnosis/diagnosis.slurm.int.test.ts', 'executors/slurm/slurm-executor.int.test.ts'],
};

/** Vitest's order, except that each project's LONGEST files start first (in their order) in that project's places. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const longest = LONGEST[f.project.name] ?? [];
      const i = longest.findIndex((name) => f.moduleId.endsWith(`/${name}`));
      return i < 0 ? longest.length : i;
    };
    const byProject = new Map<string, TestSpecification[]>();
    for (const f of sorted) byProject.set(f.project.name, [...(byProject.get(f.project.name) ?? []), f]);
    for (const list of byProject.values()) list.sort((a, b) => rank(a) - rank(b)); // stable: the rest keep vitest's order
    return sorted.map((f) => byProject.get(f.project.name)!.shift()!);
  }
}

export default defineConfig({
  test: {
    maxWorkers: workers,
    sequence: { sequencer: LongestFirst },
    /**
     * React DOM's scheduler can still run a passive-effects flush of a console test after vitest tore that
     * file's happy-dom environment down (its tasks come from Node's setImmediate, which the environment does
     * not own). It then reads `window.event` and throws: seen only on a loaded CI machine, after every
     * assertion of the file ran, in a different file each time, although test-setup.ts unmounts and settles.
     * Those errors say nothing about the code under test, so exactly they are ignored; any other unhandled
     * error (and this one from anywhere but React's scheduler) still fails the run.
     */
    onUnhandledError(error) {
      const stack = String((error as { stack?: string }).stack ?? '');
      if (error.name === 'ReferenceError' && /^(window|document) is not defined$/.test(error.message) && /react-dom|scheduler/.test(stack)) return false;
    },
    projects: [
      { test: { name: 'contracts', include: ['packages/contracts/src/**/*.test.ts'], isolate } },
      {
        test: {
          name: 'server-unit',
          include: ['apps/server/src/**/*.test.ts'],
          isolate,
          exclude: ['**/*.api.test.ts', '**/*.int.test.ts'],
        },
      },
      {
        test: {
          name: 'server-api',
          include: ['apps/server/src/**/*.api.test.ts', 'apps/server/src/**/*.int.test.ts', 'packages/cli/src/**/*.int.test.ts'],
          exclude: slurmTier,
          isolate,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Integration tests against real Slurm clusters. The globalSetup starts a harness (two one-node clusters,
        // an account pool) per worker and each file uses its worker's (apps/server/test/slurm-worker.ts): one
        // file's jobs never fill the cards another file expects free (queueing and 智能调度 assertions), and the
        // files' waits on Slurm overlap. Three at a time (idle daemons cost ~0.04 CPU-s a minute per harness);
        // TEST_SLURM_WORKERS sets how many (1: the files one at a time).
        test: {
          name: 'server-slurm',
          include: slurmTier,
          globalSetup: ['apps/server/test/slurm-harness.ts'],
          maxWorkers: Number(process.env.TEST_SLURM_WORKERS) || 3,
          // As the api tier: the files of a worker share its module cache (TEST_ISOLATE=1 isolates them).
          isolate,
          // A group of its own (a project with its own maxWorkers needs one): its workers are numbered 1…maxWorkers.
          sequence: { groupOrder: 2 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      './apps/console/vitest.config.ts',
      // The upload benchmark's Node transport, checked against the uploader's fake file service.
      { test: { name: 'bench', include: ['bench/**/*.test.ts'] } },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          // One Chromium for the tier; each file connects to it (support/chromium.ts).
          globalSetup: ['e2e/support/chromium-server.ts'],
          // A failed journey leaves screenshots of its open pages in e2e/artifacts/failed/.
          setupFiles: ['e2e/support/failure-shots.ts'],
          // As the server projects: a worker's files share its module cache instead of importing the whole server
          // again per file (through failure-shots → env → app; session 18: a 5-file set's workers 38 → 30 CPU-s).
          isolate,
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Files share nothing (each starts its own gateway on a free port, data dir and database; deploy.e2e's
          // fixed ports are used by no other file), so two run at a time. After the other projects (a project
          // with its own maxWorkers needs its own group when every project runs in one vitest).
          maxWorkers: e2eWorkers,
          sequence: { groupOrder: 1 },
          // What a person sees after a click arrives through a server round trip and a re-render; on a loaded
          // 2-core machine that passed vitest's 1 s default for expect.poll (the unread badge after 全部已读).
          expect: { poll: { timeout: 10_000, interval: 100 } },
        },
      },
    ],
  },
});
