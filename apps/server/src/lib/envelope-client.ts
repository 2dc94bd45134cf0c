import { ErrorCode } from '@suanli/contracts';
import { AppError } from '../errors';

/**
 * The data of another component's envelope answer (the gateway to a file service, one file service to
 * another), or its refusal as the AppError it names — session codes and every other refusal pass through
 * unchanged. An answer that is not an envelope is 1405, naming `who` when given.
 */
export async function envelopeData(res: Response, who?: string): Promise<unknown> {
  const bad = (detail: string) => new AppError(ErrorCode.INTERNAL_BAD_RESPONSE, who ? `${who}的文件服务应答无效${detail}` : undefined);
  let env: { message?: { code?: number; message?: string }; data?: unknown };
  try {
    env = (await res.json()) as typeof env;
  } catch {
    throw bad(`（HTTP ${res.status}）`);
  }
  const code = env.message?.code;
  if (typeof code !== 'number') throw bad('');
  if (code !== 0) throw new AppError(code, env.message?.message);
  return env.data;
}
