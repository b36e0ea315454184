/**
 * A large JSON value inlined into a statement as a `jsonb` expression, for set-based inserts of
 * many rows (`jsonb_to_recordset(${jsonbLiteral(rows)})`).
 *
 * Why not a `?` parameter: MikroORM inlines every value through pg's `escapeLiteral`, which builds
 * its result one character at a time. For a 500 kB batch that is a rope of half a million string
 * nodes (about 16 MB) alive while it grows, so the young generation promotes it and the old
 * generation fills with garbage until a full collection: staging a 50,000-member roster peaked at
 * 150 MB above its start (bench/reconcile.ts). Base64 is made natively in one flat string and
 * holds no quote, backslash or `?` (the placeholder MikroORM looks for), so it needs no escaping.
 */
export function jsonbLiteral(value: unknown): string {
  const base64 = Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
  return `convert_from(decode('${base64}', 'base64'), 'UTF8')::jsonb`;
}
