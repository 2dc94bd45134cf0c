/** The console's one monospace stack (scripts, commands, paths, logs), ending in what Debian's Chromium has. */
export const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';
