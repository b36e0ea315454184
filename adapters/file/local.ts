import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkFileName, partialName, type InsurerFileTransport } from './transport.js';

/** The local exchange folders of one insurer: `$DATA_DIR/insurers/<code>/outbox` and `…/inbox`. */
export function localInsurerFolders(dataDir: string, insurerCode: string): { outbox: string; inbox: string } {
  const root = path.join(dataDir, 'insurers', insurerCode);
  return { outbox: path.join(root, 'outbox'), inbox: path.join(root, 'inbox') };
}

/**
 * Files to the insurer's local outbox (the demo's default). Written beside the final name and
 * renamed into place (atomic on one file system); a second delivery of a name replaces the file.
 */
export function localTransport(dataDir: string, insurerCode: string): InsurerFileTransport {
  const { outbox, inbox } = localInsurerFolders(dataDir, insurerCode);
  return {
    destination: outbox,
    async deliver(fileName, content) {
      checkFileName(fileName);
      await mkdir(outbox, { recursive: true });
      await mkdir(inbox, { recursive: true });
      const partial = path.join(outbox, partialName(fileName));
      try {
        await writeFile(partial, content, { flush: true });
        await rename(partial, path.join(outbox, fileName));
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
    },
  };
}
