import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, IdParams, KeyPair, KeyPairGenerate, KeyPairGenerated, KeyPairImport, KeyPairList, KeyPairTargets, Null } from '@suanli/contracts';
import { ok } from '../../lib/reply';
import { principal, tokenOf } from '../../plugins/auth';
import type { KeyPairService } from './keypair.service';

/** Registered under KEYPAIR_BASE. */
export function keypairRoutes(keys: KeyPairService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['keypair'];
    app.get('/keypairs', {
      schema: { tags, summary: '我的密钥对（指纹与安装位置）', response: { 200: Envelope(KeyPairList) } },
      handler: async (req) => ok(await keys.list(principal(req))),
    });
    app.post('/keypairs/generate', {
      schema: { tags, summary: '生成密钥对（私钥仅在此返回一次，平台不保存）', body: KeyPairGenerate, response: { 200: Envelope(KeyPairGenerated) } },
      handler: async (req) => ok(await keys.generate(principal(req), req.body)),
    });
    app.post('/keypairs/import', {
      schema: { tags, summary: '导入公钥', body: KeyPairImport, response: { 200: Envelope(KeyPair) } },
      handler: async (req) => ok(await keys.import(principal(req), req.body)),
    });
    app.post('/keypairs/:id/install', {
      schema: { tags, summary: '安装到所选分中心的集群账号', params: IdParams, body: KeyPairTargets, response: { 200: Envelope(KeyPair) } },
      handler: async (req) => ok(await keys.install(principal(req), tokenOf(req)!, req.params.id, req.body.subCenterIds)),
    });
    app.post('/keypairs/:id/uninstall', {
      schema: { tags, summary: '从所选分中心卸载', params: IdParams, body: KeyPairTargets, response: { 200: Envelope(KeyPair) } },
      handler: async (req) => ok(await keys.uninstall(principal(req), tokenOf(req)!, req.params.id, req.body.subCenterIds)),
    });
    app.delete('/keypairs/:id', {
      schema: { tags, summary: '删除密钥对（先从所有分中心卸载）', params: IdParams, response: { 200: Envelope(Null) } },
      handler: async (req) => ok(await keys.remove(principal(req), tokenOf(req)!, req.params.id)),
    });
  };
}
