#!/usr/bin/env node
// The user guide (用户指南): docs/guide/*.md rendered to static HTML pages that the gateway serves under
// /guide/ (apps/server/src/plugins/guide.ts). Run by `npm run build` (so `npm start` and the e2e tier get
// it); `node scripts/build-guide.mjs [outDir]` builds into another folder.
//
// `storage.md` is served as `storage.html`; `index.md` is the start page. The navigation lists the pages in
// the order index.md first links to them, and every page must be linked from there (so the start page
// never misses one). Links between pages are written as links to the .md files (so the sources read well
// on a code host too) and become links to the .html pages.
//
// Safe output: raw HTML in the Markdown is escaped (markdown-it `html: false`) and markdown-it refuses
// javascript:/vbscript:/data: links, so a page can never carry a script. The pages load no script at all.
//
// Assets (the stylesheet, the screenshots under docs/guide/images/) are copied to `assets/` with a content
// hash in the name, so the gateway can serve them as immutable while the pages themselves are revalidated.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const GUIDE_SRC = path.join(repoRoot, 'docs/guide');
export const GUIDE_OUT = path.join(repoRoot, 'dist/guide');

const SITE_TITLE = '算力调度服务平台 用户指南';
/** Where the "back to the console" link of every page leads (the gateway serves both). */
const CONSOLE_URL = '/console/';

/** `storage.md` → `storage`. */
const slugOf = (file) => path.basename(file, '.md');

