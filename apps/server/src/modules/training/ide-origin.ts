/**
 * Where develop tasks' IDEs are served: an origin of their own per task, never the console's (issue 17,
 * ADR 0014). Code the user controls — notebook outputs, Jupyter extensions, a shared notebook's script — runs
 * on that origin and so cannot read the console's storage (the session token lives in its localStorage) or
 * send requests with the console's credentials.
 *
 * The template has one `{task}` in its host: `http://{task}.ide.localhost:8080` in the embedded default
 * (browsers resolve every `*.localhost` name to loopback), `https://{task}.ide.example.cn` behind a wildcard
 * DNS record and certificate in a deployment (docs/operations/ide-origin.md).
 */
export class IdeOrigin {
  private cached: { template: string; re: RegExp } | undefined;

  /** `template` is read on every use: tests learn their port only after listening. */
  constructor(private readonly template: () => string) {}

  /** The origin of one task's IDE (`http://<id>.ide.localhost:8080`). */
  of(taskId: string): string {
    return this.template().replace('{task}', taskId);
  }

  /** Whether the IDE origin is https (its cookie is then `Secure`). */
  get secure(): boolean {
    return this.template().startsWith('https:');
  }

  /**
   * The task whose IDE a request's `Host` header names, or null for any other host (the console, the API).
   * Compared on the host name only: a proxy in front may or may not keep the port.
   */
  taskOf(hostHeader: string | undefined): string | null {
    if (!hostHeader) return null;
    const m = this.pattern().exec(stripPort(hostHeader.toLowerCase()));
    return m ? m[1] : null;
  }

  private pattern(): RegExp {
    const template = this.template();
    if (this.cached?.template !== template) {
      const host = new URL(template.replace('{task}', 'x-task-x')).hostname;
      const [before, after] = host.split('x-task-x');
      // Task ids are lower-case base-36 (lib/id.ts): one DNS label.
      this.cached = { template, re: new RegExp(`^${escape(before)}([0-9a-z]{1,40})${escape(after)}$`) };
    }
    return this.cached.re;
  }
}

/**
 * The default IDE origin for a console at `publicUrl`: `{task}.ide.<its host>` on the same scheme and port;
 * for a console reached by IP address or as `localhost`, `{task}.ide.localhost` (there is no name to put
 * subdomains under; it works for a browser on the gateway's own machine — a deployment sets IDE_ORIGIN).
 */
export function defaultIdeOrigin(publicUrl: string): string {
  const u = new URL(publicUrl);
  const byAddress = u.hostname === 'localhost' || /^[\d.]+$/.test(u.hostname) || u.hostname.startsWith('[');
  const host = byAddress ? 'ide.localhost' : `ide.${u.hostname}`;
  return `${u.protocol}//{task}.${host}${u.port ? `:${u.port}` : ''}`;
}

/** Checks an IDE_ORIGIN value: a scheme, one `{task}` at the start of the host, nothing after the port. */
export function checkIdeOrigin(template: string): string {
  const t = template.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/\{task\}\.[a-z0-9.-]+(:\d+)?$/i.test(t)) {
    throw new Error(`IDE_ORIGIN must look like https://{task}.ide.example.cn (got ${template})`);
  }
  return t;
}

function stripPort(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const i = host.lastIndexOf(':');
  return i < 0 ? host : host.slice(0, i);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
