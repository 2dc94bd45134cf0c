import type { MessageInstance } from 'antd/es/message/interface';

/**
 * Toasts for code outside React (the request pipeline, the session handler) and for pages.
 *
 * antd's message is loaded on the first toast instead of with the app: the login page's first load stays
 * lighter, and a toast a few milliseconds late is unnoticeable. The providers give antd's static methods
 * the app's theme and locale (`ConfigProvider.config({ holderRender })`).
 */
type MessageApi = Pick<MessageInstance, 'error' | 'warning' | 'success'>;

let loaded: Promise<MessageApi> | null = null;

function messageApi(): Promise<MessageApi> {
  loaded ??= import('antd/es/message').then((m) => m.default);
  return loaded;
}

export interface Toast {
  error(content: string, key?: string): void;
  warning(content: string, key?: string): void;
  success(content: string, key?: string): void;
}

function show(level: keyof MessageApi, content: string, key?: string) {
  void messageApi().then((api) => api[level](key ? { content, key } : content));
}

/** `key` de-duplicates: several parallel failures with the same key show one toast. */
export const toast: Toast = {
  error: (content, key) => show('error', content, key),
  warning: (content, key) => show('warning', content, key),
  success: (content, key) => show('success', content, key),
};
