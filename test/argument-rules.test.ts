/**
 * The read paths' argument fast path (src/common/argument-rules.ts) lets a value through
 * exactly when class-validator (type-graphql's settings) finds no problem, and otherwise throws
 * class-validator's own error.
 */
import 'reflect-metadata';
import { validate, validateOrReject } from 'class-validator';
import { ArgumentValidationError } from 'type-graphql';
import { argumentRules, compileRules } from '../src/common/argument-rules';
import { VALIDATE_SETTINGS } from '../src/common/validation';
import { Random } from '../src/db/seed/random';
import { NearbyStoresArgs, OptionalPointArgs, SearchArgs } from '../src/modules/discovery/discovery.inputs';

const OPTIONS = { ...VALIDATE_SETTINGS, skipMissingProperties: true };

describe('argument rules fast path', () => {
  const rnd = new Random(5);
  const anyOf = (values: unknown[]) => values[rnd.int(0, values.length - 1)];
  const numbers: unknown[] = [
    undefined,
    null,
    0,
    -1,
    1,
    1.5,
    2,
    3,
    4.5,
    5,
    5.01,
    50,
    51,
    90,
    90.5,
    -90,
    -91,
    180,
    -181,
    100,
    101,
    Number.NaN,
    Infinity,
    '3',
    true,
    // Types GraphQL's coercion keeps out, still answered alike: lists, objects, boxed values, bigint, symbol, huge text, -0, extremes.
    [],
    [5],
    {},
    { valueOf: () => 3 },
    new Number(3),
    10n,
    Symbol('s'),
    'x'.repeat(100_000),
    -0,
    Number.MAX_VALUE,
    -Infinity,
  ];

  it("agrees with class-validator on every value of the read paths' arguments", async () => {
    const makers: [new () => object, () => Record<string, unknown>][] = [
      [
        NearbyStoresArgs,
        () => ({
          lat: anyOf(numbers),
          lng: anyOf(numbers),
          radius: anyOf(numbers),
          minRating: anyOf(numbers),
          categoryId: anyOf(numbers),
          freeDelivery: anyOf([undefined, true, false]),
          isOpen: anyOf([undefined, true]),
          hasOffer: anyOf([undefined, false]),
          sort: anyOf([undefined, null, 'distance', 'rating', 'delivery_fee', 'delivery_time', 'popularity', 'x', 3]),
          page: anyOf(numbers),
          perPage: anyOf(numbers),
        }),
      ],
      [OptionalPointArgs, () => ({ lat: anyOf(numbers), lng: anyOf(numbers) })],
      [
        SearchArgs,
        () => ({
          q: anyOf([
            undefined,
            null,
            '',
            ' ',
            'pizza',
            ' x ',
            'a'.repeat(100),
            'a'.repeat(101),
            3,
            ['pizza'],
            { q: 'x' },
            new String('pizza'),
            '\u{1F355}'.repeat(100),
            'x'.repeat(1_000_000),
          ]),
        }),
      ],
    ];
    let passed = 0;
    for (const [type, make] of makers) {
      expect(compileRules(type)).not.toBeNull();
      for (let k = 0; k < 1500; k++) {
        const value = Object.assign(new type(), make());
        const problems = await validate(value, OPTIONS);
        expect([k, compileRules(type)!(value as Record<string, unknown>)]).toEqual([k, problems.length === 0]);
        const thrown = await (argumentRules(value, type, {} as never) as Promise<void>).then(
          () => null,
          (e: unknown) => e,
        );
        if (problems.length === 0) {
          expect(thrown).toBeNull();
          passed++;
        } else {
          expect(thrown).toBeInstanceOf(ArgumentValidationError);
          expect((thrown as ArgumentValidationError).extensions.validationErrors).toEqual(problems);
        }
      }
    }
    expect(passed).toBeGreaterThan(100);
  });

  it("answers an object without a constructor as type-graphql does: class-validator's failure, wrapped", async () => {
    const bare = Object.assign(Object.create(null) as object, { lat: 1 });
    const failure = await validateOrReject(bare, OPTIONS).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(Error);
    const thrown = await (argumentRules(bare, NearbyStoresArgs, {} as never) as Promise<void>).then(
      () => null,
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(ArgumentValidationError);
    expect((thrown as ArgumentValidationError).extensions.validationErrors).toEqual(failure);
  });

  it('leaves a class without rules to class-validator (forbidUnknownValues refuses it)', async () => {
    class NoRules {
      x = 1;
    }
    expect(compileRules(NoRules)).toBeNull();
    await expect(argumentRules(new NoRules(), NoRules, {} as never)).rejects.toBeInstanceOf(ArgumentValidationError);
  });
});
