// Apache httpd with mod_auth_openidc (Debian's apache2 and libapache2-mod-auth-openidc) as an OpenID Connect relying
// party of the Portico under test: a third-party RP for end-to-end tests of OpenID Connect Back-Channel Logout.
// Each instance runs from a config of its own in a fresh temp folder (server root, pid file, logs, document root,
// mutexes): nothing under /etc/apache2 or /var is read or written. Sessions live in mod_auth_openidc's shared-memory
// cache (server-side sessions, which back-channel logout needs), so they end with the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const APACHE_BINARY = '/usr/sbin/apache2';
const MODULES_DIR = '/usr/lib/apache2/modules';
const AUTH_OPENIDC_MODULE = path.join(MODULES_DIR, 'mod_auth_openidc.so');
const STARTUP_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/** Modules loaded from MODULES_DIR (core, so, unixd, log_config are compiled into Debian's apache2). */
const MODULES: ReadonlyArray<readonly [name: string, file: string]> = [
  ['mpm_event_module', 'mod_mpm_event.so'],
  ['authn_core_module', 'mod_authn_core.so'],
  ['authz_core_module', 'mod_authz_core.so'],
  ['authz_user_module', 'mod_authz_user.so'], // `Require valid-user`
  ['mime_module', 'mod_mime.so'],
  ['dir_module', 'mod_dir.so'], // /protected/ -> index.html
  ['include_module', 'mod_include.so'], // the signed-in page shows who signed in
  ['auth_openidc_module', 'mod_auth_openidc.so'],
];

export interface ApacheRelyingParty {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** http://127.0.0.1:<port>/protected/: sends a browser without a session to the issuer. */
  protectedUrl: string;
  /** The client's redirect URI (mod_auth_openidc's own endpoint). */
  redirectUri: string;
  /** mod_auth_openidc's back-channel logout endpoint: the client's `backchannel_logout_uri`. */
  backchannelLogoutUri: string;
  stop(): Promise<void>;
  /** What Apache wrote to its error log and stderr so far (mod_auth_openidc logs at debug), for failure messages. */
  errorLog(): string;
}

export interface ApacheRelyingPartyOptions {
  port: number;
  /** The OpenID Provider's issuer; plain http on loopback is fine (mod_auth_openidc only warns). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Default `openid email`. */
  scope?: string;
}

export function apacheAvailable(): boolean {
  return existsSync(APACHE_BINARY) && existsSync(AUTH_OPENIDC_MODULE);
}

