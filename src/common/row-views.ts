/**
 * Rows read with SQL and answered as an entity's GraphQL type, without the ORM (issue 9: on the
 * hot reads MikroORM's query building, hydration and identity map cost more CPU than the rest
 * of the request; docs/decisions.md "Row views").
 *
 * A *view* is a row whose own properties are the entity's columns under their property names
 * (the select list comes from the entity's metadata), whose many-to-ones are plain `{ id }`
 * (what the entity's getters and field resolvers read: `store.id`, `category?.id`), and whose
 * prototype is the entity's, so its getters (`deliveryPrice`) work and type-graphql takes it
 * as the instance it expects (it would copy a plain root into `new Entity()`, which MikroORM's
 * property setters refuse). A view is read-only and unmanaged: never hand one to the ORM
 * (`persist`, `assign`, `wrap`, a `find` condition); a write loads the entity.
 */
import { EntityClass, ReferenceKind } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';

/** What a view of entity `T` holds: its columns, its many-to-ones as `{ id }`. Read-only. */
export type View<T> = T;

interface Shape {
  /** `"column" as "property"` for every loaded column, to prefix with the table's alias. */
  columns: [column: string, property: string][];
  /** Properties that are many-to-ones (their column holds the id). */
  refs: string[];
  /** Date properties: the driver answers timestamps as text, the ORM parses them. */
  dates: string[];
  /** The select texts by key (the alias; `json:` or `array:` and the alias), built once. */
  selects: Map<string, string>;
}

/** Column types whose driver value is not what the ORM would hold (text for numbers, ...): refused. */
const UNMAPPED = /^(bigint|int8|numeric|decimal|json|jsonb)\b|\[\]$/;

const shapes = new Map<object, Shape>();

function shapeOf(em: EntityManager, entity: EntityClass<object>): Shape {
  let shape = shapes.get(entity);
  if (!shape) {
    shape = { columns: [], refs: [], dates: [], selects: new Map() };
    for (const prop of em.getMetadata().get(entity.name).props) {
      if (prop.persist === false || prop.lazy || prop.formula || prop.fieldNames?.length !== 1) continue;
      if (prop.kind === ReferenceKind.MANY_TO_ONE || (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner)) shape.refs.push(prop.name);
      else if (prop.kind !== ReferenceKind.SCALAR) continue;
      else if (prop.runtimeType === 'Date') shape.dates.push(prop.name);
      else if (UNMAPPED.test(prop.columnTypes?.[0] ?? '')) {
        throw new Error(`row-views: ${entity.name}.${prop.name} (${prop.columnTypes[0]}) needs a conversion views do not make`);
      }
      shape.columns.push([prop.fieldNames[0], prop.name]);
    }
    shapes.set(entity, shape);
  }
  return shape;
}

/** The select list of a view of `entity` from the table aliased `alias` (code from metadata, no values). */
export function viewColumns(em: EntityManager, entity: EntityClass<object>, alias: string): string {
  return selectOf(em, entity, alias, ({ columns }) =>
    columns.map(([column, property]) => `${alias}."${column}" as "${property}"`).join(', '),
  );
}

/** A select text built from `entity`'s shape once per key (the texts depend on code only: a few per entity). */
function selectOf(em: EntityManager, entity: EntityClass<object>, key: string, build: (shape: Shape) => string): string {
  const shape = shapeOf(em, entity);
  let select = shape.selects.get(key);
  if (select === undefined) shape.selects.set(key, (select = build(shape)));
  return select;
}

/** Turns rows selected with `viewColumns` (and any extra columns) into views, in place. */
export function asViews<T extends object>(em: EntityManager, entity: EntityClass<T>, rows: object[]): View<T>[] {
  const { refs, dates } = shapeOf(em, entity);
  const platform = em.getPlatform();
  const prototype = entity.prototype as object;
  for (const row of rows as Record<string, unknown>[]) {
    for (const ref of refs) row[ref] = row[ref] === null || row[ref] === undefined ? null : { id: row[ref] };
    for (const date of dates) if (typeof row[date] === 'string') row[date] = platform.parseDate(row[date]);
    Object.setPrototypeOf(row, prototype);
  }
  return rows as View<T>[];
}

/**
 * `select <the view's columns> <rest>`: `rest` names the table with `alias` (`from ads a where
 * ...`); every value in `params`.
 */
export async function readViews<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  alias: string,
  rest: string,
  params: unknown[] = [],
): Promise<View<T>[]> {
  return asViews(em, entity, await em.execute(`select ${viewColumns(em, entity, alias)} ${rest}`, params));
}

/**
 * A view of `entity` from the table aliased `alias` as one JSON object
 * (`json_build_object('property', alias."column", ...)`): the way a statement answers nested rows
 * beside its own (`json_agg(<this> order by ...)`), so a read of several tables is one round trip
 * (issue 9: each statement costs the service a fixed slice of CPU). `fromJson` makes views of them.
 */
export function viewObject(em: EntityManager, entity: EntityClass<object>, alias: string): string {
  return selectOf(em, entity, `json:${alias}`, ({ columns }) => {
    // A function takes at most 100 arguments (PostgreSQL's FUNC_MAX_ARGS): 50 properties.
    if (columns.length > 50) throw new Error(`row-views: ${entity.name} has too many columns for json_build_object`);
    return `json_build_object(${columns.map(([column, property]) => `'${property}', ${alias}."${column}"`).join(', ')})`;
  });
}

/**
 * A view of `entity` as one JSON array of its column values, in the order `fromJsonArrays` names
 * them (`json_build_array(alias."column", ...)`): what `viewObject` answers without repeating
 * every property name in every row, for long lists (the home screen's 40 cards and 30 products:
 * a third less JSON for PostgreSQL to write and Node to parse).
 */
export function viewArray(em: EntityManager, entity: EntityClass<object>, alias: string): string {
  return selectOf(em, entity, `array:${alias}`, ({ columns }) => {
    // A function takes at most 100 arguments (PostgreSQL's FUNC_MAX_ARGS).
    if (columns.length > 100) throw new Error(`row-views: ${entity.name} has too many columns for json_build_array`);
    return `json_build_array(${columns.map(([column]) => `${alias}."${column}"`).join(', ')})`;
  });
}

/** Views of arrays selected with `viewArray`: each becomes the object `viewObject` would have answered, then a view. */
export function fromJsonArrays<T extends object>(em: EntityManager, entity: EntityClass<T>, arrays: unknown[][]): View<T>[] {
  const { columns } = shapeOf(em, entity);
  const objects = arrays.map((values) => {
    const object: Record<string, unknown> = {};
    for (let k = 0; k < columns.length; k++) object[columns[k][1]] = values[k];
    return object;
  });
  return asViews(em, entity, objects);
}

/**
 * Views of objects selected with `viewObject` (parsed JSON: numbers, text, booleans as the driver
 * answers them; timestamps as ISO text, parsed as the ORM parses them), in place.
 */
export function fromJson<T extends object>(em: EntityManager, entity: EntityClass<T>, objects: object[] | null): View<T>[] {
  return asViews(em, entity, objects ?? []);
}
