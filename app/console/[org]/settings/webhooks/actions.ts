'use server';
// Settings → Webhooks: each action validates, authorizes `webhooks.manage` and runs one webhook command
// (lib/webhooks/webhook-commands.ts) through the organization-operation kernel; a refusal about one field stands
// next to it, and the form keeps what was typed.
import { z } from 'zod';
import { getT } from '@/app/_lib/i18n/server';
import { runtime } from '@/lib/runtime';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  redeliverWebhook,
  rotateWebhookSecret,
  sendWebhookTest,
  updateWebhookEndpoint,
  WEBHOOK_FORMATS,
  type WebhookDeps,
} from '@/lib/webhooks/webhook-commands';
import { orgAction } from '../../../_lib/action';
import type { Refusal } from '@/lib/refusals/refusal';
import { deliveryPolicy } from '@/lib/http/outbound';

const deps = (): WebhookDeps => ({ atRestKey: runtime().atRestKey, outbound: deliveryPolicy(runtime().env) });

/** Which form field a command's refusal is about. */
const FIELD_OF: Record<string, string> = { invalid_url: 'url', invalid_events: 'events', invalid_description: 'description', invalid_overlap: 'overlapHours' };

/** A command's refusal whose code names a field stands next to it. */
const nextToField = (refusal: Refusal) => (FIELD_OF[refusal.code] ? { field: FIELD_OF[refusal.code] } : undefined);

/** Checkboxes arrive as one string or several. */
const events = z.union([z.string(), z.array(z.string())]).optional().transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));

export const createWebhookAction = orgAction(
  {
    permission: 'webhooks.manage',
    input: z.object({ url: z.string().max(4096), format: z.enum(WEBHOOK_FORMATS).default('standard'), description: z.string().max(1000).default(''), events }),
    refused: nextToField,
  },
  async ({ tx, input, access, audit }) => {
    const { endpoint, secret } = await createWebhookEndpoint({ tx, audit, orgId: access.org.id }, deps(), input);
    const t = await getT('console.webhooks');
    return {
      status: 'ok',
      message: t('created', { url: endpoint.displayUrl }),
      secret: [secret],
      next: { href: `/console/${access.org.slug}/settings/webhooks/${endpoint.id}`, label: t('storedSecret') },
    };
  },
);

export const updateWebhookAction = orgAction(
  { permission: 'webhooks.manage', input: z.object({ endpointId: z.string().max(64), description: z.string().max(1000).default(''), events, enabled: z.enum(['on']).optional() }), refused: nextToField },
  async ({ tx, input, access, audit }) => {
    await updateWebhookEndpoint({ tx, audit, orgId: access.org.id }, input.endpointId, { events: input.events, description: input.description, enabled: input.enabled === 'on' });
    return { status: 'ok', message: (await getT('console.webhooks'))('saved') };
  },
);

export const rotateWebhookSecretAction = orgAction(
  { permission: 'webhooks.manage', input: z.object({ endpointId: z.string().max(64), overlapHours: z.coerce.number().int().default(24) }), refused: nextToField },
  async ({ tx, input, access, audit }) => {
    const { secret, previousValidUntil } = await rotateWebhookSecret({ tx, audit, orgId: access.org.id }, deps(), input.endpointId, input.overlapHours);
    const t = await getT('console.webhooks');
    return { status: 'ok', message: previousValidUntil ? t('rotated', { until: previousValidUntil }) : t('rotatedNoOverlap'), secret: [secret] };
  },
);

export const sendWebhookTestAction = orgAction({ permission: 'webhooks.manage', input: z.object({ endpointId: z.string().max(64) }) }, async ({ tx, input, access, audit }) => {
  await sendWebhookTest({ tx, audit, orgId: access.org.id }, input.endpointId);
  return { status: 'ok', message: (await getT('console.webhooks'))('testQueued') };
});

export const redeliverWebhookAction = orgAction({ permission: 'webhooks.manage', input: z.object({ deliveryId: z.string().max(64) }) }, async ({ tx, input, access, audit }) => {
  await redeliverWebhook({ tx, audit, orgId: access.org.id }, input.deliveryId);
  return { status: 'ok', message: (await getT('console.webhooks'))('redeliveryQueued') };
});

export const deleteWebhookAction = orgAction(
  { permission: 'webhooks.manage', input: (t) => z.object({ endpointId: z.string().max(64), confirmed: z.literal('yes', { error: t('console.action.confirm.deletion') }) }) },
  async ({ tx, input, access, audit }) => {
    await deleteWebhookEndpoint({ tx, audit, orgId: access.org.id }, input.endpointId);
    return { status: 'ok', message: (await getT('console.webhooks'))('deleted'), redirect: `/console/${access.org.slug}/settings/webhooks` };
  },
);
