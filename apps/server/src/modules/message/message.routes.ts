import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context';
import type { MessageService } from './message.service';

// STUB — owned by the realtime/message work.
export async function messageRoutes(_app: FastifyInstance, _ctx: AppContext, _messages: MessageService) {}
