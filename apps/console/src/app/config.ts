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
 * Where the header's 剩余算力 leads (new window). Buying compute is not in the console yet, so by default
 * the guide's page on compute power, which says what 卡时 are and how compute is obtained; once the
 * purchase page exists this becomes that page.
 */
export const COMP_POWER_URL: string = env.VITE_COMP_POWER_URL || '/guide/compute-power.html';

/** API base address; empty means the console's own origin (the gateway serves both). */
export const API_BASE_URL: string = env.VITE_API_BASE_URL || '';
