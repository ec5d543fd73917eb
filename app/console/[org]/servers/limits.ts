// The gateway's limits in the units the Servers forms use: seconds and KB (1,024 bytes), where the gateway keeps
// milliseconds and bytes (lib/gateway/servers.ts, LIMIT_RANGES). Every bound converts exactly.
import { LIMIT_RANGES, type GatewayLimits } from '@/lib/gateway/servers';

const SECOND = 1_000;
const KB = 1_024;

export interface FormLimits {
  timeoutSeconds: number;
  maxResponseKb: number;
  maxConcurrentCalls: number;
}

export const FORM_LIMIT_RANGES: Record<keyof FormLimits, { min: number; max: number }> = {
  timeoutSeconds: { min: LIMIT_RANGES.timeoutMs.min / SECOND, max: LIMIT_RANGES.timeoutMs.max / SECOND },
  maxResponseKb: { min: LIMIT_RANGES.maxResponseBytes.min / KB, max: LIMIT_RANGES.maxResponseBytes.max / KB },
  maxConcurrentCalls: { min: LIMIT_RANGES.maxConcurrentCalls.min, max: LIMIT_RANGES.maxConcurrentCalls.max },
};

/** What a new server starts with (lib/gateway/doors.ts's defaults; the database's too). */
export const DEFAULT_FORM_LIMITS: FormLimits = { timeoutSeconds: 30, maxResponseKb: 1_024, maxConcurrentCalls: 8 };

export function gatewayLimitsOf(limits: FormLimits): GatewayLimits {
  return { timeoutMs: limits.timeoutSeconds * SECOND, maxResponseBytes: limits.maxResponseKb * KB, maxConcurrentCalls: limits.maxConcurrentCalls };
}

export function formLimitsOf(limits: GatewayLimits): FormLimits {
  return { timeoutSeconds: Math.round(limits.timeoutMs / SECOND), maxResponseKb: Math.round(limits.maxResponseBytes / KB), maxConcurrentCalls: limits.maxConcurrentCalls };
}
