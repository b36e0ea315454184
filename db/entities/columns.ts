import { p, type EntitySchema } from '@mikro-orm/core';

/**
 * Column builders that say what the migrations create, so the schema generator finds no difference
 * (test/db/schema-diff.test.ts): identifiers and strings are `text`, money `numeric(14,2)`, instants
 * `timestamptz` stamped by the database, domain enums plain `text` (their spellings are checked by the
 * domain, not by a database constraint).
 */
export const text = () => p.text();

export const money = () => p.decimal('string').precision(14).scale(2);

/** `timestamptz not null default now()`, also stamped by the ORM on insert. */
export const createdAt = () =>
  p
    .datetime()
    .defaultRaw('now()')
    .onCreate(() => new Date());

/** `timestamptz not null default now()`, stamped by the ORM on insert and update. */
export const updatedAt = () =>
  p
    .datetime()
    .defaultRaw('now()')
    .onCreate(() => new Date())
    .onUpdate(() => new Date());

/** A domain enum stored as plain text. */
export const textEnum = <T extends string>(_values: readonly T[]) => p.text().$type<T>();

/**
 * A reference column (`references <table>(id)`, no action on update or delete, as the migrations
 * declare it), read and written as the referenced row's id.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const ref = <T extends EntitySchema<any, any>>(target: T, column: string) =>
  p.manyToOne(target).mapToPk().fieldName(column).updateRule('no action').deleteRule('no action');
