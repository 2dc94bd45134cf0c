import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Entry points that tests start as processes of their own, relative to apps/server/src. */
export type ServerEntry = 'main.ts' | 'file-service/main.ts';

/**
 * Our own modules go into the bundle, each keeping its own `import.meta` (config.ts finds the repository from
 * its `import.meta.dirname`, hash-thread.ts its worker next to it); packages stay imports resolved from the
 * repository's node_modules, where the bundle is written.
 */
const ownModules: Plugin = {
  name: 'own-modules',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith('@suanli/') ? undefined : { path: a.path, external: true }));
    b.onLoad({ filter: /\.ts$/ }, (a) => {
      if (a.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = fs
        .readFileSync(a.path, 'utf8')
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(a.path)))
        .replaceAll('import.meta.filename', JSON.stringify(a.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(a.path).href));
      return { contents: source, loader: 'ts' };
    });
  },
};

const built = new Map<ServerEntry, Promise<string>>();

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
let outDir: string | null = null;

/**
 * The arguments after `node` that start a server entry point (issue 26). A test's gateway or file service
 * process ran `node --import tsx src/….ts`: ~3 CPU-s to start on this machine, most of it tsx resolving and
 * loading ~300 source files through its loader hooks, paid by every process a test starts. The same sources
 * bundled once per test process (esbuild — tsx's own transformer and dependency — ~0.3 s) start in ~1.3 CPU-s
 * (a file service; a gateway 6.5 → 4 CPU-s with its first migration). The code is the sources of this
 * checkout, built when a test first asks (so an edit is never run stale). TEST_SERVER_TSX=1: through tsx
 * again, exactly as `npm start` runs it.
 */
export async function serverEntryArgs(entry: ServerEntry): Promise<string[]> {
  const source = path.join(repoRoot, 'apps/server/src', entry);
  if (process.env.TEST_SERVER_TSX === '1') return ['--import', 'tsx', source];
  let file = built.get(entry);
  if (!file) {
    // Under the repository's node_modules, so the bundle's package imports resolve as the sources' do.
    if (!outDir) {
      // One folder per test process, named by its pid. A vitest worker is ended by a signal, so no exit hook
      // removes it: each process removes the folders of processes no longer running instead.
      const root = path.join(repoRoot, 'node_modules/.cache/suanli-test-server');
      fs.mkdirSync(root, { recursive: true, mode: 0o755 });
      for (const name of fs.readdirSync(root)) if (!alive(Number(name))) fs.rmSync(path.join(root, name), { recursive: true, force: true });
      outDir = path.join(root, String(process.pid));
      // Readable by all: the POSIX tests run their file service as an unprivileged account.
      fs.mkdirSync(outDir, { recursive: true, mode: 0o755 });
    }
    const outfile = path.join(outDir, `${entry.replaceAll('/', '-').replace(/\.ts$/, '')}.mjs`);
    file = build({
      entryPoints: [source],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
      plugins: [ownModules],
    }).then(() => outfile);
    built.set(entry, file);
    file.catch(() => built.delete(entry));
  }
  return [await file];
}