/** Links to other pages of the guide (`storage.md`, `./storage.md#上传`): the file name, else null. */
const pageLink = (href) => /^(?:\.\/)?([^/:#?]+\.md)(#.*)?$/.exec(href);

function hashName(name, bytes) {
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 10);
  const ext = path.extname(name);
  return `${path.basename(name, ext)}.${hash}${ext}`;
}

/** Heading ids from their text, so sections can be linked (`compute-power.html#卡时`). */
function headingId(text, used) {
  const base =
    text
      .trim()
      .toLowerCase()
      .replace(/[\s/、，。：:（）()？?！!“”"'`]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'section';
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  used.add(id);
  return id;
}

/**
 * Renders every page of `srcDir` into `outDir` (emptied first). Returns the pages written, in navigation
 * order. Throws on a link to a page or an image that does not exist, so a broken guide never ships.
 */
export function buildGuide({ srcDir = GUIDE_SRC, outDir = GUIDE_OUT } = {}) {
  srcDir = path.resolve(srcDir);
  const sources = fs.readdirSync(srcDir).filter((f) => f.endsWith('.md') && f !== 'README.md');
  if (!sources.includes('index.md')) throw new Error(`${srcDir}: index.md is missing`);
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

  // Navigation order: index, then the pages in the order index.md first links to them.
  const files = ['index.md'];
  for (const tok of md.parse(fs.readFileSync(path.join(srcDir, 'index.md'), 'utf8'), {}).flatMap((t) => t.children ?? [])) {
    const m = tok.type === 'link_open' ? pageLink(decodeURI(tok.attrGet('href') ?? '')) : null;
    if (m && sources.includes(m[1]) && !files.includes(m[1])) files.push(m[1]);
  }
  const orphans = sources.filter((f) => !files.includes(f));
  if (orphans.length) throw new Error(`pages not linked from index.md: ${orphans.join(', ')}`);

  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(outDir, 'assets'), { recursive: true });

  /** Copies a source asset once and answers its hashed address relative to the pages. */
  const assets = new Map();
  const asset = (abs) => {
    if (!assets.has(abs)) {
      const bytes = fs.readFileSync(abs);
      const name = hashName(path.basename(abs), bytes);
      fs.writeFileSync(path.join(outDir, 'assets', name), bytes);
      assets.set(abs, `assets/${name}`);
    }
    return assets.get(abs);
  };

  const pages = files.map((file) => {
    const source = fs.readFileSync(path.join(srcDir, file), 'utf8');
    const title = /^#\s+(.+)$/m.exec(source)?.[1].trim();
    if (!title) throw new Error(`${file}: the page needs a "# title" line`);
    return { file, slug: slugOf(file), title, source };
  });
  const bySource = new Map(pages.map((p) => [p.file, p]));

  let current = null;

  md.core.ruler.push('guide_heading_ids', (state) => {
    const used = state.env.ids;
    if (!used) return;
    state.tokens.forEach((tok, i) => {
      if (tok.type === 'heading_open' && tok.tag !== 'h1') tok.attrSet('id', headingId(state.tokens[i + 1].content, used));
    });
  });
  /** Section links (`account.md#登录状态与安全`), checked once every page's heading ids are known. */
  const anchors = [];

  const renderLink = md.renderer.rules.link_open ?? ((tokens, idx, opts, _env, self) => self.renderToken(tokens, idx, opts));
  md.renderer.rules.link_open = (tokens, idx, opts, env, self) => {
    const tok = tokens[idx];
    const href = tok.attrGet('href') ?? '';
    const m = pageLink(decodeURI(href));
    if (m) {
      const target = bySource.get(m[1]);
      if (!target) throw new Error(`${current.file}: link to a page that does not exist: ${href}`);
      if (m[2]) anchors.push({ from: current.file, target, id: m[2].slice(1) });
      tok.attrSet('href', `${target.slug}.html${m[2] ?? ''}`);
    } else if (href.startsWith('/') && !/^\/(?:console|guide)\//.test(href)) {
      // The gateway serves the console under /console/ and the guide under /guide/; anything else on this
      // origin is an API path, and a bare /pay answers raw JSON 1205 instead of a page.
      throw new Error(`${current.file}: a link on this site must start with /console/ or /guide/: ${href}`);
    } else if (/^https?:\/\//.test(href)) {
      tok.attrSet('target', '_blank');
      tok.attrSet('rel', 'noopener noreferrer');
    }
    return renderLink(tokens, idx, opts, env, self);
  };

  const renderImage = md.renderer.rules.image;
  md.renderer.rules.image = (tokens, idx, opts, env, self) => {
    const tok = tokens[idx];
    const src = decodeURI(tok.attrGet('src') ?? '');
    if (/^[a-z]+:|^\//i.test(src)) throw new Error(`${current.file}: images must be files under docs/guide/images: ${src}`);
    const abs = path.resolve(srcDir, src);
    if (!abs.startsWith(srcDir + path.sep) || !fs.existsSync(abs)) throw new Error(`${current.file}: image not found: ${src}`);
    tok.attrSet('src', asset(abs));
    tok.attrSet('loading', 'lazy');
    return renderImage(tokens, idx, opts, env, self);
  };

  const css = asset(path.join(srcDir, 'guide.css'));
  const esc = md.utils.escapeHtml;

  pages.forEach((page, i) => {
    current = page;
    page.ids = new Set();
    const body = md.render(page.source, { ids: page.ids });
    const nav = pages
      .map((p) => {
        const here = p === page ? ' aria-current="page"' : '';
        return `<li><a href="${p.slug}.html"${here}>${esc(p.title)}</a></li>`;
      })
      .join('\n        ');
    const prev = pages[i - 1];
    const next = pages[i + 1];
    const pager = [
      prev ? `<a class="prev" href="${prev.slug}.html">← ${esc(prev.title)}</a>` : '<span></span>',
      next ? `<a class="next" href="${next.slug}.html">${esc(next.title)} →</a>` : '<span></span>',
    ].join('\n      ');
    const docTitle = page.slug === 'index' ? SITE_TITLE : `${page.title} - ${SITE_TITLE}`;
    const html = `<!doctype html>
<html lang="zh-CN">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${esc(docTitle)}</title>
  <link rel="stylesheet" href="${css}">
  <link rel="icon" href="data:,"><!-- no icon: spares the browser's /favicon.ico probe (a 404) -->
</head>
<body>
  <header class="top">
    <a class="brand" href="index.html">${esc(SITE_TITLE)}</a>
    <a class="console" href="${CONSOLE_URL}">进入控制台</a>
  </header>
  <div class="layout">
    <nav class="toc" aria-label="指南目录">
      <ul>
        ${nav}
      </ul>
    </nav>
    <main class="content">
${body}
      <nav class="pager" aria-label="翻页">
      ${pager}
      </nav>
    </main>
  </div>
</body>
</html>
`;
    fs.writeFileSync(path.join(outDir, `${page.slug}.html`), html);
  });

  const broken = anchors.filter((a) => !a.target.ids.has(a.id)).map((a) => `${a.from} → ${a.target.file}#${a.id}`);
  if (broken.length) throw new Error(`links to sections that do not exist: ${broken.join(', ')}`);

  return pages.map(({ file, slug, title }) => ({ file, slug, title }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const outDir = process.argv[2] ? path.resolve(process.argv[2]) : GUIDE_OUT;
  const pages = buildGuide({ outDir });
  console.log(`user guide: ${pages.length} pages → ${path.relative(process.cwd(), outDir) || '.'}`);
}
