// `npm run portico -- webhooks …`: an organization's webhook endpoints from the server machine, with the CLI's
// local authority (its events are operator_cli's). The same commands as the console's Settings → Webhooks
// (lib/webhooks/webhook-commands.ts); a new secret is printed once.
import { env } from '../env';
import { terminalText } from '../util/visible-text';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
  sendWebhookTest,
  updateWebhookEndpoint,
  WEBHOOK_FORMATS,
  type WebhookDeps,
  type WebhookFormat,
} from '../webhooks/webhook-commands';
import { CommandError, printList, UsageError, type CliContext, type Command } from './command';
import { asOperator, operatorContext, organizationOf } from './org-scope';
import { deliveryPolicy } from '../http/outbound';

function positional(positionals: string[], what: string): string {
  const value = positionals[0];
  if (!value) throw new UsageError(`name the ${what}`);
  return value;
}

const deps = (ctx: CliContext): WebhookDeps => ({ atRestKey: ctx.atRestKey, outbound: deliveryPolicy(env()) });

function events(values: Record<string, unknown>): string[] | undefined {
  const given = values.event;
  if (given === undefined) return undefined;
  return (Array.isArray(given) ? given : [given]).flatMap((value) => String(value).split(',')).map((value) => value.trim());
}

export const WEBHOOK_COMMANDS: Record<string, Command> = {
  list: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      const endpoints = await listWebhookEndpoints(ctx.db, org.id);
      if (endpoints.length === 0) ctx.out(`${org.slug} has no webhook endpoints.`);
      printList(
        ctx,
        ['ENDPOINT', 'URL', 'FORMAT', 'ON', 'EVENTS', 'LAST DELIVERY', 'WAITING', 'GIVEN UP'],
        endpoints.map((endpoint) => [
          endpoint.id,
          terminalText(endpoint.displayUrl),
          endpoint.format,
          endpoint.enabled ? 'on' : 'off',
          endpoint.events.join(','),
          endpoint.lastStatus ? String(endpoint.lastStatus) : 'nothing sent',
          String(endpoint.waiting),
          String(endpoint.failed),
        ]),
      );
    },
  },
  add: {
    async run(ctx, values) {
      const org = await organizationOf(ctx, values);
      const format = (typeof values.format === 'string' ? values.format : 'standard') as WebhookFormat;
      if (!(WEBHOOK_FORMATS as readonly string[]).includes(format)) throw new UsageError('--format is standard or slack');
      const url = typeof values.url === 'string' ? values.url : '';
      if (!url) throw new UsageError('--url is required');
      const subscribed = events(values);
      if (!subscribed) throw new UsageError('--event is required (repeat it, or separate events with commas)');
      const { endpoint, secret } = await asOperator(ctx, org, (operation) =>
        createWebhookEndpoint(operatorContext(operation), deps(ctx), { url, format, description: typeof values.description === 'string' ? values.description : '', events: subscribed }),
      );
      ctx.out(`Added webhook endpoint ${endpoint.id} (${terminalText(endpoint.displayUrl)}) to ${org.slug}.`);
      ctx.out('Its signing secret, shown only now — give it to the receiver, which verifies every request with it:');
      ctx.out(`  ${secret}`);
    },
  },
  update: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      if (values.on && values.off) throw new UsageError('--on or --off, not both');
      const id = positional(positionals, 'endpoint (its id, from webhooks list)');
      const endpoint = await asOperator(ctx, org, (operation) =>
        updateWebhookEndpoint(operatorContext(operation), id, {
          events: events(values),
          description: typeof values.description === 'string' ? values.description : undefined,
          enabled: values.on ? true : values.off ? false : undefined,
        }),
      );
      ctx.out(`${terminalText(endpoint.displayUrl)}: ${endpoint.enabled ? 'on' : 'off'}, receives ${endpoint.events.join(', ')}.`);
    },
  },
  rotate: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const overlap = typeof values['overlap-hours'] === 'string' ? Number(values['overlap-hours']) : undefined;
      const id = positional(positionals, 'endpoint (its id, from webhooks list)');
      const { secret, previousValidUntil } = await asOperator(ctx, org, (operation) => rotateWebhookSecret(operatorContext(operation), deps(ctx), id, overlap));
      ctx.out('New signing secret, shown only now:');
      ctx.out(`  ${secret}`);
      ctx.out(previousValidUntil ? `The previous secret keeps signing beside it until ${previousValidUntil.toISOString()}.` : 'The previous secret no longer signs.');
    },
  },
  test: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const messageId = await asOperator(ctx, org, (operation) => sendWebhookTest(operatorContext(operation), positional(positionals, 'endpoint (its id, from webhooks list)')));
      ctx.out(`Queued a webhook.test event (webhook-id ${messageId}); see it with: npm run portico -- webhooks deliveries ${positionals[0]} --org ${org.slug}`);
    },
  },
  deliveries: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const endpoint = await findWebhookEndpoint(ctx.db, org.id, positional(positionals, 'endpoint (its id, from webhooks list)'));
      if (!endpoint) throw new CommandError(`${org.slug} has no webhook endpoint "${positionals[0]}". List them with: npm run portico -- webhooks list --org ${org.slug}`);
      const deliveries = await listWebhookDeliveries(ctx.db, org.id, endpoint.id);
      if (deliveries.length === 0) ctx.out('Nothing delivered yet.');
      for (const delivery of deliveries) {
        const state = delivery.deliveredAt ? 'delivered' : delivery.failedAt ? 'given up' : delivery.attempts > 0 ? 'retrying' : 'waiting';
        ctx.out([delivery.id, delivery.createdAt.toISOString(), delivery.eventType ?? '', delivery.messageId ?? '', state, `${delivery.attempts} attempts`, delivery.lastStatus ?? '', terminalText(delivery.lastError ?? '')].join('\t'));
      }
    },
  },
  redeliver: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      await asOperator(ctx, org, (operation) => redeliverWebhook(operatorContext(operation), positional(positionals, 'delivery (its id, from webhooks deliveries)')));
      ctx.out('Queued again, with the same webhook-id.');
    },
  },
  remove: {
    async run(ctx, values, positionals) {
      const org = await organizationOf(ctx, values);
      const endpoint = await findWebhookEndpoint(ctx.db, org.id, positional(positionals, 'endpoint (its id, from webhooks list)'));
      if (!endpoint) throw new CommandError(`${org.slug} has no webhook endpoint "${positionals[0]}".`);
      if (!values.yes && !(await ctx.confirm(`Remove ${terminalText(endpoint.displayUrl)} and its delivery log?`))) throw new CommandError('Nothing removed.');
      await asOperator(ctx, org, (operation) => deleteWebhookEndpoint(operatorContext(operation), endpoint.id));
      ctx.out(`Removed ${terminalText(endpoint.displayUrl)}.`);
    },
  },
};
