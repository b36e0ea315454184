import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../infra/ports.js';

const SSHD = '/usr/sbin/sshd';

/** A real OpenSSH server on loopback for one test file, with keys generated for it. */
export interface SftpServer {
  host: string;
  port: number;
  username: string;
  /** Our login key (OpenSSH format). */
  privateKey: string;
  /** The server's host key fingerprint (`SHA256:…`), as an insurer would hand it over. */
  hostKeySha256: string;
  /** The fingerprint of a key this server does not hold: pinning it must be refused. */
  otherHostKeySha256: string;
  /** A folder on the server the login may write to (absolute; also readable here). */
  remoteDir: string;
  /** Stops the server (the port stays ours: nothing else listens on it meanwhile in a test). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same keys (nothing to do while it runs). */
  start(): Promise<void>;
  /** Stops it and removes its keys and folders. */
  close(): Promise<void>;
}

function keyPair(dir: string, name: string): { file: string; fingerprint: string } {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  const printed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`]).toString();
  const fingerprint = /SHA256:\S+/.exec(printed)?.[0];
  if (!fingerprint) throw new Error(`ssh-keygen printed no fingerprint: ${printed}`);
  return { file, fingerprint };
}

function sshdConfig(dir: string, port: number, username: string, hostKey: string): string {
  return [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    'StrictModes no',
    'UsePAM no',
    `AllowUsers ${username}`,
    'Subsystem sftp internal-sftp',
    'LogLevel ERROR',
    '',
  ].join('\n');
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`sshd exited (${child.exitCode}): ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
      socket.once('close', () => socket.destroy());
      setTimeout(() => socket.destroy(), 500).unref();
    }).then((ok) => ok);
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`sshd did not listen on 127.0.0.1:${port} within 10 s: ${output()}`);
}

/** The one line a suite fails with on a machine without OpenSSH's server (`npm run setup` installs it). */
export class SshdMissing extends Error {
  constructor(sshd: string) {
    super(`${sshd} is missing: run \`npm run setup\` as root (it installs openssh-server)`);
    this.name = 'SshdMissing';
    this.stack = this.message;
  }
}

/**
 * A suite's after hook: closes the server and removes the folder holding its user's key, either of
 * which is undefined when the suite's before hook failed (no sshd), so the hook reports nothing of
 * its own over the start's failure.
 */
export async function closeSftpServer(server: SftpServer | undefined, keyDir?: string): Promise<void> {
  await server?.close();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
}

/**
 * Starts `/usr/sbin/sshd -D` (Debian's openssh-server) with a generated host key, our public key as
 * the only authorized key, no passwords, and the internal SFTP subsystem.
 */
export async function startSftpServer(sshd = SSHD): Promise<SftpServer> {
  if (!existsSync(sshd)) throw new SshdMissing(sshd);
  // sshd running as root wants its privilege separation directory.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sftp-server-'));
  const host = keyPair(dir, 'host_ed25519');
  const other = keyPair(dir, 'other_host_ed25519');
  const user = keyPair(dir, 'user_ed25519');
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(`${user.file}.pub`));
  const remoteDir = path.join(dir, 'upload');
  mkdirSync(remoteDir);
  const port = await freePort();
  const username = os.userInfo().username;
  const config = path.join(dir, 'sshd_config');
  writeFileSync(config, sshdConfig(dir, port, username, host.file));

  let child: ChildProcess | null = null;
  const start = async () => {
    if (child && child.exitCode === null) return;
    let output = '';
    const proc = spawn(sshd, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child = proc;
    await waitForPort(port, proc, () => output.trim());
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  };
  await start();
  return {
    host: '127.0.0.1',
    port,
    username,
    privateKey: readFileSync(user.file, 'utf8'),
    hostKeySha256: host.fingerprint,
    otherHostKeySha256: other.fingerprint,
    remoteDir,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
