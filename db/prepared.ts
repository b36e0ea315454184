/**
 * Server-side prepared statements for the service's hottest statements (data/sql.ts `prepared`).
 * PostgreSQL parses, rewrites and plans every statement sent as text; for the short statements a
 * review or a census row sends thousands of times that costs about as much of the server's CPU as
 * running them (docs/performance.md). A statement prepared once per connection is planned once
 * (PostgreSQL keeps its generic plan when it is no worse than a planned one) and each use sends
 * `EXECUTE name(values)` instead of its text.
 *
 * The statements are registered when their modules load, before the first connection of a process:
 * the first connection made seals the set and every connection of a preparing pool prepares all of
 * it when made (afterCreate), so a sealed name exists on every connection that can run it. A
 * statement registered after the seal (a module loaded late) is never executed by name; it goes as
 * text, as every other statement does. Only the service's pools prepare (initOrm): the owner's
 * connects to a database that migrations have yet to build.
 */

/** Name -> the statement's text with `$n` placeholders. */
const registry = new Map<string, string>();
let sealed: ReadonlySet<string> | null = null;

/** Registers a statement under `name` (a name is one text for the process's life). */
export function registerPrepared(name: string, text: string): void {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`prepared statement name ${name}: lower-case words`);
  const known = registry.get(name);
  if (known !== undefined && known !== text) throw new Error(`prepared statement ${name} registered twice`);
  registry.set(name, text);
}

/** The configurations (shared by every fork of an ORM's em) whose pools prepare. */
const preparing = new WeakSet<object>();

/** Marks an ORM's configuration as that of a preparing pool (initOrm). */
export function markPreparing(config: object): void {
  preparing.add(config);
}

/**
 * Whether a statement registered as `name` runs by name on the pool of the ORM whose configuration
 * is `config`: the pool prepares, and the name was registered before the seal.
 */
export function runsPrepared(config: object, name: string): boolean {
  return preparing.has(config) && (sealed?.has(name) ?? false);
}

/** A raw connection of the driver (node-postgres), as the pool hands it to afterCreate. */
interface RawConnection {
  query(text: string, callback: (err: Error | null) => void): void;
  end(): Promise<void>;
}

/**
 * The pool's afterCreate hook of a preparing pool: seals the set (the first time) and prepares it on
 * the new connection in one message; a connection whose statements fail to prepare is not used.
 */
export function prepareOnConnect(
  conn: RawConnection,
  done: (err: Error | null, conn: RawConnection) => void,
) {
  sealed ??= new Set(registry.keys());
  const texts = [...sealed].map((name) => `prepare ${name} as ${registry.get(name)!}`);
  if (texts.length === 0) return done(null, conn);
  conn.query(texts.join(';\n'), (err) => {
    if (!err) return done(null, conn);
    // The pool does not close a connection its afterCreate refused: close it here, then refuse it.
    conn.end().then(
      () => done(err, conn),
      () => done(err, conn),
    );
  });
}
