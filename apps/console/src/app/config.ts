/**
 * Deployment settings compiled into the console. Each can be overridden at build time with the matching
 * `VITE_*` variable; the defaults fit the embedded gateway of `npm start`.
 */
const env = import.meta.env;

/** Sent as `Agent-Token: Bearer <value>`: identifies this client build, it is not a credential. */
export const AGENT_TOKEN: string = env.VITE_AGENT_TOKEN || 'suanli-console-web';

/** External help documentation, opened in a new window from the avatar menu. */
export const HELP_DOC_URL: string = env.VITE_HELP_URL || 'https://docs.example.com/suanli';

/** API base address; empty means the console's own origin (the gateway serves both). */
export const API_BASE_URL: string = env.VITE_API_BASE_URL || '';
