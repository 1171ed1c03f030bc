/**
 * The names of `table` (a search names table: every distinct `search_text(name)` of stores or
 * products) that match `q`, each with its rank as `prefix` and `similarity`, best first: the one
 * name-search rule (stores and products alike): accents and case ignored, substring matches
 * first, then typo-tolerant trigram word similarity. Every row of a name ranks the same, so
 * callers read each name's best rows from an index and re-sort by (prefix desc, similarity
 * desc, their own tie-breaks): the work grows with the matching names, not with the matching
 * rows. docs/decisions.md "Search: ranked names, one prepared statement".
 *
 * The user's text only ever travels as bound parameters, folded once (`folded`: `search_text`
 * is an SQL function PostgreSQL cannot inline, each call sets it up anew) and read through
 * scalar subqueries: computed once per statement and opaque to the planner, so the plan is the
 * same for every term and a prepared statement keeps one generic plan instead of planning each
 * request (issue 9, docs/decisions.md "Search: ranked names, one prepared statement").
 */
export function matchingNames(table: 'store_search_names' | 'product_search_names', q: string) {
  const term = q.trim();
  const literal = term.replace(/[\\%_]/g, '\\$&'); // the user's % and _ are not wildcards
  return {
    sql: `(with folded as materialized (select search_text(?) as term, search_text(?) as literal)
           select n.search_name, (n.search_name like (select literal || '%' from folded)) as prefix,
             word_similarity((select term from folded), n.search_name) as similarity
           from ${table} n
           where (n.search_name like (select '%' || literal || '%' from folded) or (select term from folded) <% n.search_name)
           order by prefix desc, similarity desc)`,
    params: [term, literal],
  };
}

/** A row count written into SQL (a `limit` the code chose, never a client's text): a whole number or an error. */
export function sqlRowCount(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`not a row count: ${limit}`);
  return String(limit);
}
