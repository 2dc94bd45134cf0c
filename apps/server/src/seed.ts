import type { FastifyInstance } from 'fastify';

// STUB — owned by the user-service work: creates the demo account (argon2id) if missing and prints it.
export async function seedDemo(_app: FastifyInstance): Promise<void> {}
