import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { KeyPairApi, KeyPairApiSchemas } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal, tokenOf } from '../../plugins/auth';
import type { KeyPairService } from './keypair.service';

/** Registered under KEYPAIR_BASE. */
export function keypairRoutes(keys: KeyPairService): FastifyPluginAsyncTypebox {
  return async (app) => {
    serve(
      app,
      KeyPairApi,
      KeyPairApiSchemas,
      {
        list: async (req) => ok(await keys.list(principal(req))),
        generate: async (req) => ok(await keys.generate(principal(req), req.body)),
        import: async (req) => ok(await keys.import(principal(req), req.body)),
        install: async (req) => ok(await keys.install(principal(req), tokenOf(req)!, req.params.id, req.body.subCenterIds)),
        uninstall: async (req) => ok(await keys.uninstall(principal(req), tokenOf(req)!, req.params.id, req.body.subCenterIds)),
        remove: async (req) => ok(await keys.remove(principal(req), tokenOf(req)!, req.params.id)),
      },
      ['keypair'],
    );
  };
}
