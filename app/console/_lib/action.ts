// The layered action client: every console server action is built with orgAction, which validates the input
// (zod), authorizes (session → organization → permission), and runs the change through the organization-operation
// kernel (lib/organizations/org-operation.ts): one transaction, exactly one audit event, the same shape as from REST or
// MCP. Nothing of this is re-implemented per action. An action declared `transaction: false` calls a door of lib/ that
// reads another server first and then runs its own operation (lib/gateway/doors.ts): no transaction is held across the
// HTTP exchange, and the door writes the events.
import 'server-only';
import { headers } from 'next/headers';
import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import type { OrgPermission } from '@/lib/organizations/permissions';
import { validateSlug } from '@/lib/clients/validation';
import { runOrgOperation } from '@/lib/organizations/org-operation';
import type { AuditRecord } from '@/lib/audit/events';
import type { Database, Transaction } from '@/lib/db/client';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { enqueueMail } from '@/lib/deliveries/channels/mail';
import type { MailMessage } from '@/lib/mail/messages';
import { db, runtime } from '@/lib/runtime';
import { textIn, translator, type LocalizedText, type Translator } from '@/lib/i18n/catalogs';
import { requestLocale, withRequestLocale } from '@/app/_lib/i18n/request-locale';
import { Refusal } from '@/lib/refusals/refusal';
import { authorizeOrgAction, type OrgAccess } from './access';
import { refusalWords } from '../../account/_lib/refusal-words';

export type ActionState =
  | { status: 'idle' }
  /** `next`: where the person goes once they have read it (after a secret shown once: "I have stored these"). */
  /** `tone: 'warning'`: done, but not as hoped (a domain check that found nothing): not shown as a success. */
  | { status: 'ok'; message: string; tone?: 'warning'; secret?: string[]; redirect?: string; next?: { href: string; label: string } }
  | { status: 'error'; message: string; fieldErrors?: Record<string, string> };

export const idle: ActionState = { status: 'idle' };

/** A form field's name as people read it: redirectUri → "Redirect URI", confirmSlug → "Confirm slug". */
function fieldLabel(field: string): string {
  const words = field
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\b(uri|url|id)\b/g, (word) => word.toUpperCase());
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A refusal the handler decides (a conflict, a rule): rolled back and shown — next to `field` when it names one. Its
 * words: a catalog key (`localized('refusals.…')`), shown in the person's language, or a string already translated.
 */
export function actionRefusal(text: string | LocalizedText, field?: string): Refusal {
  return new Refusal({ domain: 'console', status: 400, code: 'refused', text, ...(field === undefined ? {} : { field }) });
}

/** How a form reads a refusal in its own terms: other words, or the form field it stands next to. */
export interface RefusalReading {
  message?: string | LocalizedText;
  field?: string;
}

/**
 * The console form's one answer to a refusal: its words in the person's language (refusalWords), next to its field
 * when it names one of the form's. A lib rule's field is in the rule's terms (a policy's maxGrantSeconds, RFC 7591's
 * redirect_uris): the form names it with `refused` (the action's), which may also say the refusal in the form's own
 * words; an actionRefusal's field is the form's already. Anything else is thrown on (Next's redirect signal too).
 */
async function answer(error: unknown, refused?: (refusal: Refusal, words: string) => RefusalReading | undefined | Promise<RefusalReading | undefined>): Promise<ActionState> {
  if (!(error instanceof Refusal)) throw error;
  const words = await refusalWords(error);
  const reading = (await refused?.(error, words)) ?? {};
  const message = reading.message === undefined ? words : typeof reading.message === 'string' ? reading.message : textIn(reading.message, await requestLocale());
  const field = reading.field ?? (error.domain === 'console' ? error.field : undefined);
  return field ? { status: 'error', message, fieldErrors: { [field]: message } } : { status: 'error', message };
}

/**
 * A catalog text in the translator's language: a lib validation message (`{ ok: false, text }`) inside a form
 * schema's `(t) => z.object(…)`.
 */
export function spoken(t: Translator, text: LocalizedText): string {
  return (t as unknown as (key: string, values?: LocalizedText['values']) => string)(text.key, text.values);
}

/** A short name (slug) in a form, optional: empty means "made from the name"; one that is no slug is refused next to it. */
export const optionalSlug = (t: Translator) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .optional()
    .transform((value, ctx) => {
      if (!value) return undefined;
      const result = validateSlug(value);
      if (!result.ok) {
        ctx.addIssue({ code: 'custom', message: spoken(t, result.text) });
        return z.NEVER;
      }
      return result.value;
    });

type AuditInput = Omit<AuditRecord, 'orgId' | 'actor'>;

/** The organization, the person's role there and the person as the actor, through the console: what runOrgOperation takes. */
export type ActionScope = Parameters<typeof runOrgOperation>[1];

interface HandlerContext<Input, Prepared> {
  tx: Transaction;
  input: Input;
  access: OrgAccess;
  /** The operation's organization, role and actor (a domain command's context: `{ tx, audit, ...scope }`). */
  scope: ActionScope;
  /** What `prepare` found before the transaction began. */
  prepared: Prepared;
  audit(record: AuditInput): Promise<void>;
  /** Queues a mail in this transaction: it is sent only if the change commits (lib/deliveries/channels/mail.ts). */
  queueMail(message: MailMessage): Promise<void>;
}

