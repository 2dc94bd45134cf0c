import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';

// STUB — owned by the file-service work: mounts one file service per local center at /file-service/{id}.
export async function mountFileServices(_app: FastifyInstance, _ctx: AppContext) {}
