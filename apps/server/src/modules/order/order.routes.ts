import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context';

// STUB — owned by the realtime/message work (GET /comp-powers/{userId}).
export async function orderRoutes(_app: FastifyInstance, _ctx: AppContext) {}
