/**
 * Deployment settings compiled into the console. Each can be overridden at build time with the matching
 * `VITE_*` variable; the defaults fit the embedded gateway of `npm start`.
 */
const env = import.meta.env;

/** Sent as `Agent-Token: Bearer <value>`: identifies this client build, it is not a credential. */
export const AGENT_TOKEN: string = env.VITE_AGENT_TOKEN || 'suanli-console-web';

/**
 * The user guide, opened in a new window from the avatar menu's 帮助文档. By default the one the gateway
 * ships and serves at /guide/ (docs/guide, built by scripts/build-guide.mjs).
 */
export const HELP_DOC_URL: string = env.VITE_HELP_URL || '/guide/';

/**
 * The guide's page on compute power (what 卡时 and 标准卡时 are, how compute is bought and drawn), opened in
 * a new window from 算力说明 in the header's compute-power tooltip. 剩余算力 itself opens 费用明细 in the console.
 */
export const COMP_POWER_URL: string = env.VITE_COMP_POWER_URL || '/guide/compute-power.html';

/** API base address; empty means the console's own origin (the gateway serves both). */
export const API_BASE_URL: string = env.VITE_API_BASE_URL || '';
