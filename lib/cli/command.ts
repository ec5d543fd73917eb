// What every CLI command is made of: the context it runs with, its implementation, and the two kinds of failure.
import type { Database } from '../db/client';
import type { OutboundPolicy } from '../http/outbound';
import type { SecretSource } from './secret-input';
import { terminalText } from '../util/visible-text';

export interface CliContext {
  db: Database;
  issuer: string;
  /** Encrypts the surface secret of an app created here (PORTICO_SECRET_KEY or the data folder's key). */
  atRestKey: Uint8Array;
  /** Prints a line. Every value in it that came from outside must have gone through terminalText (lib/util/visible-text.ts). */
  out: (line: string) => void;
  /** Who runs the CLI, for the audit trail: an operator with local authority on the server machine. */
  operator: string;
  /**
   * Asks the operator at the terminal; false when there is none to ask. Commands that decide something ask first
   * (or take --yes).
   */
  confirm(question: string): Promise<boolean>;
  /**
   * Reads a secret on the operator's side (./secret-input.ts): the CLI's standard input or one of its environment
   * variables, never the command line; or a file the operator names (a public key, a key set, a token), read on their
   * side too. Undefined when none was given; absent where nobody can give one.
   */
  readSecret?(source: SecretSource): Promise<string | undefined>;
  /** Where the CLI's outbound reads (an MCP upstream) may connect: the installation's (deliveryPolicy) unless given — tests allow loopback. */
  outbound?: OutboundPolicy;
}

/** A mistake in how the command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}
/** The command was understood but cannot be done: printed as is, exit code 1. */
export class CommandError extends Error {}

/** A command's implementation; its options and help are in ./catalog.ts, parsed before it runs. */
export interface Command {
  run(ctx: CliContext, values: Record<string, string | boolean | (string | boolean)[] | undefined>, positionals: string[]): Promise<void>;
  /**
   * The command's names for the fields a domain refusal may be about (`publicKey` → `--public-key-file`): the CLI's
   * answer (./index.ts) puts the name before the refusal's words, as REST puts the field's.
   */
  fields?: Readonly<Record<string, string>>;
}

/**
 * A list: one line of column names, then a line per row, tab-separated (so `cut -f` and a spreadsheet read it, and
 * `tail -n +2` drops the names). Nothing at all for no rows: the command says so in words instead.
 */
export function printList(ctx: Pick<CliContext, 'out'>, columns: readonly string[], rows: readonly (readonly string[])[]): void {
  if (rows.length === 0) return;
  ctx.out(columns.join('\t'));
  for (const row of rows) ctx.out(row.join('\t'));
}

/** The positionals a command takes, by name: each one given (non-empty), and nothing more. */
export function namedPositionals<K extends string>(positionals: readonly string[], names: readonly K[], hints: Partial<Record<K, string>> = {}): Record<K, string> {
  const result = {} as Record<K, string>;
  names.forEach((name, index) => {
    const value = positionals[index]?.trim();
    if (!value) throw new UsageError(hints[name] ?? `name the ${name}`);
    result[name] = value;
  });
  if (positionals.length > names.length) throw new UsageError(`one ${names.join(', one ')}: "${terminalText(positionals[names.length])}" is one word too many`);
  return result;
}

/** An option's text, trimmed; undefined when not given or blank. */
export function optionText(values: Record<string, unknown>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** An option's text, which the command cannot do without. */
export function requiredOptionText(values: Record<string, unknown>, name: string): string {
  const value = optionText(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}
