// The example app's MCP tools: a shared notebook, one tool at least at each risk level. Most need only the baseline
// `mcp`; reading the list needs `notes:read` and deleting needs `notes:delete`, permissions an admin grants in
// Portico (a token without them does not list those tools, and a call gets 403 insufficient_scope). They are declared once
// here; the kit registers them behind the confirmation gate, declares them to Portico and reports them to
// Portico's introspection, all from this one list.
import { z } from 'zod';
import { defineTool, type KitTool } from '../../app-kit';

export interface Note {
  id: number;
  title: string;
  body: string;
  author: string;
  shared: boolean;
}

/** The app's data: in memory, as befits an example. */
export class Notebook {
  private nextId = 1;
  readonly notes = new Map<number, Note>();
  add(title: string, body: string, author: string): Note {
    const note = { id: this.nextId++, title, body, author, shared: false };
    this.notes.set(note.id, note);
    return note;
  }
}

const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value) }] });
const refusal = (message: string) => ({ isError: true, content: [{ type: 'text' as const, text: message }] });

export function notebookTools(notebook: Notebook): KitTool<never>[] {
  const visibleTo = (note: Note, subject: string) => note.shared || note.author === subject;
  return [
    defineTool({
      name: 'whoami',
      description: 'Who this connection acts for, and as which agent.',
      riskLevel: 'safe',
      run: (_args, { token }) => text({ sub: token.subject, act: token.actor ?? null, client_id: token.clientId }),
    }),
    defineTool({
      name: 'notes.list',
      description: 'Lists the notes you can read: yours and the shared ones.',
      riskLevel: 'safe',
      requiredScopes: ['notes:read'],
      run: (_args, { token }) => text([...notebook.notes.values()].filter((note) => visibleTo(note, token.subject))),
    }),
    defineTool({
      name: 'notes.add',
      description: 'Adds a private note.',
      riskLevel: 'caution',
      inputSchema: { title: z.string().min(1).max(200), body: z.string().max(10_000).default('') },
      run: ({ title, body }, { token }) => text(notebook.add(title, body, token.subject)),
    }),
    defineTool({
      name: 'notes.share',
      description: 'Makes one of your notes readable by everyone who uses this app.',
      riskLevel: 'review',
      inputSchema: { id: z.number().int().positive() },
      run: ({ id }, { token }) => {
        const note = notebook.notes.get(id);
        if (!note || note.author !== token.subject) return refusal(`You have no note ${id}.`);
        note.shared = true;
        return text(note);
      },
    }),
    defineTool({
      name: 'notes.delete',
      description: 'Deletes one of your notes.',
      riskLevel: 'approval_required',
      requiredScopes: ['notes:delete'],
      warning: 'The note is destroyed for good: there is no undo.',
      inputSchema: { id: z.number().int().positive() },
      run: ({ id }, { token }) => {
        const note = notebook.notes.get(id);
        if (!note || note.author !== token.subject) return refusal(`You have no note ${id}.`);
        notebook.notes.delete(id);
        return text(`Deleted note ${id} ("${note.title}").`);
      },
    }),
  ] as KitTool<never>[];
}

/** A tool the app exposes without having declared it: what surface verification exists to catch (tests use it). */
export function undeclaredExportTool(notebook: Notebook): KitTool<never> {
  return defineTool({
    name: 'notes.export_all',
    description: 'Exports every note, shared or not.',
    riskLevel: 'safe',
    run: () => text([...notebook.notes.values()]),
  }) as KitTool<never>;
}
