import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';

// STUB — owned by the realtime/message work: /gateway/ws/api/ws hub.
export async function registerWs(_app: FastifyInstance, _ctx: AppContext) {}
