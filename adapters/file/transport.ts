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

/** The folders of an insurer's inbox: new files, and where they go once read. */
export type InboxFolder = 'inbox' | 'processed' | 'refused';

export interface InboxFile {
  name: string;
  modifiedAt: Date;
}

/**
 * Where an insurer's response files arrive (D14): `inbox/` beside the outbox, read files moved to
 * `inbox/processed/` (applied) or `inbox/refused/` (refused whole), each made when first needed.
 * Failures are InsurerDeliveryErrors too: `retryable` when the insurer's server may answer later.
 */
export interface InsurerInbox {
  /** Where response files arrive, for the operator. */
  readonly inbox: string;
  /** Plain files waiting in the inbox (hidden and partial uploads skipped), by name. */
  listInbox(): Promise<InboxFile[]>;
  /** A file's content, or null when there is no such file in that folder. */
  readInboxFile(folder: InboxFolder, name: string): Promise<Buffer | null>;
  /**
   * Moves an inbox file into `inbox/<to>/`; a file of that name already there is kept and the
   * newcomer gets a time-stamped name. Returns the name it got.
   */
  moveInboxFile(name: string, to: Exclude<InboxFolder, 'inbox'>): Promise<string>;
}

/** Both directions of a file insurer's exchange. */
export type InsurerExchange = InsurerFileTransport & InsurerInbox;

/** An insurer's own file names may have spaces; never folders, hidden files or control characters. */
export function checkInboxName(name: string): void {
  if (!name || name.length > 255 || /[/\\\u0000-\u001f]/.test(name) || name.startsWith('.')) {
    throw new InsurerDeliveryError('not a plain file name in the inbox', false);
  }
}

/** `name.ext` → `name.<stamp>.ext`: the name a file takes when its own is taken. */
export function stampedName(name: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:.]/g, '');
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}.${stamp}${name.slice(dot)}` : `${name}.${stamp}`;
}
