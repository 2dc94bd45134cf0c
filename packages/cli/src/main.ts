/**
 * `suanli`: the platform's API from a terminal (issue 24 item 4). Every call goes through the route
 * descriptors of @suanli/contracts (api.ts), the upload through the console's own uploader (files.ts); the
 * build (build.mjs) bundles all of it into one file that Node ≥ 20 runs. Messages are Chinese like the
 * console's; a failure prints the server's message on stderr and exits non-zero.
 */
import { constants, publicEncrypt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { FoundationApi, UserApi } from '@suanli/contracts';
import { call, CliError } from './api';
import { gateway, OPTIONS, out, type Opts } from './args';
import { readSaved, writeSaved, configFile } from './config';
import { download, fileService, findCenter, listDir, parseRemote, upload } from './files';
import { formatBytes, formatTime, printJson, table } from './output';
import { assetCommand, slurmCommand, taskCommand } from './tasks';

declare const SUANLI_CLI_VERSION: string | undefined;
export const VERSION = typeof SUANLI_CLI_VERSION === 'string' ? SUANLI_CLI_VERSION : '0.0.0-dev';

const HELP = `suanli ${VERSION} — 算力调度服务平台命令行工具

用法: suanli <命令> [参数] [选项]

账号
  login [--server URL] [--account 账号] [--password 密码]   登录（密码未给出时从终端或标准输入读取）
  logout                                                   退出登录
  whoami                                                   当前登录的用户
  centers                                                  算力分中心列表

存储
  ls <分中心>:<目录>                                        列出目录
  upload <本地文件> <分中心>:<目录>                          分片上传，中断后再次执行即从已上传的分片续传
  download <分中心>:<路径> [本地路径]                        下载文件（目录下载为 zip）

训练任务
  task list [--state 状态] [--keyword 名称] [--page N]       任务列表（训练任务与科学计算作业）
  task submit --name 名称 --card-type 卡型 --image 镜像 --command 命令
              [--center 分中心|auto] [--cards N] [--nodes N] [--type train|distributed]
              [--workdir /] [--env K=V]... [--duration 分钟]
  task logs <任务ID> [-f] [--interval 毫秒]                 查看日志；-f 持续跟踪到任务结束，退出码为任务结果
  task cancel <任务ID>                                      停止任务

科学计算
  slurm templates                                           任务模板列表
  slurm submit (--template 模板ID [--param K=V]... | --script 脚本文件)
               --name 名称 --center 分中心 --card-type 卡型 [--cards N] [--nodes N]
               [--workdir /] [--env K=V]... [--duration 分钟]

数据集与模型
  dataset list [--scope own|shared|public] [--keyword 关键字]
  model list   [--scope own|shared|public] [--keyword 关键字]
  dataset version create <数据集ID> <分中心>:<目录> [--note 说明]
  model version create <模型ID> <分中心>:<目录> [--note 说明]

通用选项
  --json       以 JSON 输出（便于脚本处理）
  --server     服务器地址（默认使用登录时的地址，或环境变量 SUANLI_SERVER）
  --version    显示版本
  --help       显示帮助
`;

/** The value's UTF-8 bytes in 117-byte chunks (1024-bit key), each RSAES-PKCS1-v1_5, base64 — the console's rsa.ts. */
export function rsaEncrypt(publicKeyPem: string, plaintext: string, keySize: number): string {
  const chunk = keySize / 8 - 11;
  const data = Buffer.from(plaintext, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i === 0 || i < data.length; i += chunk) {
    parts.push(publicEncrypt({ key: publicKeyPem, padding: constants.RSA_PKCS1_PADDING }, data.subarray(i, i + chunk)));
  }
  return Buffer.concat(parts).toString('base64');
}

async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    // Piped: the first line (`echo "$PW" | suanli login …`).
    let text = '';
    for await (const c of stdin) text += String(c);
    return text.split(/\r?\n/)[0];
  }
  process.stderr.write('密码: ');
  stdin.setRawMode(true);
  stdin.resume();
  let pw = '';
  return new Promise((resolve, reject) => {
    const onData = (buf: Buffer) => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off('data', onData);
          process.stderr.write('\n');
          return resolve(pw);
        }
        if (ch === '\u0003') {
          stdin.setRawMode(false);
          return reject(new CliError('已取消'));
        }
        if (ch === '\u007f') pw = pw.slice(0, -1);
        else pw += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function readAccount(): Promise<string> {
  if (!process.stdin.isTTY) throw new CliError('缺少参数：--account');
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question('账号（用户名、手机号或邮箱）: ')).trim();
  } finally {
    rl.close();
  }
}

