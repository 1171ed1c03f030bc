/**
 * The one name-search rule (stores and products alike): accents and case ignored, substring
 * matches first, then typo-tolerant trigram word similarity. The user's text only ever travels
 * as bound parameters. Each value derived from it is a scalar subquery, computed once per
 * statement and opaque to the planner: the plan is then the same for every term, so a
 * prepared statement keeps one generic plan instead of planning each request (issue 9,
 * docs/decisions.md "City scale: search without planning"), and `search_text` (unaccent)
 * runs once per term, never per row.
 */
function nameSearch(folded: string, q: string) {
  const term = q.trim();
  const literal = term.replace(/[\\%_]/g, '\\$&'); // the user's % and _ are not wildcards
  return {
    match: `(${folded} like (select '%' || search_text(?) || '%') or (select search_text(?)) <% ${folded})`,
    matchParams: [literal, term],
    prefix: `(${folded} like (select search_text(?) || '%'))`,
    prefixParams: [literal],
    similarity: `word_similarity((select search_text(?)), ${folded})`,
    similarityParams: [term],
  };
}

/**
 * The names of `table` (a search names table: every distinct `search_text(name)` of stores or
 * products) that match, each with its rank as `prefix` and `similarity`, best first. Every row
 * of a name ranks the same, so callers read each name's best rows from an index and re-sort by
 * (prefix desc, similarity desc, their own tie-breaks): the work grows with the matching names,
 * not with the matching rows. docs/decisions.md "City scale: home screen and search".
 */
export function matchingNames(table: 'store_search_names' | 'product_search_names', q: string) {
  const name = nameSearch('n.search_name', q);
  return {
    sql: `(select n.search_name, ${name.prefix} as prefix, ${name.similarity} as similarity from ${table} n
           where ${name.match} order by prefix desc, similarity desc)`,
    params: [...name.prefixParams, ...name.similarityParams, ...name.matchParams],
  };
}

/** A row count written into SQL (a `limit` the code chose, never a client's text): a whole number or an error. */
export function sqlRowCount(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`not a row count: ${limit}`);
  return String(limit);
}
