'use client';
// A name and the address (slug) made from it: the slug follows the name until the person edits it, is cut to a valid
// length instead of refused, and is previewed where it will be used. Inside an ActionForm (or a FieldErrorsContext)
// each field shows the server's refusal next to itself; what was typed stays. The slug is not `required`: a name with
// no Latin letters or digits makes none, and the server then picks one (the fallback the hint shows).
import { useState } from 'react';
import { useTranslations } from 'use-intl/react';
import { slugFromName } from '@/lib/util/slug';
import { Field } from './fields';

export function NameAndSlugFields(props: {
  idPrefix: string;
  nameHint: string;
  /** Where the slug shows, for the preview under the field, with `{slug}` in its place ("At /console/{slug}."). */
  preview: string;
  fallback: string;
  initial?: { name: string; slug: string };
  placeholder?: string;
}) {
  const t = useTranslations('console.nameAndSlug');
  const [name, setName] = useState(props.initial?.name ?? '');
  const [slug, setSlug] = useState(props.initial?.slug ?? '');
  const [slugEdited, setSlugEdited] = useState(Boolean(props.initial?.slug));
  const shownSlug = slugEdited ? slug : slugFromName(name, '');
  return (
    <>
      <Field id={`${props.idPrefix}-name`} label={t('name')} name="name" value={name} maxLength={80} required placeholder={props.placeholder} onChange={(event) => setName(event.target.value)} hint={props.nameHint} />
      <Field
        id={`${props.idPrefix}-slug`}
        label={t('slug')}
        name="slug"
        value={shownSlug}
        maxLength={64}
        onChange={(event) => {
          setSlugEdited(true);
          setSlug(event.target.value.toLowerCase());
        }}
        hint={t('slugHint', { preview: props.preview.replace('{slug}', shownSlug || props.fallback) })}
      />
    </>
  );
}
