import { Type, type Static } from '@sinclair/typebox';
import { IdParams } from './common';
import { route, type SchemasOf } from './route';
import { ImageItem, ImageQuery, Placement, PlacementQuery, Task, TRAINING_BASE, TrainingTaskCreate } from './task';

/**
 * A develop task's IDE through the gateway, on the task's own origin (ADR 0014): `url` is the first hop,
 * `<IDE origin>/__suanli/open?ticket=…` (single use, one minute); it sets a cookie for that host alone and
 * redirects to the IDE's root, so no credential stays in the address bar or the IDE's links.
 */
export const IdeTicket = Type.Object({ url: Type.String() });

/**
 * SSH into a running develop task on a Slurm center: log in to the center's login node as the cluster
 * account with a key pair installed there (密钥对), and step into the job's allocation with
 * `srun --jobid=<job> --overlap --pty` — the job's node, cards and environment.
 */
export const TaskSsh = Type.Object({
  host: Type.String(),
  port: Type.Integer(),
  account: Type.String(),
  jobId: Type.String(),
  /** The whole command to paste into a terminal. */
  command: Type.String(),
});
export type TaskSsh = Static<typeof TaskSsh>;
export type IdeTicket = Static<typeof IdeTicket>;

/**
 * The default start command of a develop task: Debian's Jupyter Notebook on the address and port the platform
 * chose, accepting only the token the job was given (the gateway adds it; the browser never sees it). The
 * token reaches Jupyter through its environment (`JUPYTER_TOKEN`), never its command line, which every account
 * on a shared node can read. Served at the root of the IDE's own origin; Jupyter's own same-origin checks stay
 * on. `--allow-root` only matters on the embedded default, whose jobs run as the gateway's user.
 */
export const DEVELOP_JUPYTER_COMMAND =
  'JUPYTER_TOKEN="$SUANLI_IDE_TOKEN" jupyter notebook --no-browser --allow-root --ip="$SUANLI_IDE_HOST" --port="$SUANLI_IDE_PORT" ' +
  '--NotebookApp.password= --NotebookApp.allow_remote_access=True --notebook-dir=.';

export const ImageList = Type.Array(ImageItem);
export type ImageList = Static<typeof ImageList>;

/** 模型训练 (TRAINING_BASE): what only training has; the task calls both families share are TrainingTaskApi. */
export const TrainingApi = {
  create: route<{ body: typeof TrainingTaskCreate; response: typeof Task }>('POST', TRAINING_BASE, '/tasks'),
  placement: route<{ body: typeof PlacementQuery; response: typeof Placement }>('POST', TRAINING_BASE, '/placement'),
  images: route<{ query: typeof ImageQuery; response: typeof ImageList }>('GET', TRAINING_BASE, '/images'),
  ssh: route<{ params: typeof IdParams; response: typeof TaskSsh }>('GET', TRAINING_BASE, '/tasks/:id/ssh'),
  ideTicket: route<{ params: typeof IdParams; response: typeof IdeTicket }>('POST', TRAINING_BASE, '/tasks/:id/ide-ticket'),
};

export const TrainingApiSchemas: SchemasOf<typeof TrainingApi> = {
  create: { summary: '创建训练任务（train / develop / distributed）并提交（同一 clientRequestId 一天内只提交一次）', body: TrainingTaskCreate, response: Task },
  placement: { summary: '智能调度预览：选择的分中心及原因', body: PlacementQuery, response: Placement },
  images: { summary: '镜像目录：公共镜像（按框架、卡型筛选）与我的私有镜像（visibility: private）', querystring: ImageQuery, response: ImageList },
  ssh: { summary: 'SSH 登录运行中的开发环境（经登录节点进入作业分配；使用已安装到该分中心的密钥对）', params: IdParams, response: TaskSsh },
  ideTicket: { summary: '打开开发环境：一分钟内有效的首跳链接（之后由限定路径的 Cookie 认证）', params: IdParams, response: IdeTicket },
};
