/** The upload feature's public surface: the panel (the header's task panel shows it), the store and the uploader. */
export { UploadPanel, UploadClearFinished, UploadTaskTable, STATUS_LABELS } from './upload-panel';
export { useInterruptedUploads, InterruptedUploadList, type InterruptedUpload, type InterruptedUploads, type UploadCenter } from './interrupted-uploads';
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
