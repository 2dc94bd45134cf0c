import type { Kysely } from 'kysely';

/**
 * Compute (issue 9): tasks of both families, their state history, user Slurm templates, and the leases that
 * elect one poller per center across gateway replicas.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sub_center_id', 'text', (c) => c.notNull())
    .addColumn('placement_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('card_type_id', 'text', (c) => c.notNull())
    .addColumn('card_num', 'integer', (c) => c.notNull())
    .addColumn('node_num', 'integer', (c) => c.notNull())
    .addColumn('image_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('command', 'text', (c) => c.notNull())
    .addColumn('work_dir', 'text', (c) => c.notNull())
    .addColumn('env', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('max_duration_min', 'integer', (c) => c.notNull())
    .addColumn('template_id', 'text')
    .addColumn('params', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('estimated_start', 'bigint')
    .addColumn('job_id', 'text')
    .addColumn('exit_code', 'integer')
    .addColumn('log_path', 'text', (c) => c.notNull())
    .addColumn('submit_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addColumn('start_time', 'bigint')
    .addColumn('end_time', 'bigint')
    .execute();
  // The three list shapes (by kind; + type; + state), newest first by id; and the poller's active set.
  await db.schema.createIndex('tasks_owner_kind_id_idx').on('tasks').columns(['owner_id', 'kind', 'id']).execute();
  await db.schema.createIndex('tasks_owner_kind_type_id_idx').on('tasks').columns(['owner_id', 'kind', 'type', 'id']).execute();
  await db.schema.createIndex('tasks_owner_kind_state_id_idx').on('tasks').columns(['owner_id', 'kind', 'state', 'id']).execute();
  await db.schema.createIndex('tasks_center_state_idx').on('tasks').columns(['sub_center_id', 'state']).execute();

  await db.schema
    .createTable('task_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('task_events_task_id_idx').on('task_events').columns(['task_id', 'id']).execute();

  await db.schema
    .createTable('slurm_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('category', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('script', 'text', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('defaults', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('slurm_templates_owner_id_idx').on('slurm_templates').columns(['owner_id', 'id']).execute();

  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['leases', 'slurm_templates', 'task_events', 'tasks']) await db.schema.dropTable(t).ifExists().execute();
}
