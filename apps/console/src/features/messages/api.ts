import { MESSAGE_BASE, type Message, type MessageType, type Page } from '@suanli/contracts';
import { request } from '../../app/request';

export interface MessageQuery {
  pageNum: number;
  pageSize: number;
  viewed?: boolean;
  type?: MessageType;
}

export function queryMessages(query: MessageQuery): Promise<Page<Message>> {
  return request.post<Page<Message>>(`${MESSAGE_BASE}/query`, { data: query });
}

export function viewMessages(ids: string[]): Promise<null> {
  return request.post<null>(`${MESSAGE_BASE}/view`, { data: { ids } });
}

export function viewAllMessages(): Promise<null> {
  return request.post<null>(`${MESSAGE_BASE}/view/all`, { data: {} });
}
