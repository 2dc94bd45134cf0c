import { AuthorizedKeysApi, ErrorCode, routeUrl, type AuthorizedKeysEdit, type AuthorizedKeysLines } from '@suanli/contracts';
import { AppError } from '../../errors';
import { envelopeData } from '../../lib/envelope-client';

/**
 * A center's file service as the key pairs reach it to edit the caller's `~/.ssh/authorized_keys`
 * (file-service/authorized-keys.service.ts): in-process for the centers this gateway serves (mount.ts), else
 * over HTTP. Either way it acts as the caller — their session token — like every file-service call.
 */
export interface AuthorizedKeysClient {
  edit(token: string, e: AuthorizedKeysEdit): Promise<string[]>;
}

const ANSWER_TIMEOUT_MS = 15_000;

/** A standalone file service (a center's `fileServiceUrl`). */
export class HttpAuthorizedKeys implements AuthorizedKeysClient {
  constructor(
    private readonly base: string,
    private readonly centerName: string,
  ) {}

  async edit(token: string, e: AuthorizedKeysEdit): Promise<string[]> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${routeUrl(AuthorizedKeysApi.edit)}`, {
        method: AuthorizedKeysApi.edit.method,
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify(e),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
    } catch (err) {
      throw new AppError(ErrorCode.KEY_INSTALL_FAILED, `密钥安装失败：无法连接${this.centerName}的文件服务（${(err as Error).message}）`);
    }
    return (await envelopeData(res, this.centerName)) as AuthorizedKeysLines;
  }
}
