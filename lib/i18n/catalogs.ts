// The message catalogs: one JSON file per language in messages/ (ICU messages, nested by screen). The languages
// Portico speaks are the files that are there — adding one is adding a file, never code. English is the reference:
// every other catalog has exactly its keys (test/i18n/catalogs.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createTranslator, type AbstractIntlMessages, type MessageKeys, type NamespaceKeys, type NestedKeyOf } from 'use-intl/core';
import type english from '../../messages/en.json';

export type Messages = typeof english;

/** The language every other falls back to (and the catalog that defines the keys). */
export const DEFAULT_LOCALE = 'en';

// Resolved from the working directory, like the migrations: bundlers cannot follow import.meta.url to a data folder.
export const CATALOGS_FOLDER = path.join(process.cwd(), 'messages');

let cachedLocales: readonly string[] | undefined;
const cachedMessages = new Map<string, Messages>();

/** Every language with a catalog, English first, as BCP 47 tags (the file names: `pt-BR.json` → `pt-BR`). */
export function supportedLocales(): readonly string[] {
  cachedLocales ??= Object.freeze(
    readdirSync(CATALOGS_FOLDER)
      .filter((name) => /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*\.json$/.test(name))
      .map((name) => name.slice(0, -'.json'.length))
      .sort((a, b) => (a === DEFAULT_LOCALE ? -1 : b === DEFAULT_LOCALE ? 1 : a.localeCompare(b))),
  );
  return cachedLocales;
}

/** The supported tag equal to `value` regardless of case (`pt-br` → `pt-BR`), or undefined. */
export function supportedLocale(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const lower = value.toLowerCase();
  return supportedLocales().find((locale) => locale.toLowerCase() === lower);
}

export function messagesFor(locale: string): Messages {
  const known = supportedLocale(locale) ?? DEFAULT_LOCALE;
  let messages = cachedMessages.get(known);
  if (!messages) {
    messages = JSON.parse(readFileSync(path.join(CATALOGS_FOLDER, `${known}.json`), 'utf8')) as Messages;
    cachedMessages.set(known, messages);
  }
  return messages;
}

/** The language's own name for itself ("Português (Brasil)"), for the language switcher. */
export function localeName(locale: string): string {
  return messagesFor(locale).language.name;
}

/** A namespace of the catalogs (`signIn`, `mail.invitation`): a translator's keys are relative to it. */
export type Namespace = NamespaceKeys<Messages, NestedKeyOf<Messages>>;

function englishText(fullKey: string): string {
  const english = fullKey.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), messagesFor(DEFAULT_LOCALE));
  return typeof english === 'string' ? english : fullKey;
}

/**
 * A translator for one language (mails, MCP texts, server components through app/_lib/i18n/server.ts). A key missing
 * from a catalog shows the English text instead of failing the page (the catalog test keeps that from happening).
 */
const translators = new Map<string, unknown>();

export function translator<N extends Namespace = never>(locale: string, namespace?: N, timeZone = 'UTC') {
  const known = supportedLocale(locale) ?? DEFAULT_LOCALE;
  // One per language, namespace and time zone for the process: a translator keeps the messages it has parsed, and
  // every page, mail and refusal asks for the same few. The zone is the one its dates and times are written in (a
  // mail's recipient's, lib/i18n/time-zone.ts); pages format moments in the browser (app/_components/when.tsx).
  const cacheKey = `${known} ${namespace ?? ''} ${timeZone}`;
  let made = translators.get(cacheKey) as ReturnType<typeof createTranslator<Messages, N>> | undefined;
  if (!made) {
    made = createTranslator<Messages, N>({
      locale: known,
      messages: messagesFor(known),
      namespace,
      timeZone,
      onError: () => undefined,
      getMessageFallback: ({ key, namespace: within }) => englishText(within ? `${within}.${key}` : key),
    });
    translators.set(cacheKey, made);
  }
  return made;
}

/** A translator of one namespace, for helpers that take one as an argument. */
export type Translator<N extends Namespace = never> = ReturnType<typeof translator<N>>;

/**
 * The namespaces client components read (each useTranslations call of a 'use client' file): the only part of the
 * catalog the root layout hands to the browser's provider. It used to be the whole catalog, on every page: 180 KB
 * (English) serialized into each page's payload and escaped into its HTML — most of a console page's fixed server
 * cost, and the browser's download (issue 61). test/i18n/client-namespaces.test.ts holds this list to the code: a
 * namespace a client component reads and this list lacks would show keys instead of words.
 */
export const CLIENT_NAMESPACES = [
  'account.cardForm',
  'account.factorForms',
  'account.notifications',
  'account.timeZone',
  'central.decision',
  'central.live',
  'central.request',
  'central.revoke',
  'confirm.form',
  'console.action',
  'console.agent',
  'console.nameAndSlug',
  'console.servers',
  'console.settings.branding',
  'console.settings.language',
  'console.settings.timeZone',
  'console.settings.twoStep',
  'consoleError',
  'copy',
  'embeddedCentral',
  'orgs.form',
  'passkey',
  'when',
] as const;

const clientCatalogs = new Map<string, AbstractIntlMessages>();

/** For the client provider: the client namespaces of a language's catalog, as plain JSON (one object per language). */
export function clientMessages(locale: string): AbstractIntlMessages {
  const known = supportedLocale(locale) ?? DEFAULT_LOCALE;
  let picked = clientCatalogs.get(known);
  if (!picked) {
    picked = {};
    const catalog = messagesFor(known) as unknown as AbstractIntlMessages;
    for (const namespace of CLIENT_NAMESPACES) {
      const path = namespace.split('.');
      let from: AbstractIntlMessages | string | undefined = catalog;
      let to = picked;
      for (const [index, segment] of path.entries()) {
        from = typeof from === 'object' ? from[segment] : undefined;
        if (from === undefined) break;
        if (index === path.length - 1) to[segment] = from;
        else to = (to[segment] ??= {}) as AbstractIntlMessages;
      }
    }
    clientCatalogs.set(known, picked);
  }
  return picked;
}

/** A full key of the catalogs (`refusals.nameTaken`). */
export type MessageKey = MessageKeys<Messages, NestedKeyOf<Messages>>;

/**
 * Words to show a person later, in their language: a catalog key and its values. Refusals thrown deep in lib
 * (lib/refusals/refusal.ts) carry one; the page that shows the refusal translates it, and their `message`
 * stays English for logs, the CLI and error_description on the wire.
 */
export interface LocalizedText {
  key: MessageKey;
  values?: Record<string, string | number | Date>;
}

export function localized(key: MessageKey, values?: LocalizedText['values']): LocalizedText {
  return { key, values };
}

/** The text in a language (English when none is given). */
export function textIn(text: LocalizedText, locale: string = DEFAULT_LOCALE): string {
  return (translator(locale) as unknown as (key: string, values?: LocalizedText['values']) => string)(text.key, text.values);
}
