export { blossomServerFor, UploadError, type UploadOptions, uploadBlob } from './upload'
