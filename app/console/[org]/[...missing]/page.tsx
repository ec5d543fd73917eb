// Any path under an organization that no page serves: the organization's own not-found page (inside the console).
import { notFound } from 'next/navigation';

export default function MissingOrgPage(): never {
  notFound();
}
