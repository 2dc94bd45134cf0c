import type { AppContext, NewMessage } from '../../context';

// STUB — owned by the realtime/message work: repository, paging, unread count, view, notify + bus publish.
export class MessageService {
  constructor(private readonly ctx: AppContext) {}
  async notify(_userId: string, _message: NewMessage): Promise<void> {
    void this.ctx;
  }
}

export function createMessageService(ctx: AppContext): MessageService {
  return new MessageService(ctx);
}
