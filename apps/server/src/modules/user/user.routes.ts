import fs from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AVATAR_MAX_BYTES, ErrorCode, UserApi, UserApiSchemas } from '@suanli/contracts';
import { AppError, invalid } from '../../errors';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal, tokenOf } from '../../plugins/auth';
import { IMAGE_TYPES } from './avatar';
import type { UserService } from './user.service';

/** Registered under USER_BASE. `rateLimitMax`: the API's per-IP limit, of which the guessing calls get 1/20. */
export function userRoutes(service: UserService, opts: { rateLimitMax: number }): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Per-IP limit on the calls that guess or send (on top of per-account lockout and per-target code limits).
    const sensitive = { config: { rateLimit: { max: Math.max(20, Math.ceil(opts.rateLimitMax / 20)), timeWindow: 60_000 } } };
    const meta = (req: { ip: string; headers: Record<string, unknown> }) => ({ ip: req.ip, userAgent: String(req.headers['user-agent'] ?? '') });

    serve(
      app,
      UserApi,
      UserApiSchemas,
      {
        rsaKey: async () => ok(await service.rsaKey()),
        sendCode: {
          options: sensitive,
          handler: async (req) => {
            await service.sendCode(req.body.scene, req.body.target, tokenOf(req));
            return ok(null);
          },
        },
        checkStatus: { options: sensitive, handler: async (req) => ok(await service.checkStatus(req.body.field, req.body.value)) },
        register: { options: sensitive, handler: async (req) => ok(await service.register(req.body)) },
        login: { options: sensitive, handler: async (req) => ok(await service.login(req.body.account, req.body.password, meta(req))) },
        logout: async (req) => {
          const token = tokenOf(req);
          if (token) await service.logout(token);
          return ok(null);
        },
        me: async (req) => ok(await service.me(principal(req))),
        updatePassword: async (req) => {
          await service.updatePassword(principal(req), req.body.oldPassword, req.body.newPassword, req.ip);
          return ok(null);
        },
        resetPassword: {
          options: sensitive,
          handler: async (req) => {
            await service.resetPassword(req.body.target, req.body.code, req.body.newPassword);
            return ok(null);
          },
        },
        updatePhone: async (req) => ok(await service.updatePhone(principal(req).userId, req.body.phone, req.body.code)),
        bindEmail: async (req) => ok(await service.bindEmail(principal(req).userId, req.body.email, req.body.code)),
        updateProfile: async (req) => ok(await service.updateProfile(principal(req).userId, req.body.nickname)),
        uploadAvatar: {
          options: { schema: { consumes: ['multipart/form-data'] } },
          handler: async (req) => {
            const me = principal(req);
            if (!req.isMultipart()) throw invalid('file', '请以 multipart/form-data 上传');
            const part = await req.file({ limits: { fileSize: AVATAR_MAX_BYTES, files: 1 } });
            if (!part || part.fieldname !== 'file') throw invalid('file', '不能为空');
            let bytes: Buffer;
            try {
              bytes = await part.toBuffer();
            } catch (err) {
              if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
                throw new AppError(ErrorCode.FILE_TOO_LARGE, '文件过大，头像不能超过 2 MB');
              }
              throw err;
            }
            return ok(await service.uploadAvatar(me.userId, bytes));
          },
        },
        // Names are random and the type was fixed by sniffing at upload.
        avatar: async (req, reply) => {
          const found = await service.locateAvatar(req.params.file);
          if (!found) throw new AppError(ErrorCode.NOT_FOUND, '头像不存在', 404);
          return reply
            .type(IMAGE_TYPES[found.kind])
            .header('x-content-type-options', 'nosniff')
            .header('content-length', found.size)
            .header('cache-control', 'public, max-age=31536000, immutable')
            .send(fs.createReadStream(found.file));
        },
        clusterAccounts: async (req) => ok(await service.agentUsers(principal(req).userId, req.query.subCenterId)),
        list: async (req) => ok(await service.list(req.body)),
      },
      ['user'],
    );
  };
}
