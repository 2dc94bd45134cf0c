/**
 * ESLint rule `suanli/file-length`: a source file is at most 400 lines (the product's bar, quality.md) unless
 * its first line says why it is longer — `// Over 400 lines: <reason>` (after a `#!` line in a script). The
 * reason must say something (ten characters at least), and a file that is no longer long loses it, so a
 * reason on a file is always true. Applied to every .ts/.tsx/.mjs under apps/, packages/, e2e/, bench/ and
 * scripts/ (eslint.config.js); `file-length.test.ts` shows it failing.
 */
export const MAX_LINES = 400;
const REASON = /^\/\/ Over 400 lines: (.*)$/;

export const fileLength = {
  meta: {
    type: 'suggestion',
    docs: { description: 'A source file is at most 400 lines unless its first line gives the reason.' },
    messages: {
      tooLong: 'This file has {{lines}} lines (at most {{max}}): split it, or say why it is longer on its first line: `// Over 400 lines: <reason>`.',
      noReason: 'This file has {{lines}} lines: its first line must say why (`// Over 400 lines: <reason>`, ten characters at least).',
      stale: 'This file has {{lines}} lines, no more than {{max}}: take the `// Over 400 lines:` reason off its first line.',
    },
    schema: [],
  },
  create(context) {
    return {
      Program(node) {
        const all = context.sourceCode.lines;
        // What `wc -l` counts: a final newline ends the last line, it does not start another.
        const lines = all.length - (all[all.length - 1] === '' ? 1 : 0);
        const first = all[0]?.startsWith('#!') ? all[1] : all[0];
        const marker = REASON.exec(first ?? '');
        const data = { lines, max: MAX_LINES };
        if (lines <= MAX_LINES) {
          if (marker) context.report({ node, loc: { line: 1, column: 0 }, messageId: 'stale', data });
          return;
        }
        if (!marker) context.report({ node, loc: { line: 1, column: 0 }, messageId: 'tooLong', data });
        else if (marker[1].trim().length < 10) context.report({ node, loc: { line: 1, column: 0 }, messageId: 'noReason', data });
      },
    };
  },
};
