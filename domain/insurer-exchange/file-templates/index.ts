import { fileTemplateSchema, type FileTemplate } from '../file.js';
import { generic } from './generic.js';
import { indiaCensus } from './india-census.js';

/** The shipped templates, each checked against the template schema when this module loads. */
export const FILE_TEMPLATES: Readonly<Record<string, FileTemplate>> = Object.fromEntries(
  [generic, indiaCensus].map((t) => [t.name, fileTemplateSchema.parse(t)]),
);

export const FILE_TEMPLATE_NAMES = Object.keys(FILE_TEMPLATES);

export function fileTemplate(name: string): FileTemplate {
  const template = FILE_TEMPLATES[name];
  if (!template)
    throw new Error(`no insurer file template named ${name} (${FILE_TEMPLATE_NAMES.join(', ')})`);
  return template;
}
