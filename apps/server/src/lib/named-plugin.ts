/**
 * Gives a plugin the name fastify shows for it (its plugin tree, a registration's error). Without one fastify
 * looks the function up among the exports of every loaded CommonJS module (`getPluginName` walks all of
 * `require.cache`) twice per registration: ~10 % of the CPU of building an app in a test process, which has
 * every package of the server loaded and builds hundreds of apps (issue 26); a little of every gateway's and
 * file service's start.
 */
export function named<T extends object>(plugin: T, name: string): T {
  const key = Symbol.for('fastify.display-name');
  if (!(key in plugin)) Object.defineProperty(plugin, key, { value: name });
  return plugin;
}
