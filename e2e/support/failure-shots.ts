import fs from 'node:fs';
import path from 'node:path';
import { beforeEach } from 'vitest';
import { ARTIFACTS, browsers } from './env';

/**
 * A journey that fails leaves a screenshot of every page still open (tests close their contexts only when
 * they get through) in e2e/artifacts/failed/: what a person would have seen when the assertion gave up. An
 * intermittent failure on CI is otherwise only a timeout and a locator.
 */
beforeEach(({ task, onTestFailed }) => {
  onTestFailed(async () => {
    const dir = path.join(ARTIFACTS, 'failed');
    fs.mkdirSync(dir, { recursive: true });
    const base = task.name.replace(/[^\p{L}\p{N}]+/gu, '-').slice(0, 80);
    const pages = [...browsers].flatMap((b) => b.contexts().flatMap((c) => c.pages()));
    await Promise.all(pages.map((p, i) => p.screenshot({ path: path.join(dir, `${base}-${i + 1}.png`), fullPage: true, timeout: 10_000 }).catch(() => undefined)));
  });
});
