import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * `packages/contracts` builds its TypeBox schemas (and the dictionaries) at module level. The console only
 * needs the package's constants, texts and types, but a bundler must assume a module-level call has side
 * effects and keep it, which drags TypeBox into every page including login. Marking those calls pure lets
 * the unused ones drop out. Only whole schema-builder calls are marked, so nothing with an effect changes.
 */
function pureContractSchemas(): Plugin {
  const file = /[\\/]packages[\\/]contracts[\\/]src[\\/][^\\/]+\.ts$/;
  return {
    name: 'suanli:pure-contract-schemas',
    enforce: 'pre',
    transform(code, id) {
      if (!file.test(id)) return null;
      return code
        .replace(/(?<![\w$.])(Type\.[A-Z]\w*|Page|Envelope|dict|[A-Z][A-Z0-9_]*\.map)\(/g, '/* @__PURE__ */ $1(')
        .replace(/function \/\* @__PURE__ \*\/ /g, 'function ');
    },
  };
}

/**
 * antd's ConfigProvider imports its `tooltip={{ unique: true }}` provider (rc-trigger's positioning and popup,
 * ~5.6 KiB gzip) on every page, the sign-in page included, and renders it only when that option is set. The
 * console never sets it, so the import is answered by a provider that refuses to render: setting the option
 * fails loudly instead of silently losing the shared tooltip. antd's Tooltip itself is untouched.
 */
function noUniqueTooltipProvider(): Plugin {
  const stub = '\0suanli:no-unique-tooltip';
  return {
    name: 'suanli:no-unique-tooltip',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === '../tooltip/UniqueProvider' && importer && /[\\/]antd[\\/]es[\\/]config-provider[\\/]index\.js$/.test(importer)) return stub;
      return null;
    },
    load(id) {
      if (id !== stub) return null;
      return "export default function UniqueProvider() { throw new Error('ConfigProvider tooltip.unique is not built into the console (apps/console/vite.config.ts)'); }";
    },
  };
}

/** The gateway the dev server forwards API, socket and embedded file-service calls to. */
const GATEWAY = process.env.GATEWAY_URL ?? 'http://localhost:8080';

export default defineConfig({
  // The gateway serves the built app under /console (apps/server/src/app.ts `serveConsole`).
  base: '/console/',
  plugins: [pureContractSchemas(), noUniqueTooltipProvider(), react()],
  server: {
    proxy: {
      '/gateway': { target: GATEWAY, changeOrigin: true, ws: true },
      '/file-service': { target: GATEWAY, changeOrigin: true, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The login budget is measured on gzip; a larger warning limit keeps the log readable for the lazy
    // chunks of heavy pages (charts, terminal) that never load on the login route.
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      treeshake: {
        // These index modules set statics on their default export (`RefForm.useForm = …`) or build it with a
        // call (`generateTrigger(Portal)`), so a bundler keeps the whole package for one small named export:
        // antd's Input reaches rc-form for `FormProvider` (a context), its ConfigProvider reaches rc-trigger for
        // `UniqueProvider`. Marked side-effect free, the index is only kept where its default export is used
        // (antd's Form, Tooltip…), and rc-form (13 KiB gzip) stays off the sign-in page.
        moduleSideEffects: [{ test: /[\\/]@rc-component[\\/](form|trigger)[\\/]es[\\/]index\.js$/, sideEffects: false }],
      },
      output: {
        codeSplitting: {
          groups: [
            // The framework every route needs: one long-lived, cacheable chunk.
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 30 },
            // Charts only load with the pages that draw them.
            { name: 'echarts', test: /node_modules[\\/](echarts|zrender)[\\/]/, priority: 20 },
            // The terminal only loads with the Shell工具 page.
            { name: 'xterm', test: /node_modules[\\/]@xterm[\\/]/, priority: 20 },
          ],
        },
      },
    },
  },
});
