import path from 'node:path';
import type { Readable } from 'node:stream';
import { ErrorCode, isTerminal, METRICS_MAX_POINTS, type JobState, type MetricPoint, type TaskLog, type TaskLogQuery, type TaskMetrics } from '@suanli/contracts';
import { parseUserPath, type CenterStorages } from '../../center-storage/center-storage';
import { AppError, invalid } from '../../errors';
import { endpointPath, exitPath, metricsPath } from './job-spec';
import type { TaskRow } from './task.repository';

/** A task as far as its files go: which center, which account's home, where its log is. */
export type TaskFileRow = Pick<TaskRow, 'sub_center_id' | 'account' | 'log_path'>;

export interface TaskFilesOptions {
  /** Upper bound of one metrics read (the contract's limit also caps it). */
  metricsReadBytes?: number;
}

/**
 * The log/metrics reader: everything the task module reads from a center's storage — a job's log, training
 * curves, exit code and IDE endpoint, and whether a work directory exists. It is the one place here that
 * touches a center's disk, always through the center's CenterStorage (this host or the center's file
 * service, ADR 0016). Takes rows: whose task it is was decided before (task-queries.ts).
 */
export class TaskFiles {
  private readonly metricsReadBytes: number;

  constructor(
    private readonly storage: Pick<CenterStorages, 'of'>,
    opts: TaskFilesOptions = {},
  ) {
    this.metricsReadBytes = opts.metricsReadBytes ?? 4 * 1024 * 1024;
  }

  /**
   * `userPath` (the form's field `field`) must be an existing directory in the account's home, reached without
   * following links (else 1005/1302/1308). Answers it normalised: `/a/b`.
   */
  async requireDir(home: Pick<TaskRow, 'sub_center_id' | 'account'>, userPath: string, field: string): Promise<string> {
    const dir = `/${parseUserPath(userPath).join('/')}`;
    const st = await this.storage
      .of(home.sub_center_id)
      .stat(home.account, dir)
      .catch((e: unknown) => {
        if (e instanceof AppError && e.code === ErrorCode.ILLEGAL_PATH) throw new AppError(ErrorCode.ILLEGAL_PATH, `非法路径：${field} 中含有符号链接`);
        throw e;
      });
    if (st?.type === 'link') throw new AppError(ErrorCode.ILLEGAL_PATH, `非法路径：${field} 中含有符号链接`);
    if (st?.type !== 'dir') throw invalid(field, `目录不存在：${dir}`);
    return dir;
  }

  /** Makes `userPath` (a folder of the account's home, with its missing parents) as the account. */
  async makeDir(home: Pick<TaskRow, 'sub_center_id' | 'account'>, userPath: string): Promise<void> {
    await this.storage.of(home.sub_center_id).makeDir(home.account, userPath);
  }

  /** Whether the account has `workDir` (a user path) on the center. */
  async holdsDir(home: Pick<TaskRow, 'sub_center_id' | 'account'>, workDir: string): Promise<boolean> {
    try {
      await this.requireDir(home, workDir, 'workDir');
      return true;
    } catch {
      return false;
    }
  }

  async readLog(row: TaskFileRow & Pick<TaskRow, 'state'>, q: TaskLogQuery): Promise<TaskLog> {
    const { bytes, size } = await this.readFile(row, row.log_path, q.offset, q.limit);
    // Cut at the last complete UTF-8 character; the rest comes with the next read.
    const end = completeUtf8(bytes);
    const nextOffset = q.offset + end;
    return {
      content: bytes.subarray(0, end).toString('utf8'),
      offset: q.offset,
      nextOffset,
      size,
      eof: isTerminal(row.state as JobState) && nextOffset >= size,
    };
  }

  /** The whole log as a stream, for download. */
  async openLog(row: TaskFileRow): Promise<{ stream: Readable; size: number; name: string }> {
    const opened = await this.storage.of(row.sub_center_id).openFile(row.account, row.log_path);
    if (!opened) throw new AppError(ErrorCode.FILE_NOT_FOUND, '日志文件不存在（任务尚未开始输出）');
    return { stream: opened.stream, size: opened.size, name: path.posix.basename(row.log_path) };
  }

