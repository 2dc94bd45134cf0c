/** Constants fixed by the spec (console-spec.md §9) and the design documents. */
export const CONSOLE_BASE_PATH = '/console';
export const DEFAULT_ROUTE = '/training';
export const HTTP_TIMEOUT_MS = 120_000;

export const SOCKET_RECONNECT_MS = 5_000;
export const SOCKET_TOKEN_RECHECK_MS = 3_000;
export const SOCKET_KEEPALIVE_MS = 10_000;
/** The server closes a socket that has been silent this long. */
export const SOCKET_IDLE_CLOSE_MS = 60_000;
/** WebSocket close code for a missing, unknown, expired or revoked token. */
export const SOCKET_CLOSE_BAD_TOKEN = 4001;
/** Base of the gateway's sockets: live updates here, the web shell (`/shell`) later. */
export const WS_BASE = '/gateway/ws/api';
export const WS_PATH = `${WS_BASE}/ws`;

export const SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_TIMEOUT_MS = 12 * 3600_000;

export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_LOCK_MS = 15 * 60_000;

export const CODE_LENGTH = 6;
export const CODE_TTL_MS = 5 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
export const CODE_RESEND_MS = 60_000;
export const CODE_MAX_PER_DAY = 10;

export const RSA_KEY_BITS = 1024;
/** keyBytes − 11: the PKCS#1 v1.5 payload limit per chunk for a 1024-bit key. */
export const RSA_CHUNK_BYTES = 117;

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

export const PAGE_SIZE_DEFAULT = 10;
export const PAGE_SIZE_MAX = 100;

export const UPLOAD_CHUNK_SIZE = 8 * 1024 * 1024;
export const UPLOAD_CONCURRENCY = 3;
/** Files up to this size go through the single-request upload. */
export const SMALL_UPLOAD_MAX = 8 * 1024 * 1024;

export const UPLOAD_PANEL_WIDTH = '40rem';
export const UPLOAD_TABLE_SCROLL_Y = 360;
/**
 * What the upload panel says about leaving the page, truthfully (issue 22 item 3): uploads in progress stop,
 * but the server keeps the received chunks; the panel then lists them as 中断的上传, and 继续 with the same
 * file (or the same file uploaded to the same folder again) resumes from where it stopped.
 */
export const UPLOAD_REFRESH_WARNING = '刷新或关闭页面会中断正在进行的上传；中断的上传会列在本面板中，点击“继续”并选择同一文件即可从中断处继续';
/** The upload panel with nothing listed (a reload clears the list, not what the server received). */
export const UPLOAD_EMPTY_HINT = '暂无上传任务。上传被中断的文件，重新选择同一文件上传到同一文件夹即可从中断处继续';

/** The fixed client identifier the console sends on logout. */
export const APP_CLIENT_ID = 'suanli-console';
/** localStorage key of the signed-in user's info. */
export const USER_STORAGE_KEY = 'suanli.userInfo';

export const BREAKPOINTS = { xs: 575, sm: 576, md: 768, lg: 992, xl: 1200, xxl: 1600, xxxl: 2000 } as const;

export const PATTERNS = {
  username: /^[A-Za-z0-9_]{4,32}$/,
  phone: /^1\d{10}$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
} as const;
