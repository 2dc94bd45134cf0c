/** Server → client socket events. */
export type WsEvent =
  | { businessType: 'notice.unread.increment'; data: { count: number } }
  | { businessType: 'task.state.changed'; data: { taskId: string; kind: 'training' | 'slurm'; state: string } }
  | { businessType: 'comp-power.changed'; data: Record<string, never> };
export type WsBusinessType = WsEvent['businessType'];