  /**
   * The log's last `lines` lines with their 1-based numbers in the whole log (issue 23's evidence). The log is
   * read through once to count its lines (only its last 64 KiB are kept); none when there is no log.
   */
  async logTail(row: TaskFileRow, lines = 60): Promise<{ line: number; text: string }[]> {
    const opened = await this.storage
      .of(row.sub_center_id)
      .openFile(row.account, row.log_path)
      .catch(() => null);
    if (!opened) return [];
    const KEEP = 64 * 1024;
    let newlines = 0;
    let total = 0;
    let keep = Buffer.alloc(0);
    let last = 10;
    for await (const chunk of opened.stream as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
      total += chunk.length;
      last = chunk[chunk.length - 1] ?? last;
      keep = Buffer.concat([keep, chunk]);
      if (keep.length > KEEP) keep = keep.subarray(keep.length - KEEP);
    }
    if (total === 0) return [];
    const parts = keep.toString('utf8').split('\n');
    if (last === 10) parts.pop(); // the log ends with a newline: no line after it
    if (total > keep.length) parts.shift(); // the first kept line is cut
    const lineCount = newlines + (last === 10 ? 0 : 1);
    const tail = parts.slice(-lines);
    return tail.map((text, i) => ({ line: lineCount - tail.length + 1 + i, text }));
  }

  /** Training curves: complete JSON lines of numbers after `offset`, at most METRICS_MAX_POINTS per answer. */
  async readMetrics(row: TaskFileRow, offset: number): Promise<TaskMetrics> {
    const { bytes } = await this.readFile(row, metricsPath(row), offset, this.metricsReadBytes);
    const points: MetricPoint[] = [];
    let consumed = 0;
    let truncated = false;
    for (;;) {
      const nl = bytes.indexOf(10, consumed);
      if (nl < 0) break;
      if (points.length >= METRICS_MAX_POINTS) {
        truncated = true;
        break;
      }
      const point = parseMetricLine(bytes.subarray(consumed, nl).toString('utf8'));
      if (point) points.push(point);
      consumed = nl + 1;
    }
    return { points, nextOffset: offset + consumed, truncated };
  }

  /** The exit code the job's wrapper wrote, if it got to write one (0–255), else null. */
  async exitCode(row: TaskFileRow): Promise<number | null> {
    const { bytes } = await this.readFile(row, exitPath(row), 0, 16).catch(() => ({ bytes: Buffer.alloc(0) }));
    const n = Number.parseInt(bytes.toString('utf8').trim(), 10);
    return Number.isInteger(n) && n >= 0 && n <= 255 ? n : null;
  }

  /** The port and token a develop job wrote for its IDE, or null while there is none (or it is not one). */
  async ideEndpoint(row: TaskFileRow): Promise<{ port: number; token: string } | null> {
    const { bytes } = await this.readFile(row, endpointPath(row), 0, 512).catch(() => ({ bytes: Buffer.alloc(0) }));
    return parseIdeEndpoint(bytes.toString('utf8'));
  }

  private async readFile(row: TaskFileRow, userPath: string, offset: number, limit: number) {
    return (await this.storage.of(row.sub_center_id).readFile(row.account, userPath, offset, limit)) ?? { bytes: Buffer.alloc(0), size: 0 };
  }
}

/** Ports below this are the system's (sshd, a mail server…): an IDE never gets one. */
const FIRST_UNPRIVILEGED_PORT = 1024;

/** `<port> <token>` as a develop job wrote it; anything else (a host, a privileged port, junk) is not an endpoint. */
export function parseIdeEndpoint(text: string): { port: number; token: string } | null {
  const m = /^(\d{1,5}) ([A-Za-z0-9_-]{16,128})$/.exec(text.trim());
  if (!m) return null;
  const port = Number(m[1]);
  return port >= FIRST_UNPRIVILEGED_PORT && port <= 65535 ? { port, token: m[2] } : null;
}

/** The number of leading bytes that end on a UTF-8 character boundary. */
export function completeUtf8(b: Buffer): number {
  let i = b.length;
  // Step back over continuation bytes (10xxxxxx) to the last lead byte, and keep it only if complete.
  let back = 0;
  while (i > 0 && back < 4 && (b[i - 1] & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return b.length;
  const lead = b[i - 1];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need === back + 1 ? b.length : i - 1;
}

/** One metrics line: a JSON object; only its finite numbers are kept. Anything else is skipped. */
export function parseMetricLine(line: string): MetricPoint | null {
  try {
    const v = JSON.parse(line) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    const out: MetricPoint = {};
    let n = 0;
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'number' && Number.isFinite(x) && k.length <= 64 && n < 32) {
        out[k] = x;
        n++;
      }
    }
    return n ? out : null;
  } catch {
    return null;
  }
}
