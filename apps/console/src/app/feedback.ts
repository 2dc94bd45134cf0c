import { message } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';

/**
 * Toasts for code outside React. antd's static `message` cannot read the ConfigProvider context (theme,
 * locale), so the provider tree hands over its context-aware instance on mount; the static one is only
 * the fallback before that (and in unit tests).
 */
let api: Pick<MessageInstance, 'error' | 'warning' | 'success' | 'info'> = message;

export function setMessageApi(instance: MessageInstance): void {
  api = instance;
}

export interface Toast {
  error(content: string, key?: string): void;
  warning(content: string, key?: string): void;
  success(content: string, key?: string): void;
}

/** `key` de-duplicates: several parallel failures with the same key show one toast. */
export const toast: Toast = {
  error: (content, key) => void api.error(key ? { content, key } : content),
  warning: (content, key) => void api.warning(key ? { content, key } : content),
  success: (content, key) => void api.success(key ? { content, key } : content),
};
