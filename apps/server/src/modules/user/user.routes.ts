import fs from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AgentUserQuery,
  AVATAR_MAX_BYTES,
  AvatarResult,
  BindEmailBody,
  CheckStatusBody,
  CheckStatusResult,
  ClusterAccount,
  Envelope,
  ErrorCode,
  LoginBody,
  LogoutQuery,
  Null,
  PasswordResetBody,
  PasswordUpdateBody,
  RegisterBody,
  RegisterResult,
  RsaKey,
  SendCodeBody,
  UpdatePhoneBody,
  UpdateProfileBody,
  UserInfo,
  UserApi,
  UserApiSchemas,
} from '@suanli/contracts';
import { AppError, invalid } from '../../errors';
import { ok } from '../../lib/reply';
import { serve } from '../../lib/serve';
import { principal, tokenOf } from '../../plugins/auth';
import { AVATAR_FILE_PATTERN, IMAGE_TYPES } from './avatar';
import type { UserService } from './user.service';

/** Registered under USER_BASE. `rateLimitMax`: the API's per-IP limit, of which the guessing calls get 1/20. */
export function userRoutes(service: UserService, opts: { rateLimitMax: number }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['user'];
    // Per-IP limit on the calls that guess or send (on top of per-account lockout and per-target code limits).
    const sensitive = { public: true, rateLimit: { max: Math.max(20, Math.ceil(opts.rateLimitMax / 20)), timeWindow: 60_000 } };
    const meta = (req: { ip: string; headers: Record<string, unknown> }) => ({ ip: req.ip, userAgent: String(req.headers['user-agent'] ?? '') });

    app.get('/user/rsa-key', {
      config: { public: true },
      schema: { tags, summary: '获取密码加密公钥（RSA 1024，PKCS#1 v1.5，分段 117 字节）', security: [], response: { 200: Envelope(RsaKey) } },
      handler: async () => ok(await service.rsaKey()),
    });

    app.post('/user/code', {
      config: sensitive,
      schema: {
        tags,
        summary: '发送验证码',
        description:
          '6 位数字，5 分钟有效，单次使用，错 5 次作废；同一目标 60 秒 1 次、每天（北京时间）10 次，超限返回 1020。' +
          'register：目标须未注册；updatePhone/bindEmail：须带 token，目标须未被使用；' +
          'reset：无论目标是否属于某个账号都返回成功（不暴露账号是否存在），仅在属于账号时才真正发送。',
        security: [],
        body: SendCodeBody,
        response: { 200: Envelope(Null) },
      },
      handler: async (req) => {
        await service.sendCode(req.body.scene, req.body.target, tokenOf(req));
        return ok(null);
      },
    });

    app.put('/check_status/user', {
      config: sensitive,
      schema: { tags, summary: '检查用户名/手机号/邮箱是否已被使用', security: [], body: CheckStatusBody, response: { 200: Envelope(CheckStatusResult) } },
      handler: async (req) => ok(await service.checkStatus(req.body.field, req.body.value)),
    });

    app.post('/user/register', {
      config: sensitive,
      schema: { tags, summary: '注册', security: [], body: RegisterBody, response: { 200: Envelope(RegisterResult) } },
      handler: async (req) => ok(await service.register(req.body)),
    });

    app.post('/user/login', {
      config: sensitive,
      schema: {
        tags,
        summary: '登录（账号为用户名、手机号或邮箱）',
        description:
          'password 为 RSA 加密后的 base64（见 /user/rsa-key）。账号不存在、密码错误、密文无法解密均返回 1024 用户名或密码错误；' +
          '同一账号在同一地址 15 分钟内失败 5 次，该地址即被锁定 15 分钟；同一账号各地址合计 15 分钟内失败 20 次，' +
          '账号对用户 30 天内未登录过的地址锁定 15 分钟（均为 1024，提示剩余分钟数）；账号被禁用返回 1020。',
        security: [],
        body: LoginBody,
        response: { 200: Envelope(UserInfo) },
      },
      handler: async (req) => ok(await service.login(req.body.account, req.body.password, meta(req))),
    });

    app.get('/user/logout', {
      config: { public: true },
      schema: { tags, summary: '退出登录（吊销所带 token）', security: [], querystring: LogoutQuery, response: { 200: Envelope(Null) } },
      handler: async (req) => {
        const token = tokenOf(req);
        if (token) await service.logout(token);
        return ok(null);
      },
    });

    app.get('/user', {
      schema: { tags, summary: '当前用户信息', response: { 200: Envelope(UserInfo) } },
      handler: async (req) => ok(await service.me(principal(req))),
    });

    app.post('/user/password/update', {
      schema: { tags, summary: '修改密码（其他会话全部失效）', body: PasswordUpdateBody, response: { 200: Envelope(Null) } },
      handler: async (req) => {
        await service.updatePassword(principal(req), req.body.oldPassword, req.body.newPassword, req.ip);
        return ok(null);
      },
    });

    app.post('/user/password/reset', {
      config: sensitive,
      schema: { tags, summary: '找回密码（全部会话失效）', security: [], body: PasswordResetBody, response: { 200: Envelope(Null) } },
      handler: async (req) => {
        await service.resetPassword(req.body.target, req.body.code, req.body.newPassword);
        return ok(null);
      },
    });

    app.post('/user/action/update-phone', {
      schema: { tags, summary: '更换手机号', body: UpdatePhoneBody, response: { 200: Envelope(UserInfo) } },
      handler: async (req) => ok(await service.updatePhone(principal(req).userId, req.body.phone, req.body.code)),
    });

    app.post('/user/action/bind-email', {
      schema: { tags, summary: '绑定邮箱', body: BindEmailBody, response: { 200: Envelope(UserInfo) } },
      handler: async (req) => ok(await service.bindEmail(principal(req).userId, req.body.email, req.body.code)),
    });

    app.post('/user/action/update-profile', {
      schema: { tags, summary: '修改昵称', body: UpdateProfileBody, response: { 200: Envelope(UserInfo) } },
      handler: async (req) => ok(await service.updateProfile(principal(req).userId, req.body.nickname)),
    });

    app.post('/user/action/upload-avatar', {
      schema: { tags, summary: '上传头像（multipart 字段 file；PNG/JPEG/WebP，≤ 2 MB，按内容识别类型）', consumes: ['multipart/form-data'], response: { 200: Envelope(AvatarResult) } },
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
    });

    // Public so <img src> works without headers; names are random and the type was fixed by sniffing at upload.
    app.get('/avatar/:file', {
      config: { public: true },
      schema: { tags, summary: '头像图片', security: [], params: Type.Object({ file: Type.String({ pattern: AVATAR_FILE_PATTERN }) }) },
      handler: async (req, reply) => {
        const found = await service.locateAvatar(req.params.file);
        if (!found) throw new AppError(ErrorCode.NOT_FOUND, '头像不存在', 404);
        return reply
          .type(IMAGE_TYPES[found.kind])
          .header('x-content-type-options', 'nosniff')
          .header('content-length', found.size)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .send(fs.createReadStream(found.file));
      },
    });

    app.get('/agent/user/get', {
      schema: { tags, summary: '我在各算力分中心的集群账号（带 subCenterId 时按需开通）', querystring: AgentUserQuery, response: { 200: Envelope(Type.Array(ClusterAccount)) } },
      handler: async (req) => ok(await service.agentUsers(principal(req).userId, req.query.subCenterId)),
    });

    serve(app, UserApi, UserApiSchemas, { list: async (req) => ok(await service.list(req.body)) }, tags);
  };
}
