/**
 * Where an insurer's endorsement files go (D14). `deliver` writes under a temporary name and then
 * renames, so an insurer never picks up half a file; delivering the same name again replaces the
 * file with the same content, so a retried delivery is harmless.
 */
export interface InsurerFileTransport {
  /** Where files land, for the operator: a folder or sftp://user@host:port/dir. */
  readonly destination: string;
  deliver(fileName: string, content: Buffer): Promise<void>;
}

/**
 * A delivery that did not happen. `retryable`: the insurer's side may answer later (server down,
 * connection reset); otherwise our settings are wrong (host key, credentials, folder) and only an
 * operator can fix them.
 */
export class InsurerDeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'InsurerDeliveryError';
  }
}

/** A name an insurer's pick-up ignores: hidden, unique per attempt (two attempts never interleave). */
export const partialName = (fileName: string): string =>
  `.${fileName}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.part`;

/** Final names are plain: no folders, no hidden files. */
export function checkFileName(fileName: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(fileName)) {
    throw new InsurerDeliveryError(`"${fileName}" is not a plain file name`, false);
  }
}
