import { MessageApi, type RouteInput, type TypesOf } from '@suanli/contracts';
import { call } from '../../app/request';

export type MessageQuery = RouteInput<TypesOf<typeof MessageApi.query>>['body'];

export function queryMessages(query: MessageQuery) {
  return call(MessageApi.query, { body: query });
}

export function viewMessages(ids: string[]) {
  return call(MessageApi.view, { body: { ids } });
}

export function viewAllMessages() {
  return call(MessageApi.viewAll);
}
