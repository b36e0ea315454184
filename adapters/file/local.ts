import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  checkFileName,
  checkInboxName,
  partialName,
  stampedName,
  type InsurerExchange,
  type InsurerInbox,
} from './transport.js';

/** The local exchange folders of one insurer: `$DATA_DIR/insurers/<code>/outbox` and `…/inbox`. */
export function localInsurerFolders(dataDir: string, insurerCode: string): { outbox: string; inbox: string } {
  const root = path.join(dataDir, 'insurers', insurerCode);
  return { outbox: path.join(root, 'outbox'), inbox: path.join(root, 'inbox') };
}

/**
 * Files to the insurer's local outbox (the demo's default). Written beside the final name and
 * renamed into place (atomic on one file system); a second delivery of a name replaces the file.
 */
export function localTransport(dataDir: string, insurerCode: string): InsurerExchange {
  const { outbox, inbox } = localInsurerFolders(dataDir, insurerCode);
  return {
    ...localInbox(inbox),
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

const missing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The insurer's local inbox. A move is a rename within one file system (atomic); the target is
 * checked first so an earlier file of the same name is never replaced.
 */
function localInbox(inbox: string): InsurerInbox {
  const folder = (f: string) => (f === 'inbox' ? inbox : path.join(inbox, f));
  return {
    inbox,
    async listInbox() {
      await mkdir(inbox, { recursive: true });
      const entries = await readdir(inbox, { withFileTypes: true });
      const files = entries.filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name);
      const listed = await Promise.all(
        files.map(async (name) => ({ name, modifiedAt: (await stat(path.join(inbox, name))).mtime })),
      );
      return listed.sort((a, b) => a.name.localeCompare(b.name));
    },
    async readInboxFile(from, name) {
      checkInboxName(name);
      return readFile(path.join(folder(from), name)).catch((err: unknown) => {
        if (missing(err)) return null;
        throw err;
      });
    },
    async moveInboxFile(name, to) {
      checkInboxName(name);
      await mkdir(folder(to), { recursive: true });
      const taken = await stat(path.join(folder(to), name)).then(
        () => true,
        (err: unknown) => {
          if (missing(err)) return false;
          throw err;
        },
      );
      const target = taken ? stampedName(name, new Date()) : name;
      await rename(path.join(inbox, name), path.join(folder(to), target));
      return target;
    },
  };
}