/**
 * A handler declared with `transaction: false`: it calls a door of lib/ that runs its own organization operation
 * (lib/gateway/doors.ts reads an upstream over HTTP first, then records what it read in one operation of its own).
 * No transaction is open around it, and the door writes the audit events: the handler gets the scope to hand it.
 */
interface DoorHandlerContext<Input, Prepared> {
  db: Database;
  input: Input;
  access: OrgAccess;
  scope: ActionScope;
  prepared: Prepared;
}

interface OrgActionOptions<Schema extends z.ZodType, Prepared> {
  permission: OrgPermission;
  /**
   * The form's schema; or a function of the request's translator that builds it, so that its messages are in the
   * person's language (a `(t) => z.object(…)` whose messages are `t(…)` of whole keys): write
   * whole sentences there.
   */
  input: Schema | ((t: Translator) => Schema);
  /**
   * Slow work that must not hold a transaction open (a call to another server), run after authorization and
   * validation, before the transaction. It must not write: the handler records its result.
   */
  prepare?: (ctx: { input: z.infer<Schema>; access: OrgAccess }) => Promise<Prepared>;
  /**
   * How this form reads a refusal (of `prepare` or the handler) in its own terms — a code that names one of its
   * fields, words of its own; undefined: as the refusal says (`words`: the refusal's, in the person's language).
   */
  refused?: (refusal: Refusal, words: string) => RefusalReading | undefined | Promise<RefusalReading | undefined>;
}

type Done = Promise<Extract<ActionState, { status: 'ok' }>>;
type Action = (previous: ActionState, formData: FormData) => Promise<ActionState>;

/** An action whose handler runs its own organization operation (a door that reads another server first): see DoorHandlerContext. */
export function orgAction<Schema extends z.ZodType, Prepared = undefined>(
  options: OrgActionOptions<Schema, Prepared> & { transaction: false },
  handler: (ctx: DoorHandlerContext<z.infer<Schema>, Prepared>) => Done,
): Action;
export function orgAction<Schema extends z.ZodType, Prepared = undefined>(
  options: OrgActionOptions<Schema, Prepared> & { transaction?: true },
  handler: (ctx: HandlerContext<z.infer<Schema>, Prepared>) => Done,
): Action;
export function orgAction<Schema extends z.ZodType, Prepared = undefined>(
  options: OrgActionOptions<Schema, Prepared> & { transaction?: boolean },
  handler: ((ctx: HandlerContext<z.infer<Schema>, Prepared>) => Done) | ((ctx: DoorHandlerContext<z.infer<Schema>, Prepared>) => Done),
): Action {
  return async function action(_previous: ActionState, formData: FormData): Promise<ActionState> {
    const authorization = await authorizeOrgAction(formData.get('org'), options.permission);
    if (!authorization.ok) return { status: 'error', message: authorization.error };
    const { access } = authorization;

    const raw = Object.fromEntries([...formData.keys()].filter((key) => !key.startsWith('$')).map((key) => {
      const values = formData.getAll(key);
      return [key, values.length > 1 ? values : values[0]];
    }));
    const locale = await requestLocale();
    const schema = typeof options.input === 'function' ? (options.input as (t: Translator) => Schema)(translator(locale)) : options.input;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const fieldErrors: Record<string, string> = {};
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? 'form');
        // A sentence (capitalized, or naming its value in quotes) stands as is; a fragment ("is required") gets the
        // field's name in plain words in front ("Name is required").
        fieldErrors[field] ??= /^["A-Z]/.test(issue.message) ? issue.message : `${fieldLabel(field)} ${issue.message}`;
      }
      return { status: 'error', message: translator(locale, 'console.action')('checkFields'), fieldErrors };
    }

    const ip = clientIpFromHeaders(await headers());
    const scope: ActionScope = { org: access.org, role: access.role, actor: { person: access.user, ip, door: 'console' } };
    try {
      const prepared = (options.prepare ? await options.prepare({ input: parsed.data, access }) : undefined) as Prepared;
      // The language is pinned for the transaction: a translation inside it must not look it up in the database again.
      const result = await withRequestLocale(locale, () =>
        options.transaction === false
          ? (handler as (ctx: DoorHandlerContext<z.infer<Schema>, Prepared>) => Done)({ db: db(), input: parsed.data, access, scope, prepared })
          : runOrgOperation(db(), scope, { audit: 'exactly_one' }, ({ tx, audit }) =>
              (handler as (ctx: HandlerContext<z.infer<Schema>, Prepared>) => Done)({
                tx: tx as Transaction,
                input: parsed.data,
                access,
                scope,
                prepared,
                audit,
                queueMail: async (message) => {
                  await enqueueMail(tx, runtime().atRestKey, message);
                },
              }),
            ),
      );
      if (result.redirect) redirect(result.redirect);
      revalidatePath(`/console/${access.org.slug}`, 'layout');
      return result;
    } catch (error) {
      return answer(error, options.refused);
    }
  };
}
