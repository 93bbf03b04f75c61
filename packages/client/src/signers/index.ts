export {
  DecryptError,
  EncryptError,
  InvalidBunkerUrlError,
  InvalidPublicKeyError,
  InvalidSecretKeyError,
  InvalidTemplateError,
  SignerRefusedError,
  SignerTimeoutError,
  SignerUnavailableError,
  SignerUnsupportedError,
} from './errors'
export { LocalSigner } from './local-signer'
export { Nip07Signer } from './nip07-signer'
export { type Nip46Options, Nip46Signer } from './nip46-signer'
export type { Signer, WindowNostr } from './signer'
