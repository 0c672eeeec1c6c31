/**
 * The name of a document meant as an AlertTemplate, for a document refused before it could be read as one: projects
 * naming it are not told it is unknown, its own error says what is wrong.
 */
import { didYouMean } from './did-you-mean.ts';
import { KINDS } from './enums.ts';

/**
 * `name` when `kind` is AlertTemplate or a misspelling of it (`AlertTemplat`) and `name` is text; else undefined.
 * Both are the document's own `kind` and `metadata.name`, whatever their type.
 */
export function meantTemplateName(kind: unknown, name: unknown): string | undefined {
  if (typeof kind !== 'string' || (kind !== 'AlertTemplate' && didYouMean(kind, KINDS) !== 'AlertTemplate')) {
    return undefined;
  }
  return typeof name === 'string' ? name : undefined;
}
