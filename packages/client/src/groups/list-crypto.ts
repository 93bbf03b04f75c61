import type { Signer } from '../signers'

/**
 * The private part of the account's 10009 (NIP-51: its `content`, NIP-44 to self): tags read with
 * the signer, written back encrypted. A signer without NIP-44, or content that does not open,
 * leaves the private part as it was, never lost.
 */
export class PrivateListCrypto {
  constructor(
    private readonly signer: Signer,
    private readonly me: () => string,
  ) {}

  /** The private tags; `undefined` for no content, a signer without NIP-44, or content that does not open. */
  async decrypt(content: string): Promise<string[][] | undefined> {
    if (content === '') return undefined
    try {
      const tags = JSON.parse(await this.signer.nip44.decrypt(this.me(), content)) as unknown
      if (!Array.isArray(tags)) return undefined
      return tags.filter((t): t is string[] => Array.isArray(t) && t.every((v) => typeof v === 'string'))
    } catch {
      return undefined
    }
  }

  /** `tags` encrypted to self; `fallback` (the content as it was) when the signer cannot. */
  async encrypt(tags: string[][], fallback: string): Promise<string> {
    try {
      return await this.signer.nip44.encrypt(this.me(), JSON.stringify(tags))
    } catch {
      return fallback // a signer without NIP-44: the private part stays as it was
    }
  }
}
