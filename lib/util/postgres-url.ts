// PostgreSQL URLs as libpq and postgres.js read them, which the WHATWG URL parser refuses when they name several
// hosts (`postgres://user@h1:5432,h2:5432/db?target_session_attrs=primary`: a failover pair, docs/deploy.md).

/** The URL's hosts (`host` or `host:port`, in order) and the URL with only the first of them, which `new URL` parses. */
export function splitPostgresHosts(value: string): { hosts: string[]; firstHostUrl: string } {
  const start = value.indexOf('://');
  if (start < 0) return { hosts: [], firstHostUrl: value };
  const afterScheme = start + 3;
  const authorityEnd = value.slice(afterScheme).search(/[/?#]/);
  const authority = authorityEnd < 0 ? value.slice(afterScheme) : value.slice(afterScheme, afterScheme + authorityEnd);
  const at = authority.lastIndexOf('@');
  const hostList = authority.slice(at + 1);
  const hosts = hostList.split(',');
  const hostsStart = afterScheme + at + 1;
  return { hosts, firstHostUrl: value.slice(0, hostsStart) + hosts[0] + value.slice(hostsStart + hostList.length) };
}

/** True for a postgres:// (or postgresql://) URL with at least one host, each of them non-empty. */
export function isPostgresUrl(value: string): boolean {
  const { hosts, firstHostUrl } = splitPostgresHosts(value);
  try {
    const url = new URL(firstHostUrl);
    if ((url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') || url.hostname === '') return false;
    return hosts.every((host) => {
      const parsed = new URL(`postgres://${host}`);
      return parsed.hostname !== '';
    });
  } catch {
    return false;
  }
}

/** host:port[,host:port…]/database of a URL, without credentials or parameters, for messages. */
export function safePostgresLocation(value: string): string {
  const { hosts, firstHostUrl } = splitPostgresHosts(value);
  try {
    const parsed = new URL(firstHostUrl);
    const located = hosts.map((host) => {
      const one = new URL(`postgres://${host}`);
      return `${one.hostname}${one.port ? `:${one.port}` : ''}`;
    });
    return `${located.join(',')}${parsed.pathname}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}