export async function startApacheRelyingParty(options: ApacheRelyingPartyOptions): Promise<ApacheRelyingParty> {
  const { port } = options;
  const origin = `http://127.0.0.1:${port}`;
  const protectedUrl = `${origin}/protected/`;
  const redirectUri = `${origin}/protected/redirect_uri`;
  const backchannelLogoutUri = `${redirectUri}?logout=backchannel`;

  const dir = mkdtempSync(path.join(tmpdir(), 'portico-apache-rp-'));
  const docRoot = path.join(dir, 'htdocs');
  const errorLogPath = path.join(dir, 'error.log');
  mkdirSync(path.join(docRoot, 'protected'), { recursive: true });
  writeFileSync(path.join(docRoot, 'index.html'), '<!doctype html><title>Apache RP</title><p>Apache relying party</p>\n');
  // Answered by this Apache only: another server already on the port must not pass for it.
  const readyToken = randomBytes(16).toString('hex');
  writeFileSync(path.join(docRoot, 'ready.txt'), readyToken);
  writeFileSync(
    path.join(docRoot, 'protected', 'index.html'),
    [
      '<!doctype html>',
      '<title>Apache RP</title>',
      '<h1>Signed in to Apache</h1>',
      '<p>User: <span id="remote-user"><!--#echo var="REMOTE_USER" --></span></p>',
      '<p>Email: <span id="email"><!--#echo var="OIDC_CLAIM_email" --></span></p>',
      '',
    ].join('\n'),
  );

  const runAs = process.getuid?.() === 0 ? unprivilegedUser() : undefined;
  const confPath = path.join(dir, 'httpd.conf');
  writeFileSync(confPath, apacheConfig({ ...options, dir, docRoot, errorLogPath, redirectUri, runAs }));
  // mkdtemp makes the folder 0700: the workers Apache switches to (www-data) must read the document root.
  for (const target of [dir, docRoot, path.join(docRoot, 'protected')]) chmodSync(target, 0o755);

  let stderr = '';
  let lastLog = '';
  const errorLog = (): string => {
    try {
      lastLog = readFileSync(errorLogPath, 'utf8');
    } catch {
      // not written yet, or removed by stop(): keep what was read last
    }
    return stderr ? `${stderr}\n${lastLog}` : lastLog;
  };

  const child: ChildProcess = spawn(APACHE_BINARY, ['-f', confPath, '-DFOREGROUND'], {
    cwd: dir,
    // Apache gets its own process group, so a stuck run (parent and workers) can be killed as a whole.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
      LANG: 'C',
      // mod_auth_openidc names its cache mutex after the temp dir (apr_temp_dir_get): keep it in ours.
      TMPDIR: dir,
    } as unknown as NodeJS.ProcessEnv,
  });
  child.stdout?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  let exited = child.exitCode !== null;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', (error) => {
      stderr += `\n${String(error)}`;
      exited = true;
      resolve();
    });
  });
  // Should the test process end without stop(), do not leave Apache holding the port, nor its folder.
  const killOnExit = (): void => {
    killGroup(child, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (!exited) {
        killGroup(child, 'SIGTERM');
        const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_TIMEOUT_MS);
        await exit;
        clearTimeout(timer);
      }
      process.removeListener('exit', killOnExit);
      errorLog();
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  };

  const tail = (): string => errorLog().split('\n').slice(-40).join('\n');
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      const log = tail();
      await stop();
      throw new Error(`Apache exited during startup (code ${child.exitCode}, signal ${child.signalCode}):\n${log}`);
    }
    // An unprotected file answers once Apache listens (the protected side would already call the issuer).
    const answered = await fetch(`${origin}/ready.txt`, { redirect: 'manual', signal: AbortSignal.timeout(2_000) }).then(
      async (response) => response.ok && (await response.text()) === readyToken,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline) {
      const log = tail();
      await stop();
      throw new Error(`Apache did not answer on ${origin} within ${STARTUP_TIMEOUT_MS} ms:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return { origin, protectedUrl, redirectUri, backchannelLogoutUri, stop, errorLog };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** The account Apache's workers run as when started by root (Apache refuses to serve as root). */
function unprivilegedUser(): { uid: number; gid: number } {
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n').map((line) => line.split(':'));
  for (const name of ['www-data', 'nobody']) {
    const entry = passwd.find((fields) => fields[0] === name);
    if (entry?.[2] && entry[3]) return { uid: Number(entry[2]), gid: Number(entry[3]) };
  }
  return { uid: 65534, gid: 65534 };
}

/** A double-quoted Apache config argument. */
function quote(value: string): string {
  if (/[\r\n]/.test(value) || value.includes('${')) {
    throw new Error(`value not usable in an Apache config: ${JSON.stringify(value)}`);
  }
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function apacheConfig(options: {
  port: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  dir: string;
  docRoot: string;
  errorLogPath: string;
  redirectUri: string;
  runAs?: { uid: number; gid: number };
}): string {
  const { dir, docRoot } = options;
  const metadataUrl = `${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  return [
    `ServerRoot ${quote(dir)}`,
    `DefaultRuntimeDir ${quote(dir)}`,
    `PidFile ${quote(path.join(dir, 'httpd.pid'))}`,
    `Mutex ${quote(`file:${dir}`)} default`,
    ...MODULES.map(([name, file]) => `LoadModule ${name} ${quote(path.join(MODULES_DIR, file))}`),
    ...(options.runAs ? [`User #${options.runAs.uid}`, `Group #${options.runAs.gid}`] : []),
    `Listen 127.0.0.1:${options.port}`,
    `ServerName 127.0.0.1:${options.port}`,
    'UseCanonicalName Off',
    `ErrorLog ${quote(options.errorLogPath)}`,
    'LogLevel warn auth_openidc:debug',
    // a small event MPM: one worker process is plenty for a test, and a second stays possible during restarts
    'StartServers 1',
    'ServerLimit 2',
    'ThreadsPerChild 16',
    'MaxRequestWorkers 32',
    'MinSpareThreads 4',
    'MaxSpareThreads 32',
    'KeepAlive On',
    'TypesConfig /dev/null',
    'AddType text/html .html',
    'DirectoryIndex index.html',
    `DocumentRoot ${quote(docRoot)}`,
    '<Directory />',
    '  AllowOverride None',
    '  Require all denied',
    '</Directory>',
    `<Directory ${quote(docRoot)}>`,
    '  Options +Includes',
    '  AddOutputFilter INCLUDES .html',
    '  Require all granted',
    '</Directory>',
    '',
    `OIDCProviderMetadataURL ${quote(metadataUrl)}`,
    `OIDCClientID ${quote(options.clientId)}`,
    `OIDCClientSecret ${quote(options.clientSecret)}`,
    `OIDCRedirectURI ${quote(options.redirectUri)}`,
    `OIDCCryptoPassphrase ${quote(randomBytes(32).toString('base64url'))}`,
    `OIDCScope ${quote(options.scope ?? 'openid email')}`,
    'OIDCResponseType code',
    'OIDCPKCEMethod S256',
    'OIDCProviderTokenEndpointAuth client_secret_basic',
    // server-side sessions: back-channel logout finds a session by the logout token's sid (or sub) in this cache
    'OIDCSessionType server-cache',
    'OIDCCacheType shm',
    'OIDCCacheShmMax 200',
    // over http mod_auth_openidc sets neither Secure nor SameSite=None (both only on https); with this Off its
    // cookies carry no SameSite, so the browser's Lax default applies, which lets the top-level redirect back from
    // the issuer carry the state cookie.
    'OIDCCookieSameSite Off',
    '',
    '<Location /protected>',
    '  AuthType openid-connect',
    '  Require valid-user',
    // By default a request without a session that does not look like a browser navigation (Node's fetch sends
    // Sec-Fetch-Mode: cors) gets 401 instead of the redirect to the issuer; tests check with fetch too.
    '  OIDCUnAuthAction auth true',
    '</Location>',
    '',
  ].join('\n');
}
