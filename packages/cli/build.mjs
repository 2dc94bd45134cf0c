// Builds the single-file CLI: dist/suanli.mjs, everything (contracts, TypeBox, the console's uploader,
// hash-wasm) bundled into one ES module that Node ≥ 20 runs with no node_modules. Offline: esbuild is
// already installed for the console's build. `node build.mjs` (or `npm run build -w packages/cli`).
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const outfile = path.join(here, 'dist/suanli.mjs');

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
console.log(`${path.relative(process.cwd(), outfile)} (${(fs.statSync(outfile).size / 1024).toFixed(0)} KiB)`);
