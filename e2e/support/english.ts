import type { Page } from 'playwright-core';

export interface Leak {
  word: string;
  where: string;
  text: string;
}

/**
 * Every piece of UI text on the page a person sees or a screen reader reads: visible text and the
 * `aria-label`, `title`, `placeholder`, `alt` (and `aria-roledescription`) attributes of every element,
 * portals (dialogs, dropdowns) included. Terminal output and code (`.xterm`, `code`, `pre`, `kbd`) are the
 * user's data or commands, not UI prose, and are left out.
 */
async function uiTexts(page: Page): Promise<{ where: string; text: string }[]> {
  return page.evaluate(() => {
    const SKIP = '.xterm, code, pre, kbd, samp, script, style, noscript';
    const ATTRS = ['aria-label', 'title', 'placeholder', 'alt', 'aria-roledescription'];
    const describe = (el: Element) => {
      const id = el.getAttribute('data-testid');
      const cls = String(el.getAttribute('class') ?? '').split(/\s+/).filter(Boolean).slice(0, 2).join('.');
      return `${el.tagName.toLowerCase()}${id ? `[${id}]` : ''}${cls ? `.${cls}` : ''}`;
    };
    const clippedToNothing = (el: Element) => {
      for (let a: Element | null = el; a; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.display === 'none') return true;
        const r = a.getBoundingClientRect();
        if (r.width * r.height === 0 && style.overflow === 'hidden') return true;
      }
      return false;
    };
    const out: { where: string; text: string }[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (el.closest(SKIP)) continue;
      for (const a of ATTRS) {
        const v = el.getAttribute(a);
        if (v?.trim()) out.push({ where: `${describe(el)} @${a}`, text: v.trim() });
      }
      // A text area's text is what the user typed (or a script to edit), not UI.
      if (el.matches('textarea')) continue;
      // Content under an element that names itself (aria-label, checked above) and clipped to nothing: it is
      // neither seen nor read. rc-select keeps such a listbox for screen readers (a 0×0 box with overflow
      // hidden) whose options hold the option values as text and their labels as aria-label; once the
      // dropdown closes, the whole popup is display:none. An option without a string label has no aria-label,
      // so its value is read out and still counted here.
      const named = el.closest('[aria-label]');
      if (named && clippedToNothing(el)) continue;
      for (const n of Array.from(el.childNodes)) {
        if (n.nodeType === Node.TEXT_NODE && n.textContent?.trim()) out.push({ where: describe(el), text: n.textContent.trim() });
      }
    }
    return out;
  });
}

/**
 * Latin-letter words a Chinese UI keeps as they are: product and technical names, units, commands.
 * Compared case-insensitively.
 */
const ALLOWED = new Set(
  [
    // scheduler, shells, keys, protocols and formats
    'Slurm', 'SSH', 'OpenSSH', 'Shell', 'Jupyter', 'Notebook', 'IDE', 'sbatch', 'srun', 'chmod', 'RSA', 'ECDSA', 'ssh-rsa', 'README', 'GPU',
    'CPU', 'NPU', 'DCU', 'ID', 'UID', 'IP', 'URL', 'API', 'HTTP', 'HTTPS', 'TLS', 'OCI', 'JSON', 'CSV', 'UTC', 'PNG', 'JPG', 'JPEG', 'WEBP', 'GIF',
    'Ctrl', 'Shift', 'Enter', 'Esc', 'Tab', 'AI', 'MPI',
    // units
    'B', 'KB', 'MB', 'GB', 'TB', 'PB', 'KiB', 'MiB', 'GiB', 'TiB', 'GFLOPS',
    // hardware, vendors, frameworks and science (center inventory, public images, platform templates)
    'NVIDIA', 'CUDA', 'CANN', 'DTK', 'PyTorch', 'TensorFlow', 'MindSpore', 'Python', 'NumPy', 'SciPy', 'pandas',
    'torchvision', 'torchaudio', 'torchrun',
    'LAMMPS', 'GROMACS', 'Lennard-Jones', 'NVE', 'fcc', 'MNIST', 'MLP',
    // payment
    'Alipay',
  ].map((w) => w.toLowerCase()),
);

/**
 * The words of `text` a Chinese UI must not show. A word is a run of Latin letters (hyphens inside) standing
 * alone; tokens with digits, dots, slashes, underscores or `@` are identifiers, file names, paths, versions
 * and addresses (A100, szu0001, train.py, ~/.ssh, REGISTRY_URL), single letters are symbols (x, N, C).
 */
export function englishWords(text: string): string[] {
  const flat = text.replace(/\bOpen MPI\b/g, ' ');
  const tokens = flat.split(/[^A-Za-z0-9_.@/~:+-]+/).filter(Boolean);
  return tokens.filter((t) => /^[A-Za-z]+(-[A-Za-z]+)*$/.test(t) && t.length > 1 && !ALLOWED.has(t.toLowerCase()));
}

/** The English the page shows or reads out; `allow` adds words this page legitimately shows (test data). */
export async function englishLeaks(page: Page, allow: string[] = []): Promise<Leak[]> {
  const extra = new Set(allow.map((w) => w.toLowerCase()));
  const leaks: Leak[] = [];
  for (const { where, text } of await uiTexts(page)) {
    for (const word of englishWords(text)) if (!extra.has(word.toLowerCase())) leaks.push({ word, where, text: text.slice(0, 120) });
  }
  return leaks;
}

/** A readable list of leaks for a failure message: one line per distinct word and place. */
export function describeLeaks(route: string, leaks: Leak[]): string[] {
  return [...new Set(leaks.map((l) => `${route}: "${l.word}" in ${l.where}: ${l.text}`))];
}
