/** The upload feature's public surface: the header button, the store and the uploader. */
export { UploadPanel, UploadPanelButton, UploadTaskTable, STATUS_LABELS } from './upload-panel';
export {
  useUploadStore,
  selectRunningCount,
  isActive,
  configureUploads,
  CANCELLED_MESSAGE,
  type UploadTask,
  type UploadStatus,
  type UploadTarget,
  type UploadItem,
} from './store';
export { uploadFile, uploadIdentifier, isAbortError, type UploadFile, type UploadOptions, type UploadProgress, type UploadResult } from './uploader';