async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    // node:util's own texts are English: say it in Chinese, naming the option.
    const e = err as { code?: string; message: string };
    const opt = /'(-[^' ]+)/.exec(e.message)?.[1] ?? '';
    const what = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? `未知选项 ${opt}` : e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ? `选项 ${opt} 缺少值或不需要值` : '参数无法识别';
    throw new CliError(`参数错误：${what}\n执行 suanli --help 查看用法`);
  }
  const opts = parsed.values as Opts;
  const [cmd, ...args] = parsed.positionals;
  if (opts.version) return (out(VERSION), 0);
  if (opts.help || !cmd) return (out(HELP), cmd || opts.help ? 0 : 2);
  const json = !!opts.json;

  switch (cmd) {
    case 'login': {
      const g = gateway(opts, false);
      const account = opts.account ?? (await readAccount());
      const password = opts.password ?? process.env.SUANLI_PASSWORD ?? (await readPassword());
      const key = await call(g, UserApi.rsaKey);
      const user = await call(g, UserApi.login, { body: { account, password: rsaEncrypt(key.publicKey, password, key.keySize) } });
      if (!user.token) throw new CliError('登录失败：服务器未返回会话');
      writeSaved({ server: g.base, token: user.token, username: user.username });
      if (json) printJson({ server: g.base, username: user.username, id: user.id });
      else out(`已登录 ${g.base}，用户 ${user.username}（凭据保存在 ${configFile()}）`);
      return 0;
    }
    case 'logout': {
      const saved = readSaved();
      if (saved.token && saved.server) {
        // Ends the session on the server too; a session that already ended is not an error here.
        await call({ base: saved.server, token: saved.token }, UserApi.logout, { query: {} }).catch(() => undefined);
      }
      writeSaved({ server: saved.server });
      out('已退出登录');
      return 0;
    }
    case 'whoami': {
      const me = await call(gateway(opts), UserApi.me);
      if (json) printJson(me);
      else out(table(['ID', '用户名', '昵称', '手机号', '邮箱'], [[me.id, me.username, me.nickname, me.phone, me.email]]));
      return 0;
    }
    case 'centers': {
      const centers = await call(gateway(opts), FoundationApi.centers);
      if (json) printJson(centers);
      else out(table(['ID', '名称', '地区', '状态', '卡型'], centers.map((c) => [c.id, c.name, c.region, c.status, c.cardTypes.map((t) => `${t.id}(${t.name})`).join('、')])));
      return 0;
    }
    case 'ls': {
      const g = gateway(opts);
      if (!args[0]) throw new CliError('用法：suanli ls <分中心>:<目录>');
      const r = parseRemote(args[0]);
      const entries = await listDir(fileService(g, await findCenter(g, r.center)), r.path);
      if (json) printJson(entries);
      else out(table(['类型', '大小', '修改时间', '名称'], entries.map((e) => [e.type === 'dir' ? '目录' : e.type === 'link' ? '链接' : '文件', e.type === 'dir' ? '' : formatBytes(e.size), formatTime(e.updateTime), e.name])));
      return 0;
    }
    case 'upload': {
      if (args.length < 2) throw new CliError('用法：suanli upload <本地文件> <分中心>:<目录>');
      const g = gateway(opts);
      const r = parseRemote(args[1]);
      const res = await upload(fileService(g, await findCenter(g, r.center)), args[0], r.path, { quiet: json });
      if (json) printJson({ entry: res.entry, instant: res.instant, sentChunks: res.sentChunks.length, resumedBytes: res.resumedBytes, identifier: res.identifier });
      else {
        const how = res.instant ? '（秒传：服务器已有相同内容）' : res.resumedBytes > 0 ? `（续传：${formatBytes(res.resumedBytes)} 已在服务器上）` : '';
        out(`已上传 ${res.entry?.path ?? args[0]}，${formatBytes(res.size)}${how}`);
      }
      return 0;
    }
    case 'download': {
      if (args.length < 1) throw new CliError('用法：suanli download <分中心>:<路径> [本地路径]');
      const g = gateway(opts);
      const r = parseRemote(args[0]);
      const res = await download(fileService(g, await findCenter(g, r.center)), r.path, args[1] ?? '.', { quiet: json });
      if (json) printJson(res);
      else out(`已下载到 ${res.path}，${formatBytes(res.size)}`);
      return 0;
    }
    case 'task':
      return taskCommand(args, opts, json);
    case 'slurm':
      return slurmCommand(args, opts, json);
    case 'dataset':
    case 'model':
      return assetCommand(cmd, args, opts, json);
    default:
      throw new CliError(`未知命令：${cmd}\n执行 suanli --help 查看用法`);
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof CliError) process.stderr.write(`错误：${err.message}\n`);
    else process.stderr.write(`错误：${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  },
);
