import { MESSAGE_BASE } from '@suanli/contracts';
import type { AppContext } from '../../context';
import type { ModuleMount } from '../module-mount';
import { MessageRepository } from './message.repository';
import { messageRoutes } from './message.routes';
import { MessageService } from './message.service';

/**
 * Messages: the caller's list and read state (routes under MESSAGE_BASE) and `notify`/`notifyEach`, which
 * every later module receives through the context. Built first, from infrastructure only.
 */
export function createMessageModule(deps: Pick<AppContext, 'db' | 'clock' | 'bus'>) {
  const service = new MessageService(new MessageRepository(deps.db), deps.clock, deps.bus);
  return {
    service,
    notify: service.notify.bind(service),
    notifyEach: service.notifyEach.bind(service),
    mount: { name: 'message', routes: [{ prefix: MESSAGE_BASE, plugin: messageRoutes(service) }] } satisfies ModuleMount,
  };
}
