import { Type, type Static } from '@sinclair/typebox';
import { Id, Millis, Page, PageQuery } from './common';
import { route, type SchemasOf } from './route';
import { WS_BASE } from './constants';

/** REST calls of the web shell (which centers offer one; the caller's own session records). */
export const ESHELL_BASE = '/gateway/eshell/api/v1';
/**
 * The web shell socket (design/api-contract.md): `SHELL_WS_PATH?token=…&centerId=…&cwd=…&cols=…&rows=…`,
 * same token and Origin rules as the live-updates socket. `cwd` is a folder of the user's home as the
 * storage page names it (`/`, `/docs`); `..` or anything outside the home is refused (1308).
 *
 * Client → server: text frames holding one `ShellClientFrame` as JSON.
 * Server → client: binary frames are terminal output (raw bytes); text frames hold one `ShellServerFrame`.
 */
export const SHELL_WS_PATH = `${WS_BASE}/shell`;

export type ShellClientFrame =
  | { type: 'data'; data: string }
  | { type: 'resize'; cols: number; rows: number }
  /** Keeps a quiet terminal's socket alive through proxies; it does not count as activity for the idle timeout. */
  | { type: 'ping' };

export type ShellState = 'connecting' | 'connected' | 'closed';
/** `text` is the Chinese status line the console prints into the terminal. */
export type ShellServerFrame = { type: 'status'; state: ShellState; text: string };

/** Status lines (the server sends them; the console prints its own for a dropped network). */
export const SHELL_TEXT = {
  connecting: '连接中…',
  closed: '连接已断开',
  idle: '空闲超时，连接已关闭',
  revoked: '登录状态已失效，连接已关闭',
  exited: '终端已退出',
} as const;

/**
 * Close codes of the shell socket besides SOCKET_CLOSE_BAD_TOKEN (4001, reason = session code):
 * - SHELL_CLOSE_IDLE: no input for the idle timeout (the last status line says so);
 * - SHELL_CLOSE_REFUSED: the shell could not be opened, reason = the error code (1005 bad parameter, 1205
 *   unknown center, 1308 illegal path, 2250 too many sessions, 2251 not offered, 2252 login node
 *   unreachable); the console shows ERROR_MESSAGES[reason] and does not reconnect;
 * - 1000: the shell exited (`exit`); the console does not reconnect.
 * Any other close (1006 network drop, 1001 server restart) is reconnected by the console with backoff.
 */
export const SHELL_CLOSE_IDLE = 4408;
export const SHELL_CLOSE_REFUSED = 4400;
export const SHELL_COLS_MAX = 500;
export const SHELL_ROWS_MAX = 200;

/** How a center's shell is reached: SSH to its login node, a local shell (embedded default), or none here. */
export const ShellTransportKind = Type.Union([Type.Literal('ssh'), Type.Literal('local'), Type.Literal('none')]);
export type ShellTransportKind = Static<typeof ShellTransportKind>;

export const ShellCenter = Type.Object({
  centerId: Id,
  centerName: Type.String(),
  transport: ShellTransportKind,
  /** Why `none` (shown in the page), e.g. the local shell is offered only on a loopback-bound server. */
  note: Type.String(),
});
export type ShellCenter = Static<typeof ShellCenter>;
export const ShellCenterList = Type.Array(ShellCenter);
export type ShellCenterList = Static<typeof ShellCenterList>;

/** One shell or proxy session (access-log): who, where, as which account, when, and why it ended. */
export const AccessSessionKind = Type.Union([Type.Literal('shell'), Type.Literal('proxy')]);
export type AccessSessionKind = Static<typeof AccessSessionKind>;
export const AccessSession = Type.Object({
  id: Id,
  kind: AccessSessionKind,
  centerId: Type.String(),
  centerName: Type.String(),
  account: Type.String(),
  /** Shell: ssh | local; proxy: the task id. */
  target: Type.String(),
  startTime: Millis,
  endTime: Type.Union([Millis, Type.Null()]),
  /** idle | closed | exited | revoked | error | server (the gateway stopped) … ; '' while open. */
  endReason: Type.String(),
});
export type AccessSession = Static<typeof AccessSession>;
export const AccessSessionQuery = Type.Composite([PageQuery, Type.Object({ kind: Type.Optional(AccessSessionKind) })]);
export type AccessSessionQuery = Static<typeof AccessSessionQuery>;
export const AccessSessionPage = Page(AccessSession);
export type AccessSessionPage = Page<AccessSession>;

/** Operators' view: every user's records, with who and from where. */
export const AccessSessionAdmin = Type.Composite([AccessSession, Type.Object({ userId: Id, clientIp: Type.String() })]);
export type AccessSessionAdmin = Static<typeof AccessSessionAdmin>;
export const AccessSessionAdminPage = Page(AccessSessionAdmin);
export type AccessSessionAdminPage = Page<AccessSessionAdmin>;

export const EshellApi = {
  centers: route<{ response: typeof ShellCenterList }>('GET', ESHELL_BASE, '/centers'),
  sessions: route<{ body: typeof AccessSessionQuery; response: typeof AccessSessionPage }>('POST', ESHELL_BASE, '/session/page'),
  allSessions: route<{ body: typeof AccessSessionQuery; response: typeof AccessSessionAdminPage }>('POST', ESHELL_BASE, '/admin/session/page', { role: 'operator' }),
};

export const EshellApiSchemas: SchemasOf<typeof EshellApi> = {
  centers: { summary: '可打开终端的分中心', response: ShellCenterList },
  sessions: { summary: '我的终端与开发环境访问记录', body: AccessSessionQuery, response: AccessSessionPage },
  allSessions: { summary: '全部用户的终端与开发环境访问记录（运营人员）', body: AccessSessionQuery, response: AccessSessionAdminPage },
};
