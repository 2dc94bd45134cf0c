/** The route walk's raw-id detector (support/walk.ts): the texts it reads and what counts as an id there. */
import type { Page } from 'playwright-core';

/** The UI's texts the way support/english.ts reads them (visible text, aria-label, title, placeholder, alt), code left out. */
function uiTexts(p: Page): Promise<{ where: string; text: string }[]> {
  return p.evaluate(() => {
    const SKIP = '.xterm, code, pre, kbd, samp, script, style, noscript, textarea';
    const ATTRS = ['aria-label', 'title', 'placeholder', 'alt'];
    const describe = (el: Element) => {
      const id = el.getAttribute('data-testid');
      const cls = String(el.getAttribute('class') ?? '').split(/\s+/).filter(Boolean).slice(0, 2).join('.');
      return `${el.tagName.toLowerCase()}${id ? `[${id}]` : ''}${cls ? `.${cls}` : ''}`;
    };
    const out: { where: string; text: string }[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      if (el.closest(SKIP)) continue;
      for (const a of ATTRS) {
        const v = el.getAttribute(a);
        if (v?.trim()) out.push({ where: `${describe(el)} @${a}`, text: v.trim() });
      }
      for (const n of Array.from(el.childNodes)) {
        if (n.nodeType === Node.TEXT_NODE && n.textContent?.trim()) out.push({ where: describe(el), text: n.textContent.trim() });
      }
    }
    return out;
  });
}

/** A generated record id (apps/server/src/lib/id.ts): 20 base-36 characters, digits and letters both. */
const GENERATED_ID = /^(?=.*\d)(?=.*[a-z])[0-9a-z]{20}$/;

/**
 * Raw ids where a name exists (the walk's check, support/walk.ts): a generated record id, or an id `named` maps
 * to a name (the configuration's and the walk's records), as a whole word in the UI's texts.
 */
export async function rawIds(p: Page, named: ReadonlyMap<string, string>): Promise<string[]> {
  const found: string[] = [];
  for (const { where, text } of await uiTexts(p)) {
    for (const token of text.split(/[^A-Za-z0-9._-]+/)) {
      if (!token) continue;
      const name = named.get(token);
      if (name !== undefined && name !== token) found.push(`"${token}" (name: ${name}) in ${where}: ${text.slice(0, 100)}`);
      else if (GENERATED_ID.test(token)) found.push(`id "${token}" in ${where}: ${text.slice(0, 100)}`);
    }
  }
  return [...new Set(found)];
}
