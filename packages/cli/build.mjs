// Builds the single-file CLI: dist/suanli.mjs, everything (contracts, TypeBox, the console's uploader,
// hash-wasm) bundled into one ES module that Node ≥ 20 runs with no node_modules. Offline: esbuild is
// already installed for the console's build. `node build.mjs [--copy-to DIR]` (or `npm run build -w packages/cli`).
// The root `npm run build` copies the file into the built guide (dist/guide/downloads/), which the gateway
// serves publicly: the guide's 命令行工具 page and the console's user menu link to it.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
// `--outfile FILE` builds elsewhere: the CLI's test builds into its own folder, so a `npm run build` running
// beside the tests (scripts/test.mjs) never rewrites the file the test reads.
const outAt = process.argv.indexOf('--outfile');
const outfile = outAt > 0 ? path.resolve(process.argv[outAt + 1]) : path.join(here, 'dist/suanli.mjs');

await build({
  entryPoints: [path.join(here, 'src/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: false,
  legalComments: 'none',
  define: { SUANLI_CLI_VERSION: JSON.stringify(pkg.version) },
  // A CommonJS dependency bundled into an ES module may still call require() for Node's built-ins.
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __suanliRequire } from 'node:module';\nconst require = __suanliRequire(import.meta.url);" },
  logLevel: 'warning',
});
fs.chmodSync(outfile, 0o755);
const at = process.argv.indexOf('--copy-to');
if (at > 0) {
  const dir = path.resolve(process.argv[at + 1]);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(outfile, path.join(dir, 'suanli.mjs'));
  fs.chmodSync(path.join(dir, 'suanli.mjs'), 0o755);
}
console.log(`${path.relative(process.cwd(), outfile)} (${(fs.statSync(outfile).size / 1024).toFixed(0)} KiB)`);
