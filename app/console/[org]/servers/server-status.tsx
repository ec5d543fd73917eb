// What the last contact with a server's upstream found, in words: reachable, unreachable, not valid MCP, or not
// checked yet; why, when a read failed (the gateway's refusal code, never the upstream's own text); and when.
import { When } from '@/app/_components/when';
import { getT } from '@/app/_lib/i18n/server';
import type { GatewayServer } from '@/lib/gateway/servers';

const TONE: Record<string, string> = { ok: 'text-green-800', unreachable: 'text-red-800', invalid: 'text-red-800' };

export async function ServerStatus({ server, showChecked = true }: { server: Pick<GatewayServer, 'status' | 'statusDetail' | 'checkedAt'>; showChecked?: boolean }) {
  const t = await getT('console.servers');
  return (
    <span className="grid gap-0.5" data-testid="server-status" data-status={server.status}>
      <span className={`font-semibold ${TONE[server.status] ?? 'text-slate-700'}`}>{t('statusWord', { status: server.status })}</span>
      {server.status !== 'ok' && server.statusDetail ? <span className="text-xs text-slate-600">{t('statusDetail', { code: server.statusDetail })}</span> : null}
      {showChecked && server.checkedAt ? (
        <span className="text-xs text-slate-600">
          <When value={server.checkedAt} />
        </span>
      ) : null}
    </span>
  );
}
