/** The demo city's signed-in users; config.ts gives their numbers this code in development. */
export const DEMO_CODE = '123456';

export interface DemoAccount {
  phone: string;
  role: 'customer' | 'store owner' | 'driver';
  name: string;
  code: string;
}

export interface Person {
  phone: string;
  firstName: string;
  lastName: string;
}

/** The customer first, then owners 1 to 3 (index = owner number), then the drivers. */
export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  { phone: '+15550000001', role: 'customer', name: 'Demo Customer', code: DEMO_CODE },
  { phone: '+15550001001', role: 'store owner', name: 'Demo Owner 1', code: DEMO_CODE },
  { phone: '+15550001002', role: 'store owner', name: 'Demo Owner 2', code: DEMO_CODE },
  { phone: '+15550001003', role: 'store owner', name: 'Demo Owner 3', code: DEMO_CODE },
  { phone: '+15550002001', role: 'driver', name: 'Demo Driver 1', code: DEMO_CODE },
  { phone: '+15550002002', role: 'driver', name: 'Demo Driver 2', code: DEMO_CODE },
];

/** Promo codes of the demo city, for trying checkout (percent or cents off the subtotal). */
export const DEMO_PROMO_CODES = [
  {
    code: 'WELCOME10',
    description: '10% off your order (up to 30.00)',
    discountType: 'percentage',
    percentOff: 10,
    amountOffCents: null,
    maxDiscountCents: 3000,
    minSubtotalCents: 0,
    maxUses: null,
    maxUsesPerCustomer: 1,
  },
  {
    code: 'SAVE15',
    description: '15.00 off orders of 100.00 or more',
    discountType: 'fixed',
    percentOff: null,
    amountOffCents: 1500,
    maxDiscountCents: null,
    minSubtotalCents: 10000,
    maxUses: null,
    maxUsesPerCustomer: 3,
  },
  {
    code: 'FIRST100',
    description: '20% off for the first 100 orders',
    discountType: 'percentage',
    percentOff: 20,
    amountOffCents: null,
    maxDiscountCents: 5000,
    minSubtotalCents: 0,
    maxUses: 100,
    maxUsesPerCustomer: 1,
  },
] as const;

/** "Demo Owner 1" -> first name "Demo", last name "Owner 1". */
export function demoPerson(account: DemoAccount): Person {
  const [firstName, ...rest] = account.name.split(' ');
  return { phone: account.phone, firstName, lastName: rest.join(' ') };
}
