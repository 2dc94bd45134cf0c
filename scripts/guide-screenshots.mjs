#!/usr/bin/env node
// Copies the user guide's screenshots from the last e2e run (e2e/artifacts/, written by `npm run test:e2e`
// and not committed) into docs/guide/images/, which is committed. Run it after an e2e run whenever the
// console's look changed, check the images, and commit them with the guide pages that show them.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** `node scripts/guide-screenshots.mjs [artifactsDir]`: another checkout's e2e run may be the source. */
const from = process.argv[2] ? path.resolve(process.argv[2]) : path.join(repoRoot, 'e2e/artifacts');
const to = path.join(repoRoot, 'docs/guide/images');

/** e2e screenshot (e2e/*.e2e.ts `env.shot` name) → guide image name. */
const SHOTS = {
  '00-login': 'login',
  '01-register': 'register',
  '03-user-center': 'user-center',
  '05-unread-badge': 'header',
  'header-comp-power-1440': 'comp-power-tooltip',
  'expense-1440': 'expense',
  'task-estimate-short-1440': 'task-estimate',
  '06-messages': 'messages',
  'storage-01-empty': 'storage-empty',
  'storage-02-drag-over': 'storage-drag',
  'storage-03-upload-panel-progress': 'upload-progress',
  'storage-05-listing': 'storage-listing',
  'storage-06-folder-picker': 'storage-move',
  'storage-09-resume-done': 'upload-resume',
  'storage-10-interrupted-1440': 'upload-interrupted',
  'sync-dialog-1440': 'sync-dialog',
  'sync-panel-running-1440': 'sync-panel',
  'workorder-list-1440': 'workorder-list',
  'workorder-detail-1440': 'workorder-detail',
  'team-list-1440': 'team-list',
  'team-detail-1440': 'team-detail',
  'team-message-1440': 'team-invitation',
  'team-storage-1440': 'team-storage',
  'admin-team-dissolve-1440': 'admin-team-dissolve',
  'training-03-list': 'training-list',
  'training-form-with-dataset-1440': 'training-form',
  'training-02-detail-succeeded': 'training-detail',
  'develop-slurm-detail-1440': 'develop-detail',
  'slurm-02-form-template': 'slurm-form',
  'slurm-03-detail-succeeded': 'slurm-detail',
  'keypair-generated-1440': 'keypair-generated',
  'keypair-list-1440': 'keypair-list',
  'image-form-1440': 'image-push',
  'image-detail-1440': 'image-detail',
  'image-task-form-1440': 'image-task-form',
  'dataset-list-1440': 'dataset-list',
  'dataset-detail-versions-1440': 'dataset-versions',
  'dataset-detail-files-1440': 'dataset-files',
  'sync-task-done-1440': 'sync-task-done',
  'public-hall-1440': 'public-hall',
  'public-hall-review-1440': 'public-hall-review',
  'resource-1440': 'resource',
  'dashboard-1440': 'dashboard',
  'admin-users-1440': 'admin-users',
  'admin-audit-1440': 'admin-audit',
};

const missing = Object.keys(SHOTS).filter((s) => !fs.existsSync(path.join(from, `${s}.png`)));
if (missing.length) {
  console.error(`✗ not in ${from} (run npm run test:e2e first): ${missing.join(', ')}`);
  process.exit(1);
}
fs.mkdirSync(to, { recursive: true });
for (const [shot, name] of Object.entries(SHOTS)) {
  fs.copyFileSync(path.join(from, `${shot}.png`), path.join(to, `${name}.png`));
  console.log(`${shot}.png → docs/guide/images/${name}.png`);
}
