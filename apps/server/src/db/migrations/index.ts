import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation';
import * as m0002 from './0002_user';
import * as m0003 from './0003_message_paging';
import * as m0004 from './0004_username_nocase';
import * as m0005 from './0005_compute';
import * as m0006 from './0006_resource';
import * as m0007 from './0007_keypair';
import * as m0008 from './0008_access_sessions';
import * as m0009 from './0009_develop';
import * as m0010 from './0010_assets';
import * as m0011 from './0011_image_imports';
import * as m0012 from './0012_task_mounts';
import * as m0013 from './0013_registry';
import * as m0014 from './0014_sync';
import * as m0015 from './0015_version_sync';
import * as m0016 from './0016_sync_cancel';
import * as m0017 from './0017_access_seen';
import * as m0018 from './0018_sync_discard';
import * as m0019 from './0019_workorder';
import * as m0020 from './0020_order';
import * as m0021 from './0021_task_client_request';
import * as m0022 from './0022_ide_origin';
import * as m0023 from './0023_user_roles';
import * as m0024 from './0024_metering';
import * as m0028 from './0028_audit';
import * as m0029 from './0029_center_settings';
import * as m0031 from './0031_publication_review';
import * as m0032 from './0032_team';
import * as m0033 from './0033_team_compute';
import * as m0034 from './0034_balance_limits';
import * as m0035 from './0035_task_evidence';
import * as m0036 from './0036_outside_jobs';
import * as m0037 from './0037_asset_team_shares';
import * as m0038 from './0038_task_resubmitted_from';

/** Every migration, in order. One set for both engines; keep column types portable (see schema.ts). */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_user': m0002,
  '0003_message_paging': m0003,
  '0004_username_nocase': m0004,
  '0005_compute': m0005,
  '0006_resource': m0006,
  '0007_keypair': m0007,
  '0008_access_sessions': m0008,
  '0009_develop': m0009,
  '0010_assets': m0010,
  '0011_image_imports': m0011,
  '0012_task_mounts': m0012,
  '0013_registry': m0013,
  '0014_sync': m0014,
  '0015_version_sync': m0015,
  '0016_sync_cancel': m0016,
  '0017_access_seen': m0017,
  '0018_sync_discard': m0018,
  '0019_workorder': m0019,
  '0020_order': m0020,
  '0021_task_client_request': m0021,
  '0022_ide_origin': m0022,
  '0023_user_roles': m0023,
  '0024_metering': m0024,
  // 0025–0027 belong to work on parallel branches (numbers handed out ahead; see migrate() in db.ts).
  '0028_audit': m0028,
  '0029_center_settings': m0029,
  // 0030 was reserved for a parallel branch and is unused.
  '0031_publication_review': m0031,
  '0032_team': m0032,
  '0033_team_compute': m0033,
  '0034_balance_limits': m0034,
  '0035_task_evidence': m0035,
  '0036_outside_jobs': m0036,
  '0037_asset_team_shares': m0037,
  '0038_task_resubmitted_from': m0038,
};
