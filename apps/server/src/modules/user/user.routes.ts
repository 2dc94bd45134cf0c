import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context';

// STUB — owned by the user-service work.
export async function userRoutes(_app: FastifyInstance, _ctx: AppContext) {}
